//! Keeping what PTX inputs use of the LTO-IR inputs. NVIDIA's nvJitLink
//! turns LTO-IR into PTX only for LTO-IR alone (`-lto -ptx` refuses PTX
//! inputs), and its whole-program optimization then drops every function
//! and variable no kernel of the LTO-IR reaches, and makes the others
//! internal: a PTX input calling into the LTO-IR (a user's `.ptx` file
//! calling numba's `NRT_Allocate`) would find nothing to link to. So, when
//! PTX inputs declare `.extern` names, a kernel that takes each name's
//! address (`__warpjit_keep`, CUDA C++ compiled to LTO-IR by NVIDIA's
//! NVRTC) joins the LTO-IR; in the PTX that comes back, the kernel is
//! removed and the kept definitions are made `.visible` again.

use std::ffi::{c_char, c_int, c_void, CString};

use crate::nvidia;

/// The stub kernel's name.
const KEEP: &str = "__warpjit_keep";

/// The names PTX inputs declare `.extern`: functions, and variables with
/// their size in bytes (`None` for an array of unstated size).
#[derive(Debug, Default, PartialEq)]
pub struct Needed {
    pub funcs: Vec<String>,
    pub vars: Vec<(String, Option<u64>)>,
}

/// The identifier at the start of `s` (PTX identifiers: letters, digits,
/// `_ $ %`).
fn ident(s: &str) -> &str {
    let end = s
        .find(|c: char| !(c.is_ascii_alphanumeric() || "_$%".contains(c)))
        .unwrap_or(s.len());
    &s[..end]
}

/// The name a `.func` header declares: after an optional `(return)` group.
fn func_name(rest: &str) -> &str {
    let rest = rest.trim_start();
    let rest = match rest.strip_prefix('(') {
        Some(r) => r.find(')').map_or("", |i| &r[i + 1..]),
        None => rest,
    };
    ident(rest.trim_start())
}

/// The name a variable declaration declares: its last identifier before
/// `[`, `=` or `;`.
fn var_name(rest: &str) -> &str {
    let decl = rest.split(['[', '=', ';']).next().unwrap_or("");
    decl.split_whitespace().last().map_or("", ident)
}

/// The bytes a variable declaration takes: its type's width times its
/// array extents; `None` where an extent is unstated (`name[]`).
fn var_bytes(decl: &str) -> Option<u64> {
    let width = decl.split_whitespace().find_map(|t| {
        let t = t.strip_prefix('.')?;
        let bits: u64 = t.get(1..)?.parse().ok()?;
        matches!(&t[..1], "b" | "u" | "s" | "f").then_some(bits / 8)
    })?;
    let mut bytes = width;
    let mut rest = decl;
    while let Some(open) = rest.find('[') {
        let close = rest[open..].find(']')? + open;
        bytes *= rest[open + 1..close].trim().parse::<u64>().ok()?;
        rest = &rest[close + 1..];
    }
    Some(bytes)
}

/// The `.extern` names of the PTX inputs.
pub fn needed(ptx: &[(String, String)]) -> Needed {
    let mut n = Needed::default();
    for (_, text) in ptx {
        for line in text.lines() {
            let Some(rest) = line.trim_start().strip_prefix(".extern") else {
                continue;
            };
            let rest = rest.trim_start();
            if let Some(f) = rest.strip_prefix(".func") {
                let name = func_name(f).to_string();
                if !name.is_empty() && !n.funcs.contains(&name) {
                    n.funcs.push(name);
                }
            } else if rest.starts_with(".global") || rest.starts_with(".const") {
                let name = var_name(rest).to_string();
                if !name.is_empty() && !n.vars.iter().any(|(v, _)| *v == name) {
                    let decl = rest.split(['=', ';']).next().unwrap_or("");
                    n.vars.push((name, var_bytes(decl)));
                }
            }
        }
    }
    n
}

/// CUDA C++ for a kernel that takes the address of each needed name (C
/// linkage, so that the symbol is the name itself, mangled or not; each
/// variable a byte array of its size, which LTO checks against the
/// definition).
pub fn stub_source(n: &Needed) -> String {
    let mut s = String::new();
    for f in &n.funcs {
        s.push_str(&format!("extern \"C\" __device__ void {f}();\n"));
    }
    for (v, bytes) in &n.vars {
        let extent = bytes.map(|b| b.to_string()).unwrap_or_default();
        s.push_str(&format!(
            "extern \"C\" __device__ unsigned char {v}[{extent}];\n"
        ));
    }
    s.push_str(&format!(
        "extern \"C\" __global__ void {KEEP}(void **out) {{\n"
    ));
    let names = n.funcs.iter().chain(n.vars.iter().map(|(v, _)| v));
    for (i, name) in names.enumerate() {
        s.push_str(&format!("  out[{i}] = (void *)&{name};\n"));
    }
    s.push_str("}\n");
    s
}

type CreateFn = unsafe extern "C" fn(
    *mut *mut c_void,
    *const c_char,
    *const c_char,
    c_int,
    *const *const c_char,
    *const *const c_char,
) -> c_int;
type CompileFn = unsafe extern "C" fn(*mut c_void, c_int, *const *const c_char) -> c_int;
type SizeFn = unsafe extern "C" fn(*mut c_void, *mut usize) -> c_int;
type GetFn = unsafe extern "C" fn(*mut c_void, *mut c_char) -> c_int;
type DestroyFn = unsafe extern "C" fn(*mut *mut c_void) -> c_int;

/// The stub's LTO-IR for `arch` (`sm_80` → `compute_80`), by NVIDIA's NVRTC.
pub fn stub_ltoir(source: &str, arch: &str) -> Result<Vec<u8>, String> {
    let lib = nvidia::nvrtc().ok_or(
        "PTX inputs call into LTO-IR, and keeping those functions needs NVIDIA's NVRTC, which was not found (install nvidia-cuda-nvrtc-cu12, or name its libnvrtc.so.12 in WARPJIT_NVRTC)",
    )?;
    let f = |name: &std::ffi::CStr| format!("NVRTC has no {name:?}");
    // SAFETY: nvrtc.h's signatures for these names.
    let (create, compile, size, get, destroy) = unsafe {
        (
            lib.function::<CreateFn>(c"nvrtcCreateProgram")
                .ok_or_else(|| f(c"nvrtcCreateProgram"))?,
            lib.function::<CompileFn>(c"nvrtcCompileProgram")
                .ok_or_else(|| f(c"nvrtcCompileProgram"))?,
            lib.function::<SizeFn>(c"nvrtcGetLTOIRSize")
                .ok_or_else(|| f(c"nvrtcGetLTOIRSize"))?,
            lib.function::<GetFn>(c"nvrtcGetLTOIR")
                .ok_or_else(|| f(c"nvrtcGetLTOIR"))?,
            lib.function::<DestroyFn>(c"nvrtcDestroyProgram")
                .ok_or_else(|| f(c"nvrtcDestroyProgram"))?,
        )
    };
    let virt = arch.replace("sm_", "compute_");
    let src = CString::new(source).map_err(|e| e.to_string())?;
    let options: Vec<CString> = [
        format!("--gpu-architecture={virt}"),
        "-dlto".into(),
        "-rdc=true".into(),
    ]
    .into_iter()
    .filter_map(|o| CString::new(o).ok())
    .collect();
    let ptrs: Vec<*const c_char> = options.iter().map(|o| o.as_ptr()).collect();
    let mut prog: *mut c_void = std::ptr::null_mut();
    // SAFETY: NVRTC's API as documented; the program is destroyed below.
    unsafe {
        let null = std::ptr::null();
        if create(
            &mut prog,
            src.as_ptr(),
            c"warpjit_keep.cu".as_ptr(),
            0,
            null,
            null,
        ) != 0
        {
            return Err("NVRTC could not create the keep-alive program".into());
        }
        let rc = compile(prog, ptrs.len() as c_int, ptrs.as_ptr());
        let mut n = 0usize;
        let result = if rc == 0 && size(prog, &mut n) == 0 && n > 0 {
            let mut buf = vec![0u8; n];
            get(prog, buf.as_mut_ptr() as *mut c_char);
            Ok(buf)
        } else {
            Err(format!(
                "NVRTC could not compile the keep-alive kernel (error {rc}):\n{source}"
            ))
        };
        destroy(&mut prog);
        result
    }
}

/// The LTO-IR's PTX with the stub kernel removed and the needed names'
/// definitions `.visible`.
pub fn finish(ptx: &str, n: &Needed) -> String {
    let mut out = String::with_capacity(ptx.len());
    let mut lines = ptx.lines().peekable();
    while let Some(line) = lines.next() {
        let t = line.trim_start();
        // The stub kernel: from its header to the `}` closing its body.
        if t.contains(".entry") && t.contains(KEEP) {
            let mut depth = 0i32;
            let mut opened = false;
            let mut l = line;
            loop {
                depth += l.matches('{').count() as i32 - l.matches('}').count() as i32;
                opened |= l.contains('{');
                if opened && depth <= 0 {
                    break;
                }
                match lines.next() {
                    Some(next) => l = next,
                    None => break,
                }
            }
            continue;
        }
        let internal_def =
            !t.starts_with(".extern") && !t.starts_with(".visible") && !t.starts_with(".weak");
        let needed = internal_def
            && ((t.starts_with(".func") && n.funcs.iter().any(|f| f == func_name(&t[5..])))
                || (t.starts_with(".global") && n.vars.iter().any(|(v, _)| v == var_name(t))));
        if needed {
            let indent = &line[..line.len() - t.len()];
            out.push_str(indent);
            out.push_str(".visible ");
            out.push_str(t);
        } else {
            out.push_str(line);
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extern_names_and_the_stub() {
        let ptx = ".extern .func  (.param .b64 func_retval0) NRT_Allocate\n(\n\t.param .b64 NRT_Allocate_param_0\n)\n;\n\
                   .extern .func _Z4helpv\n()\n;\n.extern .global .align 8 .b8 table[16];\n.extern .const .u32 n;\n";
        let n = needed(&[("a.ptx".into(), ptx.into())]);
        assert_eq!(n.funcs, ["NRT_Allocate", "_Z4helpv"]);
        assert_eq!(n.vars, [("table".into(), Some(16)), ("n".into(), Some(4))]);
        let src = stub_source(&n);
        assert!(
            src.contains("extern \"C\" __device__ void NRT_Allocate();"),
            "{src}"
        );
        assert!(src.contains("out[3] = (void *)&n;"), "{src}");
        assert!(src.contains("unsigned char table[16];"), "{src}");
        assert_eq!(var_bytes(".global .align 4 .f32 m[2][3]"), Some(24));
        assert_eq!(var_bytes(".global .align 1 .b8 dyn[]"), None);
    }

    #[test]
    fn finish_removes_the_stub_and_makes_kept_definitions_visible() {
        let lto = ".version 8.8\n.target sm_80\n.address_size 64\n\
                   .extern .func other\n;\n\
                   .global .align 8 .b8 table[16];\n\
                   .func  (.param .b64 func_retval0) NRT_Allocate(\n\t.param .b64 p\n)\n{\n\tret;\n}\n\
                   .func keep_me_internal()\n{\n\tret;\n}\n\
                   .visible .entry __warpjit_keep(\n\t.param .u64 o\n)\n{\n\t{ // nested\n\t}\n\tret;\n}\n\
                   .visible .entry k()\n{\n\tret;\n}\n";
        let n = Needed {
            funcs: vec!["NRT_Allocate".into(), "other".into()],
            vars: vec![("table".into(), Some(16))],
        };
        let out = finish(lto, &n);
        assert!(!out.contains("__warpjit_keep"), "{out}");
        assert!(out.contains(".visible .entry k()"), "{out}");
        assert!(
            out.contains(".visible .func  (.param .b64 func_retval0) NRT_Allocate("),
            "{out}"
        );
        assert!(
            out.contains(".visible .global .align 8 .b8 table[16];"),
            "{out}"
        );
        assert!(out.contains("\n.func keep_me_internal()"), "{out}");
        assert!(out.contains(".extern .func other"), "{out}");
    }
}
