//! The sanitizer in the driver library: `WARPJIT_CHECK` (read by the
//! first `cuInit`: a comma-separated list of memcheck, racecheck,
//! initcheck, synccheck or all; a bad value fails `cuInit` with
//! `CUDA_ERROR_INVALID_VALUE`) turns the device's checks on; each launch's
//! reports go to stderr as compute-sanitizer prints them; at process exit,
//! with memcheck, every allocation never freed is reported as a leak
//! (`--leak-check full`), then the error summary.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use warpjit::runtime::Device;
use warpjit::sanitizer::{self, Checks};

/// Reports printed so far (the error summary's count).
static ERRORS: AtomicUsize = AtomicUsize::new(0);
/// Whether memcheck's leak check runs at exit.
static LEAK_CHECK: AtomicBool = AtomicBool::new(false);

extern "C" {
    fn atexit(f: extern "C" fn()) -> std::ffi::c_int;
}

/// The checks `WARPJIT_CHECK` names; with any, registers the summary at exit.
pub(crate) fn checks_at_init() -> Result<Checks, String> {
    let checks = Checks::from_env()?;
    if checks.any() {
        LEAK_CHECK.store(checks.memcheck, Ordering::Relaxed);
        static ONCE: std::sync::Once = std::sync::Once::new();
        // SAFETY: registers a function of this library, which stays loaded
        // (or runs the handler when unloaded).
        ONCE.call_once(|| unsafe {
            atexit(at_exit);
        });
    }
    Ok(checks)
}

/// Prints the reports of the launches run since the last call.
pub(crate) fn print_reports(device: &Device) {
    let reports = device.take_reports();
    if reports.is_empty() {
        return;
    }
    ERRORS.fetch_add(reports.len(), Ordering::Relaxed);
    let text: String = reports.iter().map(|r| r.to_string()).collect();
    eprint!("{text}");
}

/// The leak check and the error summary, at process exit.
extern "C" fn at_exit() {
    let mut leaks = Vec::new();
    // A worker may hold the state at exit: then no leak check, rather than
    // a hang.
    if let Ok(guard) = crate::STATE.try_lock() {
        if let Some(s) = guard.as_ref() {
            print_reports(&s.dev());
            if LEAK_CHECK.load(Ordering::Relaxed) {
                leaks = s.allocations.iter().map(|(&a, &n)| (a, n)).collect();
            }
        }
    }
    let mut text = String::new();
    if LEAK_CHECK.load(Ordering::Relaxed) {
        for &(addr, size) in &leaks {
            text.push_str(&Device::leak_report(addr, size).to_string());
        }
        let bytes: u64 = leaks.iter().map(|l| l.1).sum();
        text.push_str(&format!(
            "========= LEAK SUMMARY: {bytes} bytes leaked in {} allocations\n",
            leaks.len()
        ));
    }
    let errors = ERRORS.load(Ordering::Relaxed) + leaks.len();
    text.push_str(&sanitizer::summary(errors));
    eprintln!("{text}");
}
