//! The harness of the instruction-form suites (`cvt_atom_forms.rs`,
//! `isa_forms.rs`): a kernel `k(.u64 in, .u64 out)` run in one block on
//! one engine, its input and output in 8 KiB global buffers.

use warpjit::runtime::{Device, Engine, LaunchConfig, Options};
use warpjit::Error;

pub const ENGINES: [Engine; 2] = [Engine::Interp, Engine::Jit];

/// Runs kernel `k` of module `text` on `engine` in one block of `threads`
/// threads with `input` in the first buffer (`stack_bytes` of local memory
/// per thread, the default when `None`); returns the first `out_len` bytes
/// of the second buffer or the error.
pub fn run_kernel(
    engine: Engine,
    text: &str,
    stack_bytes: Option<u32>,
    threads: u32,
    input: &[u8],
    out_len: usize,
) -> Result<Vec<u8>, Error> {
    let defaults = Options::default();
    let mut dev = Device::new(Options {
        arena_bytes: 1 << 20,
        engine,
        stack_bytes: stack_bytes.unwrap_or(defaults.stack_bytes),
        ..defaults
    });
    let m = dev.load_ptx("t.ptx", text)?;
    let k = dev.kernel(m, Some("k"))?;
    let a = dev.alloc(8192)?;
    let b = dev.alloc(8192)?;
    dev.write(a, input)?;
    dev.write(b, &vec![0u8; 8192])?;
    let mut p = a.to_le_bytes().to_vec();
    p.extend_from_slice(&b.to_le_bytes());
    let cfg = LaunchConfig {
        grid: [1, 1, 1],
        block: [threads, 1, 1],
        shared_bytes: 0,
    };
    dev.launch(m, k, cfg, &p)?;
    let mut out = vec![0u8; out_len];
    dev.read(b, &mut out)?;
    Ok(out)
}

/// Little-endian words of `bytes`.
pub fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// The little-endian bytes of `words`.
pub fn bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}
