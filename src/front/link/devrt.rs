//! warpjit's own CUDA device runtime: the functions of NVIDIA's
//! `libcudadevrt.a` that warpjit provides, as PTX written here, linked in
//! when an input uses one of them and no input defines it.
//!
//! `libcudadevrt.a` is GPU machine code, which warpjit cannot run; what
//! programs call from it for grid-wide cooperative-groups sync (numba-cuda's
//! `cg.this_grid().sync()`, CUDA C++ compiled with `-rdc` calling these
//! functions by name) is small and follows from what a cooperative launch
//! gives every kernel (`runtime/cooperative.rs`): a grid workspace whose
//! address is in `%envreg1` (high half) and `%envreg2` (low half), the word
//! at offset 4 counting arrivals at the grid barrier. That is the barrier
//! cooperative groups' inline `this_grid().sync()` uses, so the two can be
//! mixed in one kernel:
//!
//! - `cudaCGGetIntrinsicHandle(scope)`: the grid workspace's address for
//!   `cudaCGScopeGrid` (1), else 0 (multi-grid groups, deprecated and
//!   single-device here, and invalid scopes);
//! - `cudaCGSynchronizeGrid(handle, flags)`: every thread of the CTA
//!   reaches a CTA barrier; its first thread arrives at the grid barrier
//!   (the grid's first CTA adds `0x80000001 - CTAs`, the others 1, with
//!   release semantics, so that bit 31 of the count flips when the last CTA
//!   arrives) and spins with acquire loads until it flips; a second CTA
//!   barrier releases the CTA. Returns `cudaSuccess`. A null handle (a
//!   launch that was not cooperative) traps, as the inline sync does;
//! - `cudaCGSynchronize(handle, flags)`: the sync of the group `handle`
//!   names, which can only be the grid here (numba-cuda's `grid.sync()`
//!   calls this one).
//!
//! The other device-runtime functions (dynamic parallelism's
//! `cudaLaunchDevice`, `cudaGetParameterBuffer`, device-side `cudaMalloc`,
//! ...) stay link errors naming the function
//! ([`super::LinkProblem::DeviceRuntime`]).

use std::collections::HashSet;

use super::super::{ast, SourceFile};
use super::{directive_name, role, Role};

/// The functions [`SOURCE`] defines.
pub const PROVIDES: &[&str] = &[
    "cudaCGGetIntrinsicHandle",
    "cudaCGSynchronizeGrid",
    "cudaCGSynchronize",
];

/// The name the device runtime's input has in diagnostics.
pub const NAME: &str = "<warpjit device runtime>";

/// The device runtime, in PTX (`atom.release`/`ld.acquire` need sm_70).
/// Parameters are named as NVRTC names them in the declarations that
/// calls link against (`<function>_param_<n>`, `func_retval0`): a linked
/// module keeps those declarations as prototypes ahead of the definitions.
pub const SOURCE: &str = r#".version 6.0
.target sm_70
.address_size 64

.visible .func (.param .b64 func_retval0) cudaCGGetIntrinsicHandle(.param .b32 cudaCGGetIntrinsicHandle_param_0)
{
	.reg .pred %p<2>;
	.reg .b32 %r<4>;
	.reg .b64 %rd<3>;
	ld.param.u32 %r0, [cudaCGGetIntrinsicHandle_param_0];
	mov.u32 %r1, %envreg1;
	mov.u32 %r2, %envreg2;
	mov.b64 %rd0, {%r2, %r1};
	setp.eq.u32 %p0, %r0, 1;
	selp.b64 %rd1, %rd0, 0, %p0;
	st.param.b64 [func_retval0], %rd1;
	ret;
}

.visible .func (.param .b32 func_retval0) cudaCGSynchronizeGrid(.param .b64 cudaCGSynchronizeGrid_param_0, .param .b32 cudaCGSynchronizeGrid_param_1)
{
	.reg .pred %p<4>;
	.reg .b32 %r<16>;
	.reg .b64 %rd<2>;
	ld.param.u64 %rd0, [cudaCGSynchronizeGrid_param_0];
	setp.ne.u64 %p0, %rd0, 0;
	@%p0 bra $have_workspace;
	trap;
$have_workspace:
	add.u64 %rd1, %rd0, 4;
	barrier.sync 0;
	mov.u32 %r0, %tid.x;
	mov.u32 %r1, %tid.y;
	mov.u32 %r2, %tid.z;
	or.b32 %r3, %r0, %r1;
	or.b32 %r3, %r3, %r2;
	setp.ne.u32 %p1, %r3, 0;
	@%p1 bra $released;
	mov.u32 %r4, %ctaid.x;
	mov.u32 %r5, %ctaid.y;
	mov.u32 %r6, %ctaid.z;
	or.b32 %r7, %r4, %r5;
	or.b32 %r7, %r7, %r6;
	setp.eq.u32 %p2, %r7, 0;
	mov.u32 %r8, %nctaid.x;
	mov.u32 %r9, %nctaid.y;
	mov.u32 %r10, %nctaid.z;
	mul.lo.u32 %r11, %r8, %r9;
	mul.lo.u32 %r11, %r11, %r10;
	sub.u32 %r12, 0x80000001, %r11;
	selp.b32 %r13, %r12, 1, %p2;
	atom.add.release.gpu.u32 %r14, [%rd1], %r13;
$spin:
	ld.acquire.gpu.u32 %r15, [%rd1];
	xor.b32 %r15, %r15, %r14;
	setp.gt.s32 %p3, %r15, -1;
	@%p3 bra $spin;
$released:
	barrier.sync 0;
	mov.u32 %r0, 0;
	st.param.b32 [func_retval0], %r0;
	ret;
}

.visible .func (.param .b32 func_retval0) cudaCGSynchronize(.param .b64 cudaCGSynchronize_param_0, .param .b32 cudaCGSynchronize_param_1)
{
	.reg .b32 %r<2>;
	.reg .b64 %rd<1>;
	ld.param.u64 %rd0, [cudaCGSynchronize_param_0];
	ld.param.u32 %r0, [cudaCGSynchronize_param_1];
	{
	.param .b64 param0;
	st.param.b64 [param0], %rd0;
	.param .b32 param1;
	st.param.b32 [param1], %r0;
	.param .b32 retval0;
	call.uni (retval0), cudaCGSynchronizeGrid, (param0, param1);
	ld.param.b32 %r1, [retval0];
	}
	st.param.b32 [func_retval0], %r1;
	ret;
}
"#;

/// The device runtime as an input, when one of `modules` declares a
/// function it provides that none of them defines.
pub fn needed(modules: &[ast::Module]) -> Option<(SourceFile, ast::Module)> {
    let mut declared = HashSet::new();
    let mut defined = HashSet::new();
    for d in modules.iter().flat_map(|m| &m.directives) {
        let Some((name, _, true)) = directive_name(d) else {
            continue;
        };
        if !PROVIDES.contains(&name) {
            continue;
        }
        match role(d) {
            Role::Declaration => declared.insert(name),
            Role::Definition(_) => defined.insert(name),
            _ => false,
        };
    }
    if declared.iter().all(|n| defined.contains(n)) {
        return None;
    }
    let src = SourceFile::new(NAME, SOURCE);
    let module = super::super::parse(&src).expect("the device runtime's PTX parses");
    Some((src, module))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_device_runtime_parses_and_defines_what_it_provides() {
        let src = SourceFile::new(NAME, SOURCE);
        let m = super::super::super::parse(&src).unwrap();
        let defined: Vec<&str> = m
            .directives
            .iter()
            .filter(|d| matches!(role(d), Role::Definition(_)))
            .filter_map(|d| directive_name(d).map(|(n, _, _)| n))
            .collect();
        assert_eq!(defined, PROVIDES);
    }

    #[test]
    fn linked_in_only_for_an_undefined_declaration() {
        let decl = ".version 8.0\n.target sm_80\n.address_size 64\n.extern .func (.param .b32 r) cudaCGSynchronizeGrid(.param .b64 h, .param .b32 f);\n";
        let parse = |t: &str| super::super::super::parse(&SourceFile::new("a.ptx", t)).unwrap();
        assert!(needed(&[parse(decl)]).is_some());
        let none =
            ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\nret;\n}\n";
        assert!(needed(&[parse(none)]).is_none());
        assert!(needed(&[parse(decl), parse(SOURCE)]).is_none());
    }
}
