//! Finding a kernel by the name a person types (`warpjit run --kernel`):
//! its PTX (mangled) name, its demangled C++ name with or without the
//! parameter list (`MatrixMulCUDA<32>`, `MatrixMulCUDA<32>(float*, ...)`),
//! or a base name that only one kernel has (`MatrixMulCUDA`, or a
//! namespace-qualified `ns::kernel`). The driver library looks kernels up by
//! their exact names, as CUDA does ([`super::Device::kernel`]).

use cpp_demangle::{DemangleOptions, Symbol};

use super::ModuleId;
use crate::ir::FuncId;
use crate::Error;

/// The C++ names of a mangled kernel name: (with parameters, without),
/// `None` for a name that is not an Itanium C++ mangling (`extern "C"`).
pub fn demangle(mangled: &str) -> Option<(String, String)> {
    let sym = Symbol::new(mangled).ok()?;
    let full = sym.demangle().ok()?;
    let bare = sym
        .demangle_with_options(&DemangleOptions::new().no_params().no_return_type())
        .ok()?;
    Some((full, bare))
}

/// `ns::name<args>` without its template arguments: `ns::name`.
fn without_template_args(name: &str) -> &str {
    if !name.ends_with('>') {
        return name;
    }
    let mut depth = 0;
    for (i, c) in name.char_indices().rev() {
        match c {
            '>' => depth += 1,
            '<' => {
                depth -= 1;
                if depth == 0 {
                    return &name[..i];
                }
            }
            _ => {}
        }
    }
    name
}

/// What `want` names among `kernels` (their PTX names): the index of the
/// one kernel it names, else the candidates it matches (none, or several).
pub fn find(kernels: &[&str], want: &str) -> Result<usize, Vec<usize>> {
    if let Some(i) = kernels.iter().position(|k| *k == want) {
        return Ok(i);
    }
    let names: Vec<Option<(String, String)>> = kernels.iter().map(|k| demangle(k)).collect();
    let demangled: Vec<usize> = (0..kernels.len())
        .filter(|&i| {
            names[i]
                .as_ref()
                .is_some_and(|(full, bare)| full == want || bare == want)
        })
        .collect();
    if demangled.len() == 1 {
        return Ok(demangled[0]);
    }
    if !demangled.is_empty() {
        return Err(demangled);
    }
    let based: Vec<usize> = (0..kernels.len())
        .filter(|&i| {
            let Some((_, bare)) = &names[i] else {
                return false;
            };
            let base = without_template_args(bare);
            base == want || base.rsplit("::").next() == Some(want)
        })
        .collect();
    match based.as_slice() {
        [one] => Ok(*one),
        _ => Err(based),
    }
}

/// How a kernel is shown in a list: its PTX name, and its C++ name where
/// it has one.
pub fn display(kernel: &str) -> String {
    match demangle(kernel) {
        Some((_, bare)) => format!("{kernel} ({bare})"),
        None => kernel.to_string(),
    }
}

impl super::Device {
    /// Finds a kernel by its exact name, as CUDA's `cuModuleGetFunction`
    /// does (or the only one, when `name` is `None`).
    pub fn kernel(&self, m: ModuleId, name: Option<&str>) -> Result<FuncId, Error> {
        let lm = self.module(m);
        let kernels: Vec<(FuncId, &crate::ir::Function)> = lm.ir.kernels().collect();
        let list = || {
            kernels
                .iter()
                .map(|(_, f)| f.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        };
        match name {
            Some(n) => kernels
                .iter()
                .find(|(_, f)| f.name == n)
                .map(|(id, _)| *id)
                .ok_or_else(|| {
                    Error::InvalidArgument(format!(
                        "no kernel `{n}` in {}; kernels: {}",
                        lm.source.name(),
                        list()
                    ))
                }),
            None if kernels.len() == 1 => Ok(kernels[0].0),
            None => Err(Error::InvalidArgument(format!(
                "{} has {} kernels ({}); choose one with --kernel",
                lm.source.name(),
                kernels.len(),
                list()
            ))),
        }
    }

    /// Finds a kernel by a name a person types ([`find`]'s rules), or the
    /// only one when `name` is `None`; an unknown or ambiguous name is an
    /// error listing the candidates.
    pub fn find_kernel(&self, m: ModuleId, name: Option<&str>) -> Result<FuncId, Error> {
        let Some(want) = name else {
            return self.kernel(m, None);
        };
        let ir = self.ir(m);
        let kernels: Vec<(FuncId, &str)> =
            ir.kernels().map(|(id, f)| (id, f.name.as_str())).collect();
        let names: Vec<&str> = kernels.iter().map(|k| k.1).collect();
        let list = |which: &[usize]| {
            which
                .iter()
                .map(|&i| display(names[i]))
                .collect::<Vec<_>>()
                .join(", ")
        };
        match find(&names, want) {
            Ok(i) => Ok(kernels[i].0),
            Err(several) if !several.is_empty() => Err(Error::InvalidArgument(format!(
                "`{want}` names {} kernels in {}: {}; give one of their names",
                several.len(),
                self.module(m).source.name(),
                list(&several)
            ))),
            Err(_) => Err(Error::InvalidArgument(format!(
                "no kernel `{want}` in {}; kernels: {}",
                self.module(m).source.name(),
                list(&(0..names.len()).collect::<Vec<_>>())
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Names as nvcc/NVRTC mangle them (PTX of the CUDA samples' matrixMul
    // and of template kernels written here).
    const MATMUL32: &str = "_Z13MatrixMulCUDAILi32EEvPfS0_S0_ii";
    const MATMUL16: &str = "_Z13MatrixMulCUDAILi16EEvPfS0_S0_ii";
    const SCALE: &str = "_ZN6blocks5scaleIfEEvPT_S1_i";

    #[test]
    fn demangled_names_and_base_names_find_their_kernel() {
        let kernels = [MATMUL32, MATMUL16, SCALE, "saxpy"];
        assert_eq!(
            demangle(MATMUL32).unwrap(),
            (
                "void MatrixMulCUDA<32>(float*, float*, float*, int, int)".to_string(),
                "MatrixMulCUDA<32>".to_string()
            )
        );
        assert_eq!(find(&kernels, MATMUL16), Ok(1));
        assert_eq!(find(&kernels, "MatrixMulCUDA<32>"), Ok(0));
        assert_eq!(find(&kernels, "blocks::scale<float>"), Ok(2));
        assert_eq!(find(&kernels, "scale"), Ok(2));
        assert_eq!(find(&kernels, "blocks::scale"), Ok(2));
        assert_eq!(find(&kernels, "saxpy"), Ok(3));
        // Two instantiations share the base name: both are candidates.
        assert_eq!(find(&kernels, "MatrixMulCUDA"), Err(vec![0, 1]));
        assert_eq!(find(&kernels, "nothing"), Err(vec![]));
        assert_eq!(display("saxpy"), "saxpy");
        assert_eq!(display(MATMUL16), format!("{MATMUL16} (MatrixMulCUDA<16>)"));
    }
}
