//! Running the sanitizer suite's kernels (ptx-samples/sanitizer/*.ptx)
//! through the library API and naming their reports briefly, for the
//! sanitizer_* tests.
#![allow(dead_code)]

use warpjit::runtime::{Device, Engine, KernelArg, LaunchConfig, LaunchReport, ModuleId, Options};
use warpjit::sanitizer::{Checks, Hazard, Report, ReportKind};
use warpjit::Error;

/// Both engines, for the tests that run each kernel on each.
pub const ENGINES: [Engine; 2] = [Engine::Jit, Engine::Interp];

/// A device running `checks` (a `Checks::parse` list, or "" for none) on
/// `engine`, with ptx-samples/sanitizer/`module`.ptx loaded.
pub fn setup(checks: &str, module: &str, engine: Engine) -> (Device, ModuleId) {
    let checks = if checks.is_empty() {
        Checks::default()
    } else {
        Checks::parse(checks).unwrap()
    };
    let mut dev = Device::new(Options {
        checks,
        engine,
        ..Options::default()
    });
    let path = super::repo_root().join(format!("ptx-samples/sanitizer/{module}.ptx"));
    let m = dev
        .load_ptx(&format!("{module}.ptx"), &super::read(&path))
        .unwrap();
    (dev, m)
}

/// Allocates and fills a buffer of `values`' bytes.
pub fn upload<T: Copy>(dev: &mut Device, values: &[T], bytes: impl Fn(T) -> Vec<u8>) -> u64 {
    let data: Vec<u8> = values.iter().flat_map(|&v| bytes(v)).collect();
    let a = dev.alloc(data.len().max(1) as u64).unwrap();
    dev.write(a, &data).unwrap();
    a
}

pub fn floats(dev: &mut Device, values: &[f32]) -> u64 {
    upload(dev, values, |v| v.to_le_bytes().to_vec())
}

pub fn ints(dev: &mut Device, values: &[i32]) -> u64 {
    upload(dev, values, |v| v.to_le_bytes().to_vec())
}

pub fn uints(dev: &mut Device, values: &[u32]) -> u64 {
    upload(dev, values, |v| v.to_le_bytes().to_vec())
}

/// A zeroed buffer of `len` bytes (written, for initcheck).
pub fn zeroed(dev: &mut Device, len: u64) -> u64 {
    let a = dev.alloc(len).unwrap();
    dev.memset(a, 0, len).unwrap();
    a
}

fn words(dev: &Device, addr: u64, n: usize) -> Vec<[u8; 4]> {
    let mut b = vec![0u8; 4 * n];
    dev.read(addr, &mut b).unwrap();
    b.chunks(4).map(|c| c.try_into().unwrap()).collect()
}

pub fn read_f32(dev: &Device, addr: u64, n: usize) -> Vec<f32> {
    words(dev, addr, n)
        .into_iter()
        .map(f32::from_le_bytes)
        .collect()
}

pub fn read_i32(dev: &Device, addr: u64, n: usize) -> Vec<i32> {
    words(dev, addr, n)
        .into_iter()
        .map(i32::from_le_bytes)
        .collect()
}

pub fn read_u32(dev: &Device, addr: u64, n: usize) -> Vec<u32> {
    words(dev, addr, n)
        .into_iter()
        .map(u32::from_le_bytes)
        .collect()
}

/// Launches `kernel` with `shared` bytes of dynamic shared memory.
pub fn launch_shared(
    dev: &Device,
    m: ModuleId,
    kernel: &str,
    grid: [u32; 3],
    block: [u32; 3],
    shared: u32,
    args: &[KernelArg],
) -> Result<LaunchReport, Error> {
    let k = dev.kernel(m, Some(kernel)).unwrap();
    let cfg = LaunchConfig {
        grid,
        block,
        shared_bytes: shared,
    };
    dev.launch_with(m, k, cfg, args)
}

pub fn launch(
    dev: &Device,
    m: ModuleId,
    kernel: &str,
    grid: [u32; 3],
    block: [u32; 3],
    args: &[KernelArg],
) -> Result<LaunchReport, Error> {
    launch_shared(dev, m, kernel, grid, block, 0, args)
}

/// A report's kind, block, thread and PTX line (of the access; of the
/// second access for a race).
pub fn brief(r: &Report) -> (ReportKind, [u32; 3], [u32; 3], u32) {
    let a = r.access.as_ref().expect("located");
    (r.kind, r.block, a.thread, a.line)
}

/// A race's hazard, block and both accesses (first, second): thread and
/// PTX line each.
pub type Race = (Hazard, [u32; 3], ([u32; 3], u32), ([u32; 3], u32));

pub fn race(r: &Report) -> Race {
    let ReportKind::Race(h) = r.kind else {
        panic!("not a race: {r}")
    };
    let (a, b) = (r.other.as_ref().unwrap(), r.access.as_ref().unwrap());
    (h, r.block, (a.thread, a.line), (b.thread, b.line))
}

/// The `.loc` source line of a report's access, e.g. `bugs_race.cu:17`,
/// without the directory.
pub fn cu_line(r: &Report) -> String {
    let a = r.access.as_ref().expect("located");
    let s = a.source_location.as_deref().expect("a .loc line");
    s.rsplit('/').next().unwrap().to_string()
}

pub const X: [u32; 3] = [0, 0, 0];

pub fn x(n: u32) -> [u32; 3] {
    [n, 1, 1]
}

pub fn at(n: u32) -> [u32; 3] {
    [n, 0, 0]
}

/// Runs `kernel` of `module` with racecheck on each engine: it completes,
/// and its reports are `want`, all 4-byte shared hazards of this kernel.
/// Returns the reports' text (of the last engine).
pub fn assert_races(
    module: &str,
    kernel: &str,
    grid: [u32; 3],
    block: [u32; 3],
    args: impl Fn(&mut Device) -> Vec<KernelArg>,
    want: &[Race],
) -> Vec<String> {
    let mut text = Vec::new();
    for engine in ENGINES {
        let (mut dev, m) = setup("racecheck", module, engine);
        let args = args(&mut dev);
        launch(&dev, m, kernel, grid, block, &args).unwrap();
        let reports = dev.take_reports();
        let got: Vec<Race> = reports.iter().map(race).collect();
        assert_eq!(got, want, "{engine:?}: {reports:#?}");
        for r in &reports {
            assert_eq!((r.kernel.as_str(), r.space, r.size), (kernel, "shared", 4));
        }
        text = reports.iter().map(|r| r.to_string()).collect();
    }
    text
}
