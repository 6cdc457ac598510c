//! The built-in presets' checks: each loads, agrees with NVIDIA's
//! occupancy rules, states every key and cites a source per value; bad
//! presets are refused naming the field.

use super::*;

#[test]
fn every_builtin_preset_loads_and_agrees_with_the_occupancy_rules() {
    for (name, _) in PRESETS {
        let a = Arch::builtin(name).unwrap();
        assert_eq!(&a.name, name);
        // A board's rules are its chip's.
        let (major, minor) = a.cc().unwrap();
        let g = GpuLimits::builtin(&format!("sm_{major}{minor}")).unwrap();
        assert_eq!(a.limits(), g, "{name}: [occupancy] differs from the rules");
    }
}

/// Keys with defaults (for users' files written before them) are given
/// explicitly, with a source, by every built-in chip preset.
#[test]
fn chip_presets_state_every_key() {
    let keys = [
        "block_launch_cycles",
        "block_dispatch_cycles",
        "issue_interval",
        "instruction_order",
        "same_pipe",
        "int_mul32_issues",
        "l1_shared_unified_kib",
        "shared_bank_width_bytes",
        "shared_half_warp",
        "shared_wide_quarter_warps",
        "coalescing",
        "l1_fill",
        "shared_cycles_per_pass",
        "l1_mshrs",
        "l1_store_allocate",
        "sm_l2_bytes_per_cycle",
        "l2_slices",
        "l2_slice_bytes_per_cycle",
        "l2_atomic_cycles",
        "l2_fetch_sectors",
        "l2_partial_write_cycles",
        "dram_partial_write_fill",
        "dram_refresh_fraction",
        "dram_ecc_fraction",
        "dram_channels",
        "dram_turnaround_ns",
        "dram_write_batch",
        "dram_queue",
        "dram_interleave_bytes",
        "dram_hashed",
        "dram_banks",
        "dram_row_bytes",
        "dram_row_cycle_ns",
        "dram_activate_ns",
    ];
    for (name, text) in PRESETS {
        if text.contains("\nbase = ") {
            continue;
        }
        for k in keys {
            assert!(
                text.lines()
                    .any(|l| l.trim_start().starts_with(&format!("{k} ="))),
                "{name}.toml does not give {k}"
            );
        }
    }
}

#[test]
fn every_value_cites_its_source() {
    for (name, text) in PRESETS {
        for (i, line) in text.lines().enumerate() {
            let l = line.trim();
            if l.is_empty() || l.starts_with('#') || l.starts_with('[') {
                continue;
            }
            assert!(
                l.contains('#') && l.split('#').nth(1).unwrap().trim().len() > 2,
                "{name}.toml:{}: `{l}` has no source comment",
                i + 1
            );
        }
    }
}

#[test]
fn bad_presets_are_refused_with_the_field() {
    let text = Arch::builtin_text("sm_80")
        .unwrap()
        .replace("clock_mhz = 1410", "clock_mhz = 0");
    let e = Arch::from_toml("x.toml", &text).unwrap_err();
    assert!(e.message.contains("chip.clock_mhz"), "{e}");
    // More warps per scheduler than the model holds.
    let text = Arch::builtin_text("sm_80")
        .unwrap()
        .replace("schedulers_per_sm = 4 ", "schedulers_per_sm = 1 ")
        .replace("max_warps_per_sm = 64 ", "max_warps_per_sm = 96 ");
    let e = Arch::from_toml("z.toml", &text).unwrap_err();
    assert!(
        e.message.contains("scheduler.schedulers_per_sm = 1")
            && e.message.contains("occupancy.max_warps_per_sm = 96"),
        "{e}"
    );
    let text = Arch::builtin_text("sm_61").unwrap().replace(
        r#"same_pipe = [["int", "fp32"]]"#,
        r#"same_pipe = [["int", "fp23"]]"#,
    );
    let e = Arch::from_toml("p.toml", &text).unwrap_err();
    assert!(e.message.contains("`fp23` is not a unit class"), "{e}");
    let e = Arch::from_toml("y.toml", "name = 3").unwrap_err();
    assert!(e.to_string().starts_with("y.toml: "), "{e}");
}
