//! When a timed launch executes memory accesses: at the cycle the model
//! issues them, on both engines. The JIT runs a compiled piece's ops
//! together, so a piece whose first ops only compute (and whose later op
//! touches memory other warps see) runs when that later op issues, not
//! when its first op does: a load then sees every store another warp
//! issued before it, as on the interpreter, which runs op by op.

use warpjit::runtime::{Device, Engine, KernelArg, LaunchConfig, Options, TimingOptions};
use warpjit::timing::arch::InstructionOrder;
use warpjit::timing::Arch;

/// Warp 1 stores 7 to `flag` after two dependent ops; warp 0 loads `flag`
/// after a chain of ten dependent multiplies, in one piece with them, and
/// writes what it saw to `out`. The store issues tens of cycles before the
/// load, but after the chain's first multiply.
const PTX: &str = r#"
.version 7.0
.target sm_80
.address_size 64

.visible .entry store_then_load(.param .u64 flag_ptr, .param .u64 out_ptr)
{
    .reg .pred %p<2>;
    .reg .b32 %r<20>;
    .reg .b64 %rd<3>;
    ld.param.u64 %rd1, [flag_ptr];
    ld.param.u64 %rd2, [out_ptr];
    mov.u32 %r1, %tid.x;
    setp.lt.u32 %p1, %r1, 32;
    @%p1 bra WARP0;
    mul.lo.u32 %r2, %r1, 0;
    add.u32 %r3, %r2, 7;
    st.global.u32 [%rd1], %r3;
    ret;
WARP0:
    mul.lo.u32 %r4, %r1, 3;
    mul.lo.u32 %r5, %r4, 5;
    mul.lo.u32 %r6, %r5, 7;
    mul.lo.u32 %r7, %r6, 11;
    mul.lo.u32 %r8, %r7, 13;
    mul.lo.u32 %r9, %r8, 17;
    mul.lo.u32 %r10, %r9, 19;
    mul.lo.u32 %r11, %r10, 23;
    mul.lo.u32 %r12, %r11, 29;
    mul.lo.u32 %r13, %r12, 31;
    ld.global.u32 %r14, [%rd1];
    add.u32 %r15, %r14, %r13;
    sub.u32 %r16, %r15, %r13;
    st.global.u32 [%rd2], %r16;
    ret;
}
"#;

fn seen_by_the_load(engine: Engine) -> u32 {
    let mut dev = Device::new(Options::default());
    dev.set_engine(engine);
    let m = dev.load_ptx("store_then_load.ptx", PTX).unwrap();
    let k = dev.kernel(m, Some("store_then_load")).unwrap();
    let flag = dev.alloc(4).unwrap();
    let out = dev.alloc(4).unwrap();
    dev.write(flag, &0u32.to_le_bytes()).unwrap();
    dev.write(out, &u32::MAX.to_le_bytes()).unwrap();
    let params = dev
        .params(m, k, &[KernelArg::Ptr(flag), KernelArg::Ptr(out)])
        .unwrap();
    let cfg = LaunchConfig {
        grid: [1, 1, 1],
        block: [64, 1, 1],
        shared_bytes: 0,
    };
    // In PTX order: the compiler's (`ir::schedule`) would hoist the load
    // above the chain, ahead of the other warp's store.
    let mut arch = Arch::builtin("sm_80").unwrap();
    arch.scheduler.instruction_order = InstructionOrder::Ptx;
    let t = TimingOptions::new(arch);
    dev.launch_timed(m, k, cfg, &params, &t).unwrap();
    let mut bytes = [0u8; 4];
    dev.read(out, &mut bytes).unwrap();
    u32::from_le_bytes(bytes)
}

#[test]
fn a_load_sees_the_stores_issued_before_it_on_both_engines() {
    assert_eq!(seen_by_the_load(Engine::Interp), 7);
    assert_eq!(seen_by_the_load(Engine::Jit), 7);
}
