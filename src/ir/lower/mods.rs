//! Digesting an instruction's typed modifiers into what lowering asks of them.

use crate::front::ast::{Instruction, Kw, Modifier, ScalarType, StateSpace};
use crate::ir::{AtomOp, BoolOp, CmpOp, IntRounding, Rounding, Space, Ty};

/// The IR type of a PTX scalar type (`None`: not representable in the IR yet).
pub(crate) fn ty_of(s: ScalarType) -> Option<Ty> {
    use ScalarType as S;
    Some(match s {
        S::Pred => Ty::Pred,
        S::B8 => Ty::B8,
        S::B16 => Ty::B16,
        S::B32 => Ty::B32,
        S::B64 => Ty::B64,
        S::U8 => Ty::U8,
        S::U16 => Ty::U16,
        S::U32 => Ty::U32,
        S::U64 => Ty::U64,
        S::S8 => Ty::S8,
        S::S16 => Ty::S16,
        S::S32 => Ty::S32,
        S::S64 => Ty::S64,
        S::F16 => Ty::F16,
        S::F16x2 => Ty::F16x2,
        S::Bf16 => Ty::Bf16,
        S::Bf16x2 => Ty::Bf16x2,
        S::F32 => Ty::F32,
        S::F64 => Ty::F64,
        _ => return None,
    })
}

pub(crate) fn space_of(s: StateSpace) -> Option<Space> {
    Some(match s {
        StateSpace::Global => Space::Global,
        StateSpace::Shared | StateSpace::SharedCta => Space::Shared,
        StateSpace::Local => Space::Local,
        StateSpace::Const => Space::Const,
        StateSpace::Param | StateSpace::ParamEntry | StateSpace::ParamFunc => Space::FrameParam,
        _ => return None,
    })
}

/// An instruction's modifiers, sorted by what they mean.
pub(crate) struct Mods {
    pub types: Vec<ScalarType>,
    pub space: Option<StateSpace>,
    pub kws: Vec<Kw>,
    pub vector: u8,
    pub has_shape: bool,
}

impl Mods {
    pub fn of(ins: &Instruction) -> Mods {
        let mut m = Mods {
            types: Vec::new(),
            space: None,
            kws: Vec::new(),
            vector: 1,
            has_shape: false,
        };
        for md in &ins.modifiers {
            match *md {
                Modifier::Type(t) => m.types.push(t),
                Modifier::Space(s) => {
                    if m.space.is_none() {
                        m.space = Some(s)
                    }
                }
                Modifier::Kw(Kw::V2) => m.vector = 2,
                Modifier::Kw(Kw::V4) => m.vector = 4,
                Modifier::Kw(Kw::V8) => m.vector = 8,
                Modifier::Kw(k) => m.kws.push(k),
                Modifier::Shape { .. } => m.has_shape = true,
            }
        }
        m
    }

    pub fn has(&self, k: Kw) -> bool {
        self.kws.contains(&k)
    }

    pub fn rounding(&self) -> Option<Rounding> {
        self.kws.iter().find_map(|k| match k {
            Kw::Rn => Some(Rounding::Rn),
            Kw::Rz => Some(Rounding::Rz),
            Kw::Rm => Some(Rounding::Rm),
            Kw::Rp => Some(Rounding::Rp),
            Kw::Rna => Some(Rounding::Rna),
            _ => None,
        })
    }

    pub fn int_rounding(&self) -> Option<IntRounding> {
        self.kws.iter().find_map(|k| match k {
            Kw::Rni => Some(IntRounding::Rni),
            Kw::Rzi => Some(IntRounding::Rzi),
            Kw::Rmi => Some(IntRounding::Rmi),
            Kw::Rpi => Some(IntRounding::Rpi),
            _ => None,
        })
    }

    /// The comparison of `setp`/`set`/`slct` (`lo`/`hi` mean unsigned lower/higher here).
    pub fn cmp(&self) -> Option<CmpOp> {
        self.kws.iter().find_map(|k| {
            Some(match k {
                Kw::Eq => CmpOp::Eq,
                Kw::Ne => CmpOp::Ne,
                Kw::Lt => CmpOp::Lt,
                Kw::Le => CmpOp::Le,
                Kw::Gt => CmpOp::Gt,
                Kw::Ge => CmpOp::Ge,
                Kw::Lo => CmpOp::Lo,
                Kw::Ls => CmpOp::Ls,
                Kw::Hi => CmpOp::Hi,
                Kw::Hs => CmpOp::Hs,
                Kw::Equ => CmpOp::Equ,
                Kw::Neu => CmpOp::Neu,
                Kw::Ltu => CmpOp::Ltu,
                Kw::Leu => CmpOp::Leu,
                Kw::Gtu => CmpOp::Gtu,
                Kw::Geu => CmpOp::Geu,
                Kw::Num => CmpOp::Num,
                Kw::Nan => CmpOp::Nan,
                _ => return None,
            })
        })
    }

    pub fn bool_op(&self) -> Option<BoolOp> {
        self.kws.iter().find_map(|k| match k {
            Kw::And => Some(BoolOp::And),
            Kw::Or => Some(BoolOp::Or),
            Kw::Xor => Some(BoolOp::Xor),
            _ => None,
        })
    }

    pub fn atom_op(&self) -> Option<AtomOp> {
        self.kws.iter().find_map(|k| {
            Some(match k {
                Kw::Add => AtomOp::Add,
                Kw::Min => AtomOp::Min,
                Kw::Max => AtomOp::Max,
                Kw::Inc => AtomOp::Inc,
                Kw::Dec => AtomOp::Dec,
                Kw::And => AtomOp::And,
                Kw::Or => AtomOp::Or,
                Kw::Xor => AtomOp::Xor,
                Kw::Exch => AtomOp::Exch,
                Kw::Cas => AtomOp::Cas,
                _ => return None,
            })
        })
    }
}

/// `prmt`'s mode from its modifiers (`.f4e` ... `.rc16`; none: generic).
pub(crate) fn prmt_mode(m: &Mods) -> crate::ir::PrmtMode {
    use crate::ir::PrmtMode;
    for k in &m.kws {
        return match k {
            Kw::F4e => PrmtMode::F4e,
            Kw::B4e => PrmtMode::B4e,
            Kw::Rc8 => PrmtMode::Rc8,
            Kw::Ecl => PrmtMode::Ecl,
            Kw::Ecr => PrmtMode::Ecr,
            Kw::Rc16 => PrmtMode::Rc16,
            _ => continue,
        };
    }
    PrmtMode::Generic
}
