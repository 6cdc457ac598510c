//! Static shared memory laid out per kernel: variables that no kernel uses
//! together may share offsets (`ir::lower::shared_plan`), so a module whose
//! kernels together declare more than a block can have loads (as CUB's and
//! Thrust's many-kernel modules do), while the variables one kernel uses
//! stay apart. `ptx-samples/cuda/shared_many_kernels` (NVRTC: six kernels
//! with a 48,000-byte array each, function scope, and a counter at module
//! scope that three of them use) is also run by the samples test.

mod common;

use warpjit::runtime::{Device, Options};

#[test]
fn kernels_get_their_own_layout_and_a_kernels_variables_stay_apart() {
    let path = "ptx-samples/cuda/shared_many_kernels/kernel.compute_80.ptx";
    let text = common::read(&common::repo_root().join(path));
    let mut dev = Device::new(Options::default());
    // 6 x 48,000 + 4 bytes declared: more than a block's 227 KiB.
    let m = dev.load_ptx(path, &text).unwrap();
    let ir = dev.ir(m);
    for i in 0..6 {
        let kernel = ir.function_by_name(&format!("reverse{i}")).unwrap();
        // The odd kernels also use the counter.
        let own = if i % 2 == 1 { 48_004 } else { 48_000 };
        assert_eq!(ir.static_shared_of(kernel), own, "reverse{i}");
        // The variables a kernel (and what it calls) names do not overlap.
        let (reached, _) = ir.reached_from(kernel);
        let mut used: Vec<(u32, u32)> = reached
            .iter()
            .flat_map(|&f| ir.functions[f].shared_used.iter())
            .map(|&v| {
                let var = &ir.shared_vars[v as usize];
                (var.offset, var.offset + var.size)
            })
            .collect();
        used.sort_unstable();
        assert_eq!(used.len(), if i % 2 == 1 { 2 } else { 1 }, "reverse{i}");
        assert!(
            used.windows(2).all(|w| w[0].1 <= w[1].0),
            "reverse{i}: {used:?}"
        );
    }
    // The arrays of different kernels overlap: the module needs what its
    // largest kernel needs, not the sum.
    assert!(ir.shared_static_size <= 48_004, "{}", ir.shared_static_size);
}
