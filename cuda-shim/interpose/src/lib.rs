//! `libwarpjit_interpose.so`: the compile paths that end in a CUBIN, made
//! to end in PTX that warpjit's `libcuda.so.1` runs. Preloaded
//! (`LD_PRELOAD`), it takes the place of two libraries' entry points:
//!
//! - **NVRTC** ([`nvrtc`]): `nvrtcGetCUBINSize`/`nvrtcGetCUBIN` hand out the
//!   program's PTX (which NVRTC produces beside the CUBIN when compiling for
//!   a real `sm_XX`), so that cuda.core's default `compile("cubin")` and the
//!   cuda-python samples load something warpjit runs. Every other NVRTC
//!   entry point is NVIDIA's own, untouched.
//! - **nvJitLink** ([`nvjitlink`]): the whole API, implemented here: PTX
//!   inputs (and the PTX "CUBINs" above) are linked by warpjit's linker
//!   ([`warpjit::front::link`]) and the "linked CUBIN" is the linked PTX
//!   text; LTO-IR inputs (numba-cuda's default when nvJitLink is installed)
//!   are first turned into PTX by NVIDIA's own nvJitLink (`-lto -ptx`),
//!   found where `numba-cuda[cu12]` installs it ([`nvidia`]), keeping
//!   what PTX inputs use of it ([`lto_keep`]).
//!
//! Clients find these entry points first because a preloaded library comes
//! first in the process's global symbol scope: C programs linked against
//! `-lnvrtc`/`-lnvJitLink` bind to them, and cuda-python's bindings look
//! each function up in the global scope (`dlsym(RTLD_DEFAULT, ...)`) before
//! loading NVIDIA's library. A real SASS-only CUBIN (a cubin file, a
//! `cuobjdump`-style ELF) is still refused by the driver library with its
//! clear message. The library does not depend on `libcuda.so.1` and can be
//! preloaded with NVIDIA's driver too (it then hands PTX to the driver,
//! which JIT-compiles it).

pub mod lto_keep;
pub mod nvidia;
pub mod nvjitlink;
pub mod nvrtc;
