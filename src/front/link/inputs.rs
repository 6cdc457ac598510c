//! What a link input is, by its bytes: PTX text, GPU machine code (an ELF
//! cubin or object, a fatbin), or an `ar` archive of machine code (such as
//! NVIDIA's `libcudadevrt.a`) whose symbol index says what it would have
//! provided; and the `.maxnreg` bound a link's register option puts on
//! every kernel; link errors explained with the archives' symbols. Shared by the driver library's `cuLink*` and module loads
//! and by the nvJitLink interposer, which accept the same inputs.

use super::{LinkError, LinkProblem};

/// The PTX text of a link input or module image: the bytes up to the first
/// NUL, when they are UTF-8 text that declares a PTX `.version` and are not
/// GPU machine code. `None` otherwise.
pub fn ptx_text(data: &[u8]) -> Option<&str> {
    if is_binary(data) {
        return None;
    }
    let end = data.iter().position(|&b| b == 0).unwrap_or(data.len());
    let text = std::str::from_utf8(&data[..end]).ok()?;
    text.contains(".version").then_some(text)
}

/// An ELF cubin or a fatbin (by magic number).
pub fn is_binary(data: &[u8]) -> bool {
    data.starts_with(b"\x7fELF") || data.starts_with(&[0x50, 0xed, 0x55, 0xba])
}

/// Whether an archive's name is NVIDIA's device runtime library.
pub fn is_cudadevrt(name: &str) -> bool {
    name.rsplit('/')
        .next()
        .is_some_and(|b| b.contains("cudadevrt"))
}

/// The symbols an `ar` archive's index (its first member, `/`, as GNU ar
/// and NVIDIA's nvlink write it; `/SYM64/` for 64-bit offsets) lists; empty
/// when it has none. `None` when the data is not an archive.
pub fn archive_symbols(data: &[u8]) -> Option<Vec<String>> {
    let rest = data.strip_prefix(b"!<arch>\n")?;
    Some(archive_index(rest).unwrap_or_default())
}

/// The index of an archive's members (`None` when it has none or it is cut short).
fn archive_index(rest: &[u8]) -> Option<Vec<String>> {
    if rest.len() < 60 || &rest[58..60] != b"`\n" {
        return None;
    }
    let header = &rest[..60];
    let name = std::str::from_utf8(&header[..16]).ok()?.trim_end();
    let size: usize = std::str::from_utf8(&header[48..58])
        .ok()?
        .trim()
        .parse()
        .ok()?;
    let body = rest.get(60..60 + size)?;
    let width = match name {
        "/" => 4,
        "/SYM64/" => 8,
        _ => return None,
    };
    let count = be(body.get(..width)?) as usize;
    let names = body.get(width + count.checked_mul(width)?..)?;
    Some(
        names
            .split(|&b| b == 0)
            .take(count)
            .map(|s| String::from_utf8_lossy(s).into_owned())
            .collect(),
    )
}

/// A big-endian number of 4 or 8 bytes.
fn be(b: &[u8]) -> u64 {
    b.iter().fold(0, |n, &x| (n << 8) | x as u64)
}

/// `text` with a `.maxnreg n` directive on every `.entry` that has none:
/// the `CU_JIT_MAX_REGISTERS` option of a link or a module load, as the
/// PTX directive that says the same to ptxas (and to warpjit's register
/// estimate, `timing::regs`).
pub fn with_maxnreg(text: &str, n: u32) -> String {
    let mut out = String::with_capacity(text.len() + 64);
    let mut rest = text;
    while let Some(at) = rest.find(".entry") {
        // The body starts at the first `{` after the entry's header.
        let Some(brace) = rest[at..].find('{') else {
            break;
        };
        let header = &rest[..at + brace];
        out.push_str(header);
        if !header[at..].contains(".maxnreg") {
            out.push_str(&format!(".maxnreg {n}\n"));
        }
        rest = &rest[at + brace..];
        // Past this `{`.
        out.push('{');
        rest = &rest[1..];
    }
    out.push_str(rest);
    out
}

/// Links named PTX inputs ([`super::link_ptx`]) into one module's text,
/// NUL-terminated (the image a module load takes), with `.maxnreg` on
/// every kernel where a register bound is given ([`with_maxnreg`]).
pub fn link_image(
    inputs: &[(String, String)],
    max_registers: Option<u32>,
) -> Result<Vec<u8>, LinkError> {
    let refs: Vec<(&str, &str)> = inputs
        .iter()
        .map(|(n, t)| (n.as_str(), t.as_str()))
        .collect();
    let text = super::link_ptx(&refs)?;
    let text = match max_registers {
        Some(n) => with_maxnreg(&text, n),
        None => text,
    };
    let mut bytes = text.into_bytes();
    bytes.push(0);
    Ok(bytes)
}

/// A link error for messages, where each undefined symbol that one of
/// `archives` (name, the symbols its index lists) defines is said to be
/// defined only there (for `libcudadevrt.a`: a device-runtime function
/// other than those warpjit provides, `link/devrt.rs`).
pub fn explain(e: &LinkError, archives: &[(String, Vec<String>)]) -> String {
    let LinkError::Symbols(problems) = e else {
        return e.to_string();
    };
    let mut lines: Vec<String> = Vec::new();
    for p in problems {
        let archive = match p {
            LinkProblem::Undefined { name, .. } => {
                archives.iter().find(|(_, syms)| syms.contains(name))
            }
            _ => None,
        };
        lines.push(match (p, archive) {
            (LinkProblem::Undefined { name, at }, Some((lib, _))) if is_cudadevrt(lib) => format!(
                "{at}: error: `{name}` is defined only in {lib}, the CUDA device runtime (GPU machine code): of the device runtime warpjit provides only grid-wide sync (`cudaCGGetIntrinsicHandle`, `cudaCGSynchronize`, `cudaCGSynchronizeGrid`)"
            ),
            (LinkProblem::Undefined { name, at }, Some((lib, _))) => format!(
                "{at}: error: `{name}` is defined only in {lib}, an archive of GPU machine code that warpjit cannot run: link that library's PTX instead"
            ),
            _ => p.to_string(),
        });
    }
    if lines.len() > 1 {
        lines.push(format!("{} link errors", lines.len()));
    }
    lines.join("\n")
}

/// A GNU-format `ar` archive holding only a symbol index of `names` (what
/// [`archive_symbols`] reads): for tests of code that takes link inputs.
#[doc(hidden)]
pub fn archive_with_index(names: &[&str]) -> Vec<u8> {
    let mut index = (names.len() as u32).to_be_bytes().to_vec();
    for _ in names {
        index.extend(0u32.to_be_bytes());
    }
    for n in names {
        index.extend(n.as_bytes());
        index.push(0);
    }
    let mut a = b"!<arch>\n".to_vec();
    a.extend(
        format!(
            "{:<16}{:<12}{:<6}{:<6}{:<8}{:<10}`\n",
            "/",
            0,
            0,
            0,
            0,
            index.len()
        )
        .as_bytes(),
    );
    a.extend(index);
    a
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn archive_index_symbols() {
        let a = archive_with_index(&["cudaCGGetIntrinsicHandle", "cudaCGSynchronizeGrid"]);
        assert_eq!(
            archive_symbols(&a).unwrap(),
            ["cudaCGGetIntrinsicHandle", "cudaCGSynchronizeGrid"]
        );
        assert_eq!(archive_symbols(b"!<arch>\n").unwrap(), Vec::<String>::new());
        assert!(archive_symbols(b"\x7fELF....").is_none());
        // A truncated index is no symbols, not a panic.
        assert!(archive_symbols(&a[..a.len() - 30]).is_some());
    }

    #[test]
    fn every_entry_gets_the_bound_once() {
        let ptx = ".visible .entry a(\n.param .u64 p\n)\n{\nret;\n}\n.entry b()\n.maxnreg 20\n{\nret;\n}\n.func c()\n{\nret;\n}\n";
        let out = with_maxnreg(ptx, 38);
        assert_eq!(out.matches(".maxnreg 38").count(), 1, "{out}");
        assert_eq!(out.matches(".maxnreg 20").count(), 1, "{out}");
        assert!(out.contains(")\n.maxnreg 38\n{"), "{out}");
    }

    #[test]
    fn ptx_text_is_text_that_declares_a_version() {
        assert_eq!(
            ptx_text(b".version 8.8\n.target sm_80\n\0junk"),
            Some(".version 8.8\n.target sm_80\n")
        );
        assert_eq!(ptx_text(b"\x7fELF.version"), None);
        assert_eq!(ptx_text(b"hello"), None);
        assert_eq!(ptx_text(&[0xff, 0xfe, b'.']), None);
    }
}
