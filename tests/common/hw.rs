//! The hardware calibration kit's JSON (`ptx-samples/gen/hw_calibrate.py`,
//! schema `warpjit-hwcal/1`) read back: the fidelity runs a GPU ran, for
//! `cargo bench --bench fidelity -- --hw FILE` (tests/hw_measured.rs).

/// One fidelity run as the hardware calibration kit
/// (`ptx-samples/gen/hw_calibrate.py`) measured it on a GPU.
#[derive(Clone, Debug, PartialEq)]
pub struct Measured {
    /// The run's name in runs.toml.
    pub name: String,
    /// The median over repetitions of the summed timed launches, in ms.
    pub median_ms: f64,
    /// Each `[[run.read]]`: its name and the median of its values.
    pub reads: Vec<(String, f64)>,
    /// The SM clock NVML read right after the run, where it could.
    pub sm_clock_mhz: Option<f64>,
}

/// The median of `v` (the mean of the middle two for an even count).
fn median(mut v: Vec<f64>) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    Some(if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    })
}

/// The device's compute capability ("9.0") and the fidelity runs that ran
/// ("ok") in a kit file (schema `warpjit-hwcal/1`). A file of the CPU
/// self-test with its sizes scaled down (`--scale`) is refused: its runs
/// are not the runs.toml ones.
pub fn measured(json: &str) -> Result<(String, Vec<Measured>), String> {
    let v = kit_file(json)?;
    let scale = v["options"]["scale"].as_u64().unwrap_or(1);
    if scale != 1 {
        return Err(format!(
            "the runs were scaled down {scale}x (--scale): not comparable"
        ));
    }
    let cc = v["device"]["compute_capability"]
        .as_str()
        .ok_or("no device compute_capability")?
        .to_string();
    let mut out = Vec::new();
    for r in v["runs"].as_array().map(Vec::as_slice).unwrap_or(&[]) {
        if r["status"] != "ok" {
            continue;
        }
        let (Some(name), Some(median_ms)) = (r["name"].as_str(), r["median_ms"].as_f64()) else {
            continue;
        };
        let reads = r["reads"]
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or(&[])
            .iter()
            .filter_map(|rd| {
                let values = rd["values"]
                    .as_array()?
                    .iter()
                    .filter_map(|x| x.as_f64())
                    .collect();
                Some((rd["name"].as_str()?.to_string(), median(values)?))
            })
            .collect();
        out.push(Measured {
            name: name.to_string(),
            median_ms,
            reads,
            sm_clock_mhz: r["clocks_after"]["sm_clock_mhz"].as_f64(),
        });
    }
    Ok((cc, out))
}

/// One corpus sample's launch as the kit measured it.
#[derive(Clone, Debug, PartialEq)]
pub struct MeasuredSample {
    /// `suite/name`, e.g. `cuda/saxpy`.
    pub id: String,
    /// The PTX file's name in the sample's directory.
    pub ptx: String,
    /// The median over repetitions of the launch's time, in ms.
    pub median_ms: f64,
    /// The registers per thread of the driver's binary, where it said.
    pub regs: Option<u32>,
    /// The SM clock NVML read right after the launch, where it could.
    pub sm_clock_mhz: Option<f64>,
}

/// The kit's empty-kernel time (ms: a launch's fixed cost as events see
/// it) and the corpus samples that ran ("ok") in a kit file.
pub fn measured_samples(json: &str) -> Result<(f64, Vec<MeasuredSample>), String> {
    let v = kit_file(json)?;
    let baseline = v["baseline"]["median_ms"]
        .as_f64()
        .ok_or("no empty-kernel baseline")?;
    let mut out = Vec::new();
    for r in v["samples"].as_array().map(Vec::as_slice).unwrap_or(&[]) {
        if r["status"] != "ok" {
            continue;
        }
        let (Some(id), Some(ptx), Some(median_ms)) =
            (r["id"].as_str(), r["ptx"].as_str(), r["median_ms"].as_f64())
        else {
            continue;
        };
        out.push(MeasuredSample {
            id: id.to_string(),
            ptx: ptx.to_string(),
            median_ms,
            regs: r["func"]["num_regs"].as_u64().map(|n| n as u32),
            sm_clock_mhz: r["clocks_after"]["sm_clock_mhz"].as_f64(),
        });
    }
    Ok((baseline, out))
}

/// A kit file's JSON, refused unless its schema is `warpjit-hwcal/1`.
fn kit_file(json: &str) -> Result<serde_json::Value, String> {
    let v: serde_json::Value = serde_json::from_str(json).map_err(|e| e.to_string())?;
    if v["schema"] != "warpjit-hwcal/1" {
        return Err(format!("schema {} is not warpjit-hwcal/1", v["schema"]));
    }
    Ok(v)
}
