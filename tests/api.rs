//! The library API end to end, as a host program uses it: load a real
//! module, allocate, copy, launch with typed arguments, read back, and get
//! typed errors.

mod common;

use warpjit::runtime::{Device, KernelArg, LaunchConfig, Options};
use warpjit::Error;

#[test]
fn saxpy_through_the_typed_api() {
    let ptx =
        common::read(&common::repo_root().join("ptx-samples/cuda/saxpy/kernel.compute_80.ptx"));
    let mut dev = Device::new(Options {
        arena_bytes: 16 << 20,
        ..Options::default()
    });
    let m = dev.load_ptx("saxpy.ptx", &ptx).unwrap();
    let k = dev.kernel(m, None).unwrap();
    let n = 1000usize;
    let x: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
    let y: Vec<f32> = (0..n).map(|i| 1.0 - i as f32).collect();
    let bytes = |v: &[f32]| v.iter().flat_map(|f| f.to_le_bytes()).collect::<Vec<u8>>();
    let (dx, dy) = (
        dev.alloc(4 * n as u64).unwrap(),
        dev.alloc(4 * n as u64).unwrap(),
    );
    dev.write(dx, &bytes(&x)).unwrap();
    dev.write(dy, &bytes(&y)).unwrap();
    // saxpy(n, a, x, y) in the sample's parameter order.
    let (slots, _) = dev.kernel_params(m, k);
    assert_eq!(slots.len(), 4);
    let args = [
        KernelArg::I32(n as i32),
        KernelArg::F32(2.0),
        KernelArg::Ptr(dx),
        KernelArg::Ptr(dy),
    ];
    let cfg = LaunchConfig {
        grid: [4, 1, 1],
        block: [128, 1, 1],
        shared_bytes: 0,
    };
    dev.launch_with(m, k, cfg, &args).unwrap();
    let mut out = vec![0u8; 4 * n];
    dev.read(dy, &mut out).unwrap();
    for i in 0..n {
        let got = f32::from_le_bytes(out[4 * i..4 * i + 4].try_into().unwrap());
        assert_eq!(got, 2.0f32.mul_add(x[i], y[i]), "y[{i}]");
    }
    // Typed errors: wrong argument count and size, bad copies.
    assert!(matches!(
        dev.launch_with(m, k, cfg, &args[..3]),
        Err(Error::InvalidArgument(_))
    ));
    let wrong = [
        KernelArg::I64(1),
        KernelArg::F32(2.0),
        KernelArg::Ptr(dx),
        KernelArg::Ptr(dy),
    ];
    assert!(
        matches!(dev.launch_with(m, k, cfg, &wrong), Err(Error::InvalidArgument(s)) if s.contains("is 4 bytes"))
    );
    assert!(matches!(
        dev.read(0x1234, &mut out),
        Err(Error::InvalidAddress { .. })
    ));
    assert!(matches!(dev.alloc(1 << 40), Err(Error::OutOfMemory { .. })));
}
