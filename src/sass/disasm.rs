//! Reading `nvdisasm -c -g` output: every SASS instruction with its code
//! section (one per kernel or non-inlined function), its basic block, the
//! PTX line it came from (the `//## File "...", line N` line before it,
//! which `-g` prints whenever the line changes), and what it is for the
//! timing model: a unit class, or a memory access of a kind, space and
//! width. Padding (`NOP`s, the branch-to-self after the last `EXIT`) is
//! left out. ptxas's own subroutines (`$__internal_..._slowpath`, after a
//! `.type NAME,@function`) get no line: they carry none, and run only on
//! the rare inputs their callers send there.

use crate::timing::arch::UnitClass;
use crate::timing::costs::{MemKind, SassMem, SassSpace};

/// What one SASS instruction is, for the timing model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SassOp {
    Class(UnitClass),
    Mem(SassMem),
}

/// One SASS instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SassInstr {
    /// Index into [`Disassembly::sections`].
    pub section: u32,
    /// Basic block, numbered across the whole output.
    pub block: u32,
    /// 1-based PTX line; 0 when none was given (a prologue).
    pub line: u32,
    pub op: SassOp,
    /// The opcode with its modifiers (`LDG.E.128.CONSTANT`).
    pub opcode: String,
}

/// A disassembled cubin.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Disassembly {
    /// Code sections' function names (`.text.NAME`).
    pub sections: Vec<String>,
    pub instrs: Vec<SassInstr>,
}

/// Parses `nvdisasm -c -g` output.
pub fn parse(text: &str) -> Disassembly {
    let mut d = Disassembly::default();
    let mut section: Option<u32> = None;
    let mut line = 0u32;
    let mut block = 0u32;
    let mut block_used = false;
    // The last label, while no instruction followed it.
    let mut fresh_label: Option<String> = None;
    for raw in text.lines() {
        let t = raw.trim();
        if let Some(rest) = t
            .strip_prefix(".section")
            .filter(|r| r.starts_with(char::is_whitespace))
        {
            let name = rest.trim_start();
            if let Some(name) = name.strip_prefix(".text.") {
                let name = name.split([',', ' ', '\t']).next().unwrap_or("");
                d.sections.push(name.to_string());
                section = Some(d.sections.len() as u32 - 1);
                line = 0;
                if block_used {
                    block += 1;
                    block_used = false;
                }
            } else {
                section = None;
            }
            continue;
        }
        if let Some(i) = t.find("//##") {
            if let Some(n) = line_number(&t[i..]) {
                line = n;
            }
            continue;
        }
        let Some(sec) = section else { continue };
        if t.starts_with(".type") && t.ends_with("@function") {
            // A subroutine of ptxas's (a division's slow path) follows: no
            // PTX line of its own, whatever line came last.
            line = 0;
            continue;
        }
        if let Some(label) = t.strip_suffix(':') {
            if !label.contains(char::is_whitespace) && !label.starts_with("/*") {
                if block_used {
                    block += 1;
                    block_used = false;
                }
                fresh_label = Some(label.to_string());
            }
            continue;
        }
        let Some(body) = instruction_text(t) else {
            continue;
        };
        let mut words = body.split_whitespace();
        let mut opcode = words.next().unwrap_or("");
        if opcode.starts_with('@') {
            opcode = words.next().unwrap_or("");
        }
        let opcode = opcode.trim_end_matches(';');
        if opcode.is_empty() || opcode == "NOP" {
            continue;
        }
        let base = opcode.split('.').next().unwrap_or(opcode);
        if base == "BRA" {
            if let Some(label) = &fresh_label {
                if body.contains(&format!("({label})")) {
                    // The branch-to-self that ends a code section.
                    fresh_label = None;
                    continue;
                }
            }
        }
        fresh_label = None;
        d.instrs.push(SassInstr {
            section: sec,
            block,
            line,
            op: classify(opcode),
            opcode: opcode.to_string(),
        });
        block_used = true;
        if matches!(
            base,
            "BRA" | "BRX" | "JMP" | "JMX" | "EXIT" | "RET" | "CALL"
        ) {
            block += 1;
            block_used = false;
        }
    }
    d
}

/// `N` of `//## File "...", line N[ ...]`.
fn line_number(comment: &str) -> Option<u32> {
    let i = comment.find(", line ")?;
    let digits: String = comment[i + 7..]
        .chars()
        .take_while(|c| c.is_ascii_digit())
        .collect();
    digits.parse().ok()
}

/// The instruction of `/*0040*/  [{] [@P0] OPCODE operands ;`, if `t` is one.
fn instruction_text(t: &str) -> Option<&str> {
    let rest = t.strip_prefix("/*")?;
    let end = rest.find("*/")?;
    if !rest[..end].chars().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    let body = rest[end + 2..].trim_start();
    let body = body.strip_prefix('{').unwrap_or(body).trim_start();
    (!body.is_empty()).then_some(body)
}

/// The unit class or memory access of a SASS opcode (sm_80 to sm_90; an
/// unknown opcode counts as an integer instruction).
pub fn classify(opcode: &str) -> SassOp {
    let mut parts = opcode.split('.');
    let base = parts.next().unwrap_or("");
    let mods: Vec<&str> = parts.collect();
    let mem = |kind, space| {
        SassOp::Mem(SassMem {
            kind,
            space,
            bytes: width(base, &mods),
        })
    };
    use MemKind::*;
    use SassSpace::*;
    match base {
        "LDG" => mem(Load, Global),
        "LDS" | "LDSM" => mem(Load, Shared),
        "LDL" => mem(Load, Local),
        "LD" => mem(Load, Generic),
        "LDC" => mem(Load, Const),
        "STG" => mem(Store, Global),
        "STS" | "STSM" => mem(Store, Shared),
        "STL" => mem(Store, Local),
        "ST" => mem(Store, Generic),
        "ATOMG" | "RED" | "REDG" => mem(Atomic, Global),
        "ATOMS" => mem(Atomic, Shared),
        "ATOM" => mem(Atomic, Generic),
        "LDGSTS" | "UBLKCP" | "UTMALDG" => mem(AsyncCopy, Global),
        "TEX" | "TLD" | "TLD4" | "TXD" | "TMML" | "SULD" => mem(Load, Global),
        "SUST" => mem(Store, Global),
        "SURED" | "SUATOM" => mem(Atomic, Global),
        _ => SassOp::Class(unit_class(base)),
    }
}

fn unit_class(base: &str) -> UnitClass {
    match base {
        "FADD" | "FADD32I" | "FMUL" | "FMUL32I" | "FFMA" | "FFMA32I" | "FMNMX" | "FSETP"
        | "FSET" | "FSEL" | "FCHK" | "FSWZADD" | "FCMP" | "I2FP" => UnitClass::Fp32,
        "DADD" | "DMUL" | "DFMA" | "DSETP" | "DSET" | "DMNMX" => UnitClass::Fp64,
        "HADD2" | "HADD2_32I" | "HMUL2" | "HMUL2_32I" | "HFMA2" | "HFMA2_32I" | "HSETP2"
        | "HSET2" | "HMNMX2" | "F2FP" => UnitClass::Fp16,
        "MUFU" | "F2F" | "F2I" | "I2F" | "FRND" | "I2I" => UnitClass::Sfu,
        "HMMA" | "IMMA" | "DMMA" | "BMMA" | "HGMMA" | "IGMMA" | "QGMMA" | "BGMMA" => {
            UnitClass::Tensor
        }
        "BRA" | "BRX" | "BRXU" | "JMP" | "JMX" | "CALL" | "RET" | "EXIT" | "BSSY" | "BSYNC"
        | "BREAK" | "BPT" | "KILL" | "WARPSYNC" | "BAR" | "B2R" | "R2B" | "BMOV" | "YIELD"
        | "NANOSLEEP" | "DEPBAR" | "LDGDEPBAR" | "ARRIVES" | "SHFL" | "VOTE" | "VOTEU"
        | "MATCH" | "REDUX" | "ELECT" | "MEMBAR" | "ERRBAR" | "CGAERRBAR" | "FENCE" | "CCTL"
        | "CCTLL" | "SYNCS" | "WARPGROUP" | "ACQBULK" | "RPCMOV" | "PMTRIG" => UnitClass::Control,
        _ => UnitClass::Int,
    }
}

/// Bytes per thread of a memory opcode's access.
fn width(base: &str, mods: &[&str]) -> u8 {
    if base == "LDSM" || base == "STSM" {
        // `.16.M88.4`: four 8x8 b16 matrices, 4 bytes per thread each.
        let n = mods
            .iter()
            .rev()
            .find_map(|m| m.parse::<u8>().ok().filter(|n| matches!(n, 1 | 2 | 4)))
            .unwrap_or(1);
        return 4 * n;
    }
    for m in mods {
        match *m {
            "128" => return 16,
            "64" | "F64" | "S64" | "U64" => return 8,
            "U8" | "S8" => return 1,
            "U16" | "S16" | "F16" => return 2,
            _ => {}
        }
    }
    4
}

#[cfg(test)]
mod tests {
    use super::*;

    const OUT: &str = r#"	.headerflags	@"EF_CUDA_SM80"
//--------------------- .text.k --------------------------
	.section	.text.k,"ax",@progbits
	.sectioninfo	@"SHI_REGISTERS=32"
.text.k:
        /*0000*/                   MOV R1, c[0x0][0x28] ;
	//## File "k.ptx", line 36
        /*0010*/                   S2R R0, SR_CTAID.Y ;
        /*0020*/              @!P0 BRA `(.L_x_0) ;
.L_x_1:
	//## File "k.ptx", line 97
        /*0210*/                   LDG.E.CONSTANT R22, [R12.64] ;
	//## File "k.ptx", line 103
        /*02d0*/                   LDS.128 R8, [R14] ;
        /*02e0*/                   FFMA R8, R26, R8, R21 ;
        /*0510*/              @!P0 BRA `(.L_x_1) ;
.L_x_0:
	//## File "k.ptx", line 173 inlined at "k.ptx", line 9
        /*0530*/                   EXIT ;
        .type           $__internal_0_$__cuda_sm3x_div_rn_noftz_f32_slowpath,@function
$__internal_0_$__cuda_sm3x_div_rn_noftz_f32_slowpath:
        /*0540*/                   FCHK P0, R3, R4 ;
        /*0550*/                   RET.REL.NODEC R6 `(k) ;
.L_x_2:
        /*0560*/                   BRA `(.L_x_2);
        /*0570*/                   NOP;
.L_x_4:
"#;

    #[test]
    fn reads_lines_blocks_and_classes() {
        let d = parse(OUT);
        assert_eq!(d.sections, ["k"]);
        let got: Vec<(u32, u32, &str)> = d
            .instrs
            .iter()
            .map(|i| (i.block, i.line, i.opcode.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                (0, 0, "MOV"),
                (0, 36, "S2R"),
                (0, 36, "BRA"),
                (1, 97, "LDG.E.CONSTANT"),
                (1, 103, "LDS.128"),
                (1, 103, "FFMA"),
                (1, 103, "BRA"),
                (2, 173, "EXIT"),
                (3, 0, "FCHK"),
                (3, 0, "RET.REL.NODEC"),
            ]
        );
        let lds = SassMem {
            kind: MemKind::Load,
            space: SassSpace::Shared,
            bytes: 16,
        };
        assert_eq!(d.instrs[4].op, SassOp::Mem(lds));
        assert_eq!(d.instrs[5].op, SassOp::Class(UnitClass::Fp32));
    }

    #[test]
    fn classifies_opcodes() {
        let m = |s| match classify(s) {
            SassOp::Mem(m) => (m.kind, m.space, m.bytes),
            SassOp::Class(c) => panic!("{s}: {c:?}"),
        };
        assert_eq!(m("LDG.E.128"), (MemKind::Load, SassSpace::Global, 16));
        assert_eq!(m("STS.U8"), (MemKind::Store, SassSpace::Shared, 1));
        assert_eq!(m("LDSM.16.M88.4"), (MemKind::Load, SassSpace::Shared, 16));
        assert_eq!(
            m("ATOMG.E.ADD.F64.RN.STRONG.GPU"),
            (MemKind::Atomic, SassSpace::Global, 8)
        );
        assert_eq!(
            m("LDGSTS.E.BYPASS.128"),
            (MemKind::AsyncCopy, SassSpace::Global, 16)
        );
        assert_eq!(classify("HFMA2.MMA"), SassOp::Class(UnitClass::Fp16));
        assert_eq!(classify("ULDC.64"), SassOp::Class(UnitClass::Int));
        assert_eq!(classify("MUFU.RCP"), SassOp::Class(UnitClass::Sfu));
        assert_eq!(
            classify("BAR.SYNC.DEFER_BLOCKING"),
            SassOp::Class(UnitClass::Control)
        );
        assert_eq!(classify("HMMA.16816.F32"), SassOp::Class(UnitClass::Tensor));
        assert_eq!(classify("DFMA"), SassOp::Class(UnitClass::Fp64));
    }
}
