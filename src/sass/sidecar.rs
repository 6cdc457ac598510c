//! The JSON form of a [`SassTable`]: the sidecar files committed beside the
//! corpus's PTX (`kernel.compute_80.ptx.sass.json`) and the entries of the
//! cache of ptxas runs. One PTX line per JSON line:
//!
//! ```json
//! {
//!  "format": "warpjit-sass/1",
//!  "ptx_hash": "fnv1a64:9c2e5b0f6a41d7e3",
//!  "arch": "sm_80",
//!  "ptxas": "12.9.86",
//!  "instructions": 85,
//!  "unattributed": 1,
//!  "kernels": {"_Z12matmul_tiledILi16EEvPKfS1_Pfiii": {"regs": 32, "instructions": 85}},
//!  "lines": [
//!   {"line": 94, "int": 2, "mem": {"ld.global.4": 1}},
//!   {"line": 80, "copies": 4, "total": 7, "mem": {"ld.global.4": 4}}
//!  ]
//! }
//! ```
//!
//! A line's class counts (`int`, `fp32`, `fp64`, `fp16`, `sfu`, `ls`,
//! `control`, `tensor`: non-memory instructions) and `mem` (memory
//! instructions as `KIND.SPACE.BYTES`, KIND one of `ld st atom cpasync`,
//! SPACE one of `global shared local generic const`) are those of
//! `copies` copies (1 when absent); `total` counts every copy (absent when
//! it equals the counts' sum).

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};

use super::SassError;
use crate::timing::arch::UnitClass;
use crate::timing::costs::{KernelSass, LineSass, MemKind, SassMem, SassSpace, SassTable};

/// The `format` this version writes and reads.
pub const FORMAT: &str = "warpjit-sass/1";

/// The table as JSON text (without its `origin`).
pub fn to_json(t: &SassTable) -> String {
    let kernels: Map<String, Value> = t
        .kernels
        .iter()
        .map(|(k, v)| {
            let mut o = Map::new();
            if let Some(r) = v.regs {
                o.insert("regs".into(), r.into());
            }
            o.insert("instructions".into(), v.instructions.into());
            (k.clone(), Value::Object(o))
        })
        .collect();
    let head = [
        ("format", json!(FORMAT)),
        ("ptx_hash", json!(t.ptx_hash)),
        ("arch", json!(t.arch)),
        ("ptxas", json!(t.ptxas)),
        ("instructions", json!(t.instructions)),
        ("unattributed", json!(t.unattributed)),
        ("kernels", Value::Object(kernels)),
    ];
    let mut s = String::from("{\n");
    for (k, v) in head {
        s.push_str(&format!(" {}: {},\n", json!(k), v));
    }
    s.push_str(" \"lines\": [");
    let lines: Vec<String> = t
        .lines
        .iter()
        .map(|(&line, l)| format!("\n  {}", line_json(line, l)))
        .collect();
    s.push_str(&lines.join(","));
    s.push_str("\n ]\n}\n");
    s
}

/// One line's entry, keys in a fixed order.
fn line_json(line: u32, l: &LineSass) -> String {
    let mut fields = vec![format!("\"line\":{line}")];
    if l.copies != 1 {
        fields.push(format!("\"copies\":{}", l.copies));
    }
    let sum: u32 = l.classes.iter().sum::<u32>() + l.mem.iter().map(|m| m.1).sum::<u32>();
    if l.total != sum {
        fields.push(format!("\"total\":{}", l.total));
    }
    for c in UnitClass::ALL {
        let n = l.classes[c as usize];
        if n > 0 {
            fields.push(format!("\"{}\":{n}", c.name()));
        }
    }
    if !l.mem.is_empty() {
        let mem: Vec<String> = l
            .mem
            .iter()
            .map(|(m, n)| format!("\"{}\":{n}", mem_name(m)))
            .collect();
        fields.push(format!("\"mem\":{{{}}}", mem.join(",")));
    }
    format!("{{{}}}", fields.join(","))
}

fn mem_name(m: &SassMem) -> String {
    let kind = match m.kind {
        MemKind::Load => "ld",
        MemKind::Store => "st",
        MemKind::Atomic => "atom",
        MemKind::AsyncCopy => "cpasync",
    };
    let space = match m.space {
        SassSpace::Global => "global",
        SassSpace::Shared => "shared",
        SassSpace::Local => "local",
        SassSpace::Generic => "generic",
        SassSpace::Const => "const",
    };
    format!("{kind}.{space}.{}", m.bytes)
}

fn parse_mem(s: &str) -> Option<SassMem> {
    let mut parts = s.split('.');
    let kind = match parts.next()? {
        "ld" => MemKind::Load,
        "st" => MemKind::Store,
        "atom" => MemKind::Atomic,
        "cpasync" => MemKind::AsyncCopy,
        _ => return None,
    };
    let space = match parts.next()? {
        "global" => SassSpace::Global,
        "shared" => SassSpace::Shared,
        "local" => SassSpace::Local,
        "generic" => SassSpace::Generic,
        "const" => SassSpace::Const,
        _ => return None,
    };
    let bytes = parts.next()?.parse().ok()?;
    parts
        .next()
        .is_none()
        .then_some(SassMem { kind, space, bytes })
}

/// Reads a table written by [`to_json`]; `name` names the file in errors.
pub fn from_json(name: &str, text: &str) -> Result<SassTable, SassError> {
    let bad = |why: String| SassError::BadSidecar {
        file: name.to_string(),
        why,
    };
    let v: Value = serde_json::from_str(text).map_err(|e| bad(e.to_string()))?;
    if v["format"] != FORMAT {
        return Err(bad(format!(
            "`format` is {}, not \"{FORMAT}\"",
            v["format"]
        )));
    }
    let string = |k: &str| {
        v[k].as_str()
            .map(str::to_string)
            .ok_or_else(|| bad(format!("`{k}` is not a string")))
    };
    let number = |v: &Value, k: &str| -> Result<u32, SassError> {
        v[k].as_u64()
            .and_then(|n| u32::try_from(n).ok())
            .ok_or_else(|| bad(format!("`{k}` is not a number")))
    };
    let mut t = SassTable {
        arch: string("arch")?,
        ptxas: string("ptxas")?,
        origin: String::new(),
        ptx_hash: string("ptx_hash")?,
        instructions: number(&v, "instructions")?,
        unattributed: number(&v, "unattributed")?,
        kernels: BTreeMap::new(),
        lines: BTreeMap::new(),
    };
    let kernels = v["kernels"]
        .as_object()
        .ok_or_else(|| bad("`kernels` is not an object".into()))?;
    for (k, o) in kernels {
        let regs = match &o["regs"] {
            Value::Null => None,
            _ => Some(number(o, "regs")?),
        };
        let instructions = number(o, "instructions")?;
        t.kernels
            .insert(k.clone(), KernelSass { regs, instructions });
    }
    let lines = v["lines"]
        .as_array()
        .ok_or_else(|| bad("`lines` is not an array".into()))?;
    for l in lines {
        let line = number(l, "line")?;
        let mut entry = LineSass {
            copies: if l["copies"].is_null() {
                1
            } else {
                number(l, "copies")?
            },
            ..LineSass::default()
        };
        for c in UnitClass::ALL {
            if !l[c.name()].is_null() {
                entry.classes[c as usize] = number(l, c.name())?;
            }
        }
        if let Some(mem) = l["mem"].as_object() {
            for (k, n) in mem {
                let m = parse_mem(k)
                    .ok_or_else(|| bad(format!("line {line}: bad memory kind `{k}`")))?;
                let n = n
                    .as_u64()
                    .and_then(|n| u32::try_from(n).ok())
                    .ok_or_else(|| bad(format!("line {line}: bad count for `{k}`")))?;
                entry.mem.push((m, n));
            }
        }
        entry.mem.sort();
        let sum: u32 =
            entry.classes.iter().sum::<u32>() + entry.mem.iter().map(|m| m.1).sum::<u32>();
        entry.total = if l["total"].is_null() {
            sum
        } else {
            number(l, "total")?
        };
        if entry.copies == 0 {
            return Err(bad(format!("line {line}: `copies` is 0")));
        }
        t.lines.insert(line, entry);
    }
    Ok(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips() {
        let mut t = SassTable {
            arch: "sm_80".into(),
            ptxas: "12.9.86".into(),
            origin: String::new(),
            ptx_hash: "fnv1a64:0123456789abcdef".into(),
            instructions: 12,
            unattributed: 1,
            ..SassTable::default()
        };
        t.kernels.insert(
            "k".into(),
            KernelSass {
                regs: Some(32),
                instructions: 12,
            },
        );
        let mut l = LineSass {
            copies: 4,
            total: 7,
            ..LineSass::default()
        };
        l.classes[UnitClass::Int as usize] = 2;
        l.mem.push((
            SassMem {
                kind: MemKind::Load,
                space: SassSpace::Global,
                bytes: 16,
            },
            4,
        ));
        t.lines.insert(80, l);
        let mut plain = LineSass {
            copies: 1,
            total: 1,
            ..LineSass::default()
        };
        plain.classes[UnitClass::Control as usize] = 1;
        t.lines.insert(81, plain);
        let text = to_json(&t);
        assert!(
            text.contains(
                "\n  {\"line\":80,\"copies\":4,\"total\":7,\"int\":2,\"mem\":{\"ld.global.16\":4}}"
            ),
            "{text}"
        );
        assert_eq!(from_json("t.json", &text).unwrap(), t);
        assert!(from_json("t.json", "{\"format\": \"other\"}").is_err());
    }
}
