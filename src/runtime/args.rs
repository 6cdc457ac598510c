//! Kernel arguments as the command line and the sample descriptions write
//! them, and the parameter buffer built from them.
//!
//! `TYPE:VALUE` is a scalar (`u32:1024`, `f32:2.5`, `s64:-3`, `u64:0x10`);
//! `in:PATH` a device buffer filled from a file; `out:BYTES:PATH` a zeroed
//! buffer written to PATH after the launch; `inout:IN:OUT` both;
//! `bytes:PATH` a by-value parameter (a struct) given as raw bytes;
//! `tex:...` and `surf:...` a texture or surface object made from a file
//! (syntax in `texarg.rs`); `tmap:...` a tensor map over an earlier buffer
//! argument (syntax in `tmaparg.rs`).

use std::path::{Path, PathBuf};

use super::{Device, ModuleId};
use crate::error::Error;
use crate::ir::FuncId;

/// One kernel argument.
#[derive(Clone, Debug, PartialEq)]
pub enum ArgSpec {
    Scalar {
        text: String,
        bytes: Vec<u8>,
    },
    In(PathBuf),
    Out {
        bytes: u64,
        path: PathBuf,
    },
    InOut {
        input: PathBuf,
        output: PathBuf,
    },
    Bytes(PathBuf),
    /// A texture or surface object (`tex:...`, `surf:...`).
    Object(Box<super::texarg::ObjectSpec>),
    /// A 128-byte tensor map over an earlier buffer argument (`tmap:...`).
    TensorMap(Box<super::tmaparg::TmapSpec>),
}

fn int_value(v: &str) -> Option<i128> {
    let (neg, body) = match v.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, v),
    };
    let x = if let Some(h) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        i128::from_str_radix(h, 16).ok()?
    } else {
        body.parse::<i128>().ok()?
    };
    Some(if neg { -x } else { x })
}

/// Parses one `--arg` specification.
pub fn parse_arg(spec: &str) -> Result<ArgSpec, String> {
    let (kind, rest) = spec
        .split_once(':')
        .ok_or_else(|| format!("argument `{spec}`: expected TYPE:VALUE, in:PATH, out:BYTES:PATH, inout:IN:OUT, bytes:PATH, tex:..., surf:... or tmap:..."))?;
    let scalar = |bytes: Vec<u8>| {
        Ok(ArgSpec::Scalar {
            text: spec.to_string(),
            bytes,
        })
    };
    let int = |bits: u32, signed: bool| -> Result<ArgSpec, String> {
        let v = int_value(rest)
            .ok_or_else(|| format!("argument `{spec}`: `{rest}` is not an integer"))?;
        let (lo, hi) = if signed {
            (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
        } else {
            (0, (1i128 << bits) - 1)
        };
        // b-types accept both signed and unsigned spellings.
        let lo = if kind.starts_with('b') {
            -(1i128 << (bits - 1))
        } else {
            lo
        };
        if v < lo || v > hi {
            return Err(format!("argument `{spec}`: {v} does not fit in {kind}"));
        }
        scalar((v as u128 as u64).to_le_bytes()[..(bits / 8) as usize].to_vec())
    };
    let float = |s: &str| {
        let v = s
            .parse::<f64>()
            .map_err(|_| format!("argument `{spec}`: `{s}` is not a number"))?;
        // `inf` and `nan` are taken as written; a number too large for
        // the type is an error, not an infinity.
        if v.is_infinite() && !s.to_ascii_lowercase().contains("inf") {
            return Err(format!(
                "argument `{spec}`: `{s}` is out of range for {kind}"
            ));
        }
        Ok(v)
    };
    let narrow = |v: f64, n: f64| {
        if v.is_finite() && n.is_infinite() {
            Err(format!(
                "argument `{spec}`: `{rest}` is out of range for {kind}"
            ))
        } else {
            Ok(())
        }
    };
    match kind {
        "u8" | "b8" => int(8, false),
        "u16" | "b16" => int(16, false),
        "u32" | "b32" => int(32, false),
        "u64" | "b64" => int(64, false),
        "s8" => int(8, true),
        "s16" => int(16, true),
        "s32" => int(32, true),
        "s64" => int(64, true),
        "f16" => {
            let v = float(rest)?;
            let h = half::f16::from_f64(v);
            narrow(v, h.to_f64())?;
            scalar(h.to_le_bytes().to_vec())
        }
        "f32" => {
            let v = float(rest)?;
            narrow(v, v as f32 as f64)?;
            scalar((v as f32).to_le_bytes().to_vec())
        }
        "f64" => scalar(float(rest)?.to_le_bytes().to_vec()),
        "in" => Ok(ArgSpec::In(rest.into())),
        "tex" | "surf" => {
            super::texarg::parse(kind == "surf", rest, spec).map(|o| ArgSpec::Object(Box::new(o)))
        }
        "tmap" => super::tmaparg::parse(rest, spec).map(|t| ArgSpec::TensorMap(Box::new(t))),
        "bytes" => Ok(ArgSpec::Bytes(rest.into())),
        "out" => {
            let (n, path) = rest.split_once(':').ok_or_else(|| format!("argument `{spec}`: expected out:BYTES:PATH"))?;
            let bytes = n.parse().map_err(|_| format!("argument `{spec}`: `{n}` is not a byte count"))?;
            Ok(ArgSpec::Out { bytes, path: path.into() })
        }
        "inout" => {
            let (i, o) = rest.split_once(':').ok_or_else(|| format!("argument `{spec}`: expected inout:PATH_IN:PATH_OUT"))?;
            Ok(ArgSpec::InOut { input: i.into(), output: o.into() })
        }
        other => Err(format!("argument `{spec}`: unknown kind `{other}` (scalar types: u8 u16 u32 u64 s8 s16 s32 s64 f16 f32 f64 b8 b16 b32 b64)")),
    }
}

/// A launch's parameter buffer and the buffers to write back afterwards.
#[derive(Debug, Default)]
pub struct Prepared {
    pub params: Vec<u8>,
    /// (device address, length, output path).
    pub outputs: Vec<(u64, u64, PathBuf)>,
}

/// Reads an argument's file: a regular file no larger than `limit` (the
/// device's memory), refused before reading otherwise.
pub(super) fn read_file(base: &Path, p: &Path, limit: u64) -> Result<Vec<u8>, Error> {
    use std::io::Read;
    let full = base.join(p);
    let err = |e: String| Error::InvalidArgument(format!("cannot read {}: {e}", full.display()));
    let meta = std::fs::metadata(&full).map_err(|e| err(e.to_string()))?;
    if !meta.is_file() {
        return Err(err("not a regular file".into()));
    }
    let too_large = |n: u64| err(format!("{n} bytes is more than the device's {limit}"));
    if meta.len() > limit {
        return Err(too_large(meta.len()));
    }
    let mut data = Vec::with_capacity(meta.len() as usize);
    std::fs::File::open(&full)
        .and_then(|f| f.take(limit + 1).read_to_end(&mut data))
        .map_err(|e| err(e.to_string()))?;
    if data.len() as u64 > limit {
        return Err(too_large(data.len() as u64));
    }
    Ok(data)
}

/// Allocates and fills buffers for `args` and builds the parameter buffer,
/// checking the number and sizes of arguments against the kernel's
/// parameters. Input paths are relative to `inputs`, output paths to `outputs`.
pub fn prepare(
    dev: &mut Device,
    m: ModuleId,
    kernel: FuncId,
    args: &[ArgSpec],
    inputs: &Path,
    outputs: &Path,
) -> Result<Prepared, Error> {
    let base = inputs;
    let limit = dev.options().arena_bytes;
    let (slots, total) = dev.kernel_params(m, kernel);
    let slots = slots.to_vec();
    let name = dev.ir(m).functions[kernel].name.clone();
    if slots.len() != args.len() {
        let list: Vec<String> = slots
            .iter()
            .map(|s| format!("{} ({} bytes)", s.name, s.size))
            .collect();
        return Err(Error::InvalidArgument(format!(
            "kernel `{name}` takes {} parameters, {} arguments given; parameters: {}",
            slots.len(),
            args.len(),
            list.join(", ")
        )));
    }
    let mut out = Prepared {
        params: vec![0; total as usize],
        outputs: Vec::new(),
    };
    // Device addresses of the buffer arguments, for `tmap:`.
    let mut buffers: Vec<Option<u64>> = Vec::with_capacity(args.len());
    for (slot, arg) in slots.iter().zip(args) {
        let value: Vec<u8> = match arg {
            ArgSpec::TensorMap(t) => {
                let addr = buffers.get(t.arg).copied().flatten().ok_or_else(|| {
                    Error::InvalidArgument(format!(
                        "tmap: argument {} is not an earlier in:, out: or inout: buffer",
                        t.arg
                    ))
                })?;
                t.encode(addr)
                    .map_err(|e| Error::InvalidArgument(format!("tmap: {e}")))?
                    .to_vec()
            }
            ArgSpec::Scalar { bytes, .. } => bytes.clone(),
            ArgSpec::Bytes(p) => read_file(base, p, limit)?,
            ArgSpec::In(p) => {
                let data = read_file(base, p, limit)?;
                let addr = dev.alloc(data.len() as u64)?;
                dev.write(addr, &data)?;
                addr.to_le_bytes().to_vec()
            }
            ArgSpec::Out { bytes, path } => {
                let addr = dev.alloc(*bytes)?;
                out.outputs.push((addr, *bytes, outputs.join(path)));
                addr.to_le_bytes().to_vec()
            }
            ArgSpec::Object(o) => {
                let (handle, output) = super::texarg::create(dev, o, base, outputs, limit)?;
                out.outputs.extend(output);
                handle.to_le_bytes().to_vec()
            }
            ArgSpec::InOut { input, output } => {
                let data = read_file(base, input, limit)?;
                let addr = dev.alloc(data.len() as u64)?;
                dev.write(addr, &data)?;
                out.outputs
                    .push((addr, data.len() as u64, outputs.join(output)));
                addr.to_le_bytes().to_vec()
            }
        };
        if value.len() != slot.size as usize {
            let what = match arg {
                ArgSpec::Scalar { text, .. } => format!("`{text}`"),
                ArgSpec::Bytes(p) => format!("bytes:{} ({} bytes)", p.display(), value.len()),
                ArgSpec::Object(_) => "a texture or surface object (8 bytes)".to_string(),
                ArgSpec::TensorMap(_) => "a tensor map (128 bytes)".to_string(),
                _ => "a pointer (8 bytes)".to_string(),
            };
            return Err(Error::InvalidArgument(format!(
                "parameter `{}` of kernel `{name}` is {} bytes; {what} is {} bytes",
                slot.name,
                slot.size,
                value.len()
            )));
        }
        buffers.push(match arg {
            ArgSpec::In(_) | ArgSpec::Out { .. } | ArgSpec::InOut { .. } => {
                Some(u64::from_le_bytes(value[..8].try_into().unwrap()))
            }
            _ => None,
        });
        let at = slot.offset as usize;
        out.params[at..at + value.len()].copy_from_slice(&value);
    }
    Ok(out)
}

/// Writes the output buffers of a finished launch to their files.
pub fn write_outputs(dev: &Device, prepared: &Prepared) -> Result<(), Error> {
    for (addr, len, path) in &prepared.outputs {
        let mut buf = vec![0u8; *len as usize];
        dev.read(*addr, &mut buf)?;
        std::fs::write(path, &buf)
            .map_err(|e| Error::InvalidArgument(format!("cannot write {}: {e}", path.display())))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalar_specs() {
        let bytes = |s: &str| match parse_arg(s).unwrap() {
            ArgSpec::Scalar { bytes, .. } => bytes,
            other => panic!("{other:?}"),
        };
        assert_eq!(bytes("u32:1024"), 1024u32.to_le_bytes());
        assert_eq!(bytes("s64:-3"), (-3i64).to_le_bytes());
        assert_eq!(bytes("u64:0x10"), 16u64.to_le_bytes());
        assert_eq!(bytes("f32:2.5"), 2.5f32.to_le_bytes());
        assert_eq!(bytes("b32:-1"), u32::MAX.to_le_bytes());
        assert!(parse_arg("u8:256").is_err());
        assert!(parse_arg("s8:-129").is_err());
        assert!(parse_arg("q32:1").is_err());
        assert!(parse_arg("u32").is_err());
        assert_eq!(
            parse_arg("out:16:o.bin").unwrap(),
            ArgSpec::Out {
                bytes: 16,
                path: "o.bin".into()
            }
        );
    }
}
