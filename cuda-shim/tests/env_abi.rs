//! Settings from the environment, each in a process of its own (the test
//! re-runs its own binary with the variable set): `WARPJIT_DEVICE_MEMORY`
//! sizes the device memory, `WARPJIT_WATCHDOG_SECONDS` a launch's time
//! limit; bad values make `cuInit` fail.

use std::ffi::c_int;

mod common;
use common::*;

/// Set in the processes `device_memory_size_from_the_environment` runs:
/// what `cuInit` must return, and the total memory it must then report.
const EXPECT: &str = "WARPJIT_TEST_EXPECT_DEVICE_MEMORY";

#[test]
fn device_memory_size_from_the_environment() {
    if let Ok(expect) = std::env::var(EXPECT) {
        // In a process of its own (the size is read by the first cuInit).
        let (code, total) = expect.split_once(' ').unwrap();
        let lib = library();
        let init = sym!(lib, b"cuInit", CuInit);
        let total_mem = sym!(
            lib,
            b"cuDeviceTotalMem_v2",
            unsafe extern "C" fn(*mut usize, c_int) -> u32
        );
        // SAFETY: the driver API with valid pointers.
        unsafe {
            assert_eq!(init(0).to_string(), code);
            if code == "0" {
                let mut bytes = 0usize;
                assert_eq!(total_mem(&mut bytes, 0), 0);
                assert_eq!(bytes.to_string(), total);
            }
        }
        return;
    }
    for (value, code, total) in [
        ("64M", 0, 64u64 << 20),
        ("1536k", 0, 1536 << 10),
        ("12Q", 1, 0),
        ("0", 1, 0),
    ] {
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "device_memory_size_from_the_environment"])
            .args(["--test-threads=1", "--nocapture"])
            .env("WARPJIT_DEVICE_MEMORY", value)
            .env(EXPECT, format!("{code} {total}"))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success(),
            "WARPJIT_DEVICE_MEMORY={value}: {stderr}"
        );
        assert!(
            String::from_utf8_lossy(&out.stdout).contains("1 passed"),
            "the child ran the test"
        );
        if code != 0 {
            assert!(stderr.contains("WARPJIT_DEVICE_MEMORY"), "{stderr}");
        }
    }
}

/// Set in the processes `watchdog_time_from_the_environment` runs: what
/// `cuInit` must return.
const EXPECT_INIT: &str = "WARPJIT_TEST_EXPECT_INIT";

#[test]
fn watchdog_time_from_the_environment() {
    if let Ok(code) = std::env::var(EXPECT_INIT) {
        // In a process of its own (the limit is read by the first cuInit).
        let lib = library();
        let init = sym!(lib, b"cuInit", CuInit);
        // SAFETY: the driver API.
        unsafe { assert_eq!(init(0).to_string(), code) };
        return;
    }
    for (value, code) in [("0.5", 0), ("120", 0), ("soon", 1), ("-1", 1), ("inf", 1)] {
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "watchdog_time_from_the_environment"])
            .args(["--test-threads=1", "--nocapture"])
            .env("WARPJIT_WATCHDOG_SECONDS", value)
            .env(EXPECT_INIT, code.to_string())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success(),
            "WARPJIT_WATCHDOG_SECONDS={value}: {stderr}"
        );
        assert!(
            String::from_utf8_lossy(&out.stdout).contains("1 passed"),
            "the child ran the test"
        );
        if code != 0 {
            assert!(stderr.contains("WARPJIT_WATCHDOG_SECONDS"), "{stderr}");
        }
    }
}
