//! The micro-op vocabulary: value types, operation families and their
//! modifiers (memory spaces and orders, special registers, shuffle, vote
//! and barrier modes, functional-unit classes). This is the contract between lowering (which produces these),
//! the semantics in [`crate::sem`] (pure scalar functions that define them),
//! the interpreter and the JIT (which execute them) and the timing model
//! (which reads their functional-unit class).
//!
//! Values are carried as `u64` bit patterns per lane: integers zero-extended
//! from their width, floats as their IEEE bits (f16/bf16 in the low 16 bits,
//! packed x2 types in the low 32 bits), predicates as 0 or 1.

/// A value type of the IR.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ty {
    Pred,
    B8,
    B16,
    B32,
    B64,
    U8,
    U16,
    U32,
    U64,
    S8,
    S16,
    S32,
    S64,
    F16,
    F16x2,
    Bf16,
    Bf16x2,
    F32,
    F64,
}

impl Ty {
    /// Width in bits (1 for predicates).
    pub fn bits(self) -> u32 {
        use Ty::*;
        match self {
            Pred => 1,
            B8 | U8 | S8 => 8,
            B16 | U16 | S16 | F16 | Bf16 => 16,
            B32 | U32 | S32 | F32 | F16x2 | Bf16x2 => 32,
            B64 | U64 | S64 | F64 => 64,
        }
    }

    /// Width in bytes as stored in memory (predicates are not storable: 1).
    pub fn bytes(self) -> u32 {
        (self.bits().max(8)) / 8
    }

    pub fn is_signed(self) -> bool {
        matches!(self, Ty::S8 | Ty::S16 | Ty::S32 | Ty::S64)
    }

    pub fn is_float(self) -> bool {
        matches!(
            self,
            Ty::F16 | Ty::F16x2 | Ty::Bf16 | Ty::Bf16x2 | Ty::F32 | Ty::F64
        )
    }

    /// The mask of the value's bits inside a u64.
    pub fn mask(self) -> u64 {
        match self.bits() {
            64 => u64::MAX,
            n => (1u64 << n) - 1,
        }
    }

    /// The unsigned integer type of the same width.
    pub fn unsigned(self) -> Ty {
        match self.bits() {
            1 => Ty::Pred,
            8 => Ty::U8,
            16 => Ty::U16,
            32 => Ty::U32,
            _ => Ty::U64,
        }
    }

    /// The signed integer type of the same width.
    pub fn signed(self) -> Ty {
        match self.bits() {
            1 => Ty::Pred,
            8 => Ty::S8,
            16 => Ty::S16,
            32 => Ty::S32,
            _ => Ty::S64,
        }
    }

    /// The integer type of twice the width (for `.wide` results).
    pub fn widened(self) -> Ty {
        use Ty::*;
        match self {
            U8 => U16,
            U16 => U32,
            U32 => U64,
            S8 => S16,
            S16 => S32,
            S32 => S64,
            B8 => B16,
            B16 => B32,
            B32 => B64,
            other => other,
        }
    }
}

/// IEEE rounding of a floating-point result (`.rn .rz .rm .rp`, and `.rna`
/// for conversions to f32/tf32 and alternate formats).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rounding {
    /// To nearest, ties to even (the default).
    Rn,
    /// Toward zero.
    Rz,
    /// Toward minus infinity.
    Rm,
    /// Toward plus infinity.
    Rp,
    /// To nearest, ties away from zero.
    Rna,
}

/// Rounding of a float to an integral value (`.rni .rzi .rmi .rpi`): used by
/// `cvt` from float to integer and from float to float of the same kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IntRounding {
    /// To nearest integer, ties to even.
    Rni,
    /// Toward zero.
    Rzi,
    /// Toward minus infinity (floor).
    Rmi,
    /// Toward plus infinity (ceil).
    Rpi,
}

/// Integer operations with two sources. Operand width and signedness come
/// from the op's [`Ty`]; results are masked to the result width.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IntBinOp {
    /// Packed 16-bit lanes (`add min max` on `.u16x2`/`.s16x2`, PTX ISA
    /// 8.0): each half on its own, signed where the op's type is; the
    /// `Relu` forms clamp each signed result at 0.
    Add16x2,
    Min16x2,
    Max16x2,
    Min16x2Relu,
    Max16x2Relu,
    Add,
    Sub,
    /// `add.sat.s32` / `sub.sat.s32`: saturate to the s32 range.
    AddSat,
    SubSat,
    /// Low half of the product.
    MulLo,
    /// High half of the product.
    MulHi,
    /// Full product: the result is twice the operand width.
    MulWide,
    /// `mul24.lo`: low 32 bits of the 48-bit product of the low 24 bits.
    Mul24Lo,
    /// `mul24.hi`: high 32 bits of the 48-bit product of the low 24 bits.
    Mul24Hi,
    /// Truncating division. Division by zero returns all ones (for every
    /// type and dividend: measured on an H100); `MIN / -1` wraps to `MIN`.
    Div,
    /// Remainder with the sign of the dividend; `x % 0` returns all ones
    /// (measured on an H100) and `MIN % -1` is 0.
    Rem,
    Min,
    Max,
    And,
    Or,
    Xor,
    /// Shift left; counts at or beyond the width give 0.
    Shl,
    /// Shift right (arithmetic for signed types); counts at or beyond the
    /// width give 0, or all sign bits for signed types.
    Shr,
    /// `bmsk.clamp`: mask of `b` bits starting at bit `a` (count clamped to 32).
    BmskClamp,
    /// `bmsk.wrap`: as `BmskClamp`, with `a` and `b` taken modulo 32.
    BmskWrap,
    /// `szext.clamp.s32/u32`: sign/zero-extend `a` from its low `b` bits.
    SzextClamp,
    /// `szext.wrap`.
    SzextWrap,
    /// Absolute difference `|a - b|` (for `sad` and the video instructions).
    AbsDiff,
}

/// Integer operations with one source.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IntUnOp {
    Abs,
    Neg,
    /// Bitwise not (for `.pred`: logical not).
    Not,
    /// `cnot`: 1 if the source is 0, else 0.
    Cnot,
    /// Number of set bits (result is u32).
    Popc,
    /// Leading zeros (result is u32).
    Clz,
    /// `bfind`: position of the most significant non-sign bit, or 0xFFFFFFFF.
    Bfind,
    /// `bfind.shiftamt`: the left shift that would normalize, or 0xFFFFFFFF.
    BfindShiftAmt,
    /// Bit reversal.
    Brev,
}

/// Integer operations with three or more sources.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IntTernOp {
    /// `mad.lo`: low half of a*b, plus c.
    MadLo,
    /// `mad.hi`: high half of a*b, plus c.
    MadHi,
    /// `mad.wide`: full a*b plus c (c and result twice the width).
    MadWide,
    /// `mad.hi.sat.s32`: high half of a*b plus c, saturated to s32.
    MadHiSat,
    /// `mad24.lo` / `mad24.hi`.
    Mad24Lo,
    Mad24Hi,
    /// `sad`: |a - b| + c.
    Sad,
    /// `bfe`: extract c bits at position b of a (sign-extended for signed types).
    Bfe,
    /// `bfi`: insert the low d bits of a into b at position c (4 sources).
    Bfi,
    /// `prmt` with its mode: select bytes of {b, a} by the selector c.
    Prmt(PrmtMode),
    /// `shf.l` / `shf.r` funnel shifts of {b:a} by c, with `.clamp` or `.wrap`.
    ShfL {
        clamp: bool,
    },
    ShfR {
        clamp: bool,
    },
    /// `lop3.b32` with its immediate truth table.
    Lop3(u8),
    /// `fns.b32 d, mask, base, offset`: the position of the `offset`-th set
    /// bit of `mask` counting from bit `base` (up for a positive offset,
    /// down for a negative one; offset 0: `base` itself if set), else
    /// 0xffffffff (PTX ISA §9.7.1.17).
    Fns,
    /// `dp4a.atype.btype`: four 8-bit products of a and b added to c.
    Dp4a {
        a_signed: bool,
        b_signed: bool,
    },
    /// `dp2a.lo/.hi.atype.btype`: two 16x8 products added to c.
    Dp2a {
        hi: bool,
        a_signed: bool,
        b_signed: bool,
    },
}

/// An 8-bit float format (`.e4m3`, `.e5m2`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Fp8 {
    E4m3,
    E5m2,
}

/// The `cvt` forms between 8-bit float pairs and f32/f16x2 (see
/// `sem::fp8`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Fp8Cvt {
    /// `cvt.rn.satfinite{.relu}.<f8>x2.f32 d, a, b` (d .b16; a high).
    FromF32,
    /// `cvt.rn.satfinite{.relu}.<f8>x2.f16x2 d, a` (d .b16).
    FromF16x2,
    /// `cvt.rn{.relu}.f16x2.<f8>x2 d, a` (d .b32, a .b16).
    ToF16x2,
}

/// `prmt` modes (PTX ISA §9.7.8.7).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PrmtMode {
    /// The default: four 4-bit selectors (with sign replication bit).
    Generic,
    F4e,
    B4e,
    Rc8,
    Ecl,
    Ecr,
    Rc16,
}

/// Modifiers of a floating-point operation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct FloatMods {
    /// Explicit rounding; `None` means the instruction's default (`.rn`).
    pub rounding: Option<Rounding>,
    /// `.ftz`: flush subnormal inputs and results to sign-preserving zero.
    pub ftz: bool,
    /// `.sat`: clamp the result to [0, 1] (NaN becomes 0).
    pub sat: bool,
    /// `.relu` (f16/bf16 min/max/fma): clamp negative results to 0.
    pub relu: bool,
}

/// Floating-point operations. The op's [`Ty`] is F16, F16x2, Bf16, Bf16x2,
/// F32 or F64 (packed x2 types apply the operation to each half).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FloatOp {
    Add,
    Sub,
    Mul,
    /// Fused multiply-add `a*b+c` with one rounding (also `mad.rn`/`mad.f64`).
    Fma,
    /// `mad.f32` without a rounding modifier: on sm_20 and later the ISA
    /// defines it as `mad.rn.f32`, a fused multiply-add (kept distinct for
    /// old PTX; lowering emits `Fma` for both).
    MulAdd,
    /// IEEE division with the given rounding (`div.rn/.rz/.rm/.rp`).
    Div,
    /// `div.approx.f32`: a * (1/b) with the documented approximation (max 2 ulp
    /// for |b| in [2^-126, 2^126]).
    DivApprox,
    /// `div.full.f32`: full-range approximate division (max 2 ulp).
    DivFull,
    /// `min` / `max`: if one input is NaN the other is returned; -0 < +0.
    Min,
    Max,
    /// `min.NaN` / `max.NaN`: NaN if either input is NaN.
    MinNaN,
    MaxNaN,
    Abs,
    Neg,
    /// `copysign`: magnitude of b with the sign of a (PTX operand order).
    Copysign,
    /// `rcp` with IEEE rounding (`rcp.rn`...).
    Rcp,
    /// `rcp.approx` (max 1 ulp).
    RcpApprox,
    /// `rcp.approx.ftz.f64` (approximate, 1 ulp of the f64 result's top bits).
    RcpApproxF64,
    /// `sqrt` with IEEE rounding.
    Sqrt,
    /// `sqrt.approx`.
    SqrtApprox,
    /// `rsqrt.approx` (f32 max 2 ulp; f64 approx).
    Rsqrt,
    /// `sin.approx`, `cos.approx` (max abs error 2^-20.9 in [-pi, pi]).
    Sin,
    Cos,
    /// `lg2.approx` (max abs error 2^-22.6 for x in [0.5, 2], else 2 ulp).
    Lg2,
    /// `ex2.approx` (max 2 ulp; f16 forms too).
    Ex2,
    /// `tanh.approx` (max relative error 2^-10.987 for f32).
    Tanh,
}

/// Comparison operators of `setp`, `set`, `slct` (§9.7.3.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    /// Unsigned comparisons (`lo ls hi hs`).
    Lo,
    Ls,
    Hi,
    Hs,
    /// Unordered float comparisons: true if either operand is NaN.
    Equ,
    Neu,
    Ltu,
    Leu,
    Gtu,
    Geu,
    /// Both operands are numbers / either is NaN.
    Num,
    Nan,
}

/// The thread's stack in local memory (PTX ISA 7.3, §9.7.17 "Stack
/// Manipulation Instructions").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StackOp {
    /// `alloca.ty ptr, size{, immAlign}`: `align` is the larger of
    /// `immAlign` and the 8 bytes the ISA guarantees.
    Alloca { align: u32 },
    /// `stacksave.ty d`.
    Save,
    /// `stackrestore.ty a`.
    Restore,
}

/// Boolean combination in `setp.op.bool`, `set.op.bool`, predicate logic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BoolOp {
    And,
    Or,
    Xor,
}

/// `testp` properties.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TestProp {
    Finite,
    Infinite,
    Number,
    NotANumber,
    Normal,
    Subnormal,
}

/// Modifiers of `cvt`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct CvtMods {
    /// Float rounding for float results that lose precision (`.rn` default).
    pub rounding: Option<Rounding>,
    /// Integral rounding for float-to-integer and float-to-same-float (`.rni`...).
    pub int_rounding: Option<IntRounding>,
    pub ftz: bool,
    /// `.sat`: clamp to the destination range (floats: to [0, 1]).
    pub sat: bool,
    /// `.relu` (f16/bf16 destinations): negative results become 0.
    pub relu: bool,
    /// `.satfinite` (f16/bf16/tf32/f8 destinations): saturate to the max finite value.
    pub satfinite: bool,
}

/// Atomic and reduction operations (`atom.op`, `red.op`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AtomOp {
    Add,
    Min,
    Max,
    /// `inc`: `old >= b ? 0 : old + 1` (unsigned).
    Inc,
    /// `dec`: `(old == 0 || old > b) ? b : old - 1` (unsigned).
    Dec,
    And,
    Or,
    Xor,
    Exch,
    /// Compare-and-swap: `old == b ? c : old`.
    Cas,
}

/// The memory-model semantics of a load, store or atomic (PTX ISA §8.4,
/// its `.sem` qualifier): what racecheck takes as synchronization. Plain
/// covers `.weak`, `.volatile` and no qualifier; `.sc` counts as `AcqRel`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum MemOrder {
    #[default]
    Plain,
    Relaxed,
    Acquire,
    Release,
    AcqRel,
}

/// The hardware functional-unit class an op issues to (for the timing model).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Unit {
    Int,
    Fp32,
    Fp64,
    Fp16,
    /// Special function unit (transcendentals, reciprocals).
    Sfu,
    LsuGlobal,
    /// A global load that does not allocate in the L1 (`.cg`,
    /// `L1::no_allocate`, `.volatile`): cached in the L2 only.
    LsuGlobalCg,
    /// A global load that fetches again from memory (`.cv`).
    LsuGlobalCv,
    LsuLocal,
    LsuShared,
    LsuConst,
    LsuParam,
    /// Branches, calls, warp votes and shuffles' control.
    Control,
    Barrier,
    Tensor,
}

/// A memory state space, as addressed by loads, stores and atomics.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Space {
    Global,
    Shared,
    Local,
    Const,
    /// The kernel's parameter buffer (`ld.param` of a kernel parameter).
    KernelParam,
    /// The current frame's parameter area (`.func` params, call arguments).
    FrameParam,
    /// A generic address, decoded at run time.
    Generic,
}

/// A special register (PTX ISA §10).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SpecialReg {
    Tid(u8),
    Ntid(u8),
    Ctaid(u8),
    Nctaid(u8),
    Laneid,
    Warpid,
    Nwarpid,
    Smid,
    Nsmid,
    Gridid,
    LanemaskEq,
    LanemaskLt,
    LanemaskLe,
    LanemaskGt,
    LanemaskGe,
    Clock,
    ClockHi,
    Clock64,
    Globaltimer,
    GlobaltimerLo,
    GlobaltimerHi,
    DynamicSmemSize,
    TotalSmemSize,
    /// `%aggr_smem_size`: the user's shared memory plus the reserved
    /// kilobyte every block has from sm_80 on.
    AggrSmemSize,
    /// `%pm0`..`%pm7` (32-bit) and `%pm0_64`..`%pm7_64`: performance
    /// monitor counters, whose values the ISA leaves undefined; read 0
    /// (no counter is programmed).
    Pm(u8),
    Pm64(u8),
    /// `%current_graph_exec`: the device graph being executed; 0 (no
    /// launch runs inside a device graph).
    CurrentGraphExec,
    /// `%reserved_smem_offset_begin`, `_end`, `_cap`, `_0`, `_1`: where
    /// the CTA's reserved shared memory lies (see
    /// `engine::RESERVED_SHARED`).
    ReservedSmem(ReservedSmem),
    /// `%envreg0`..`%envreg31`, the driver's registers: a cooperative
    /// launch's grid workspace address in 1 (high word) and 2 (low word),
    /// as cooperative groups' `this_grid()` reads it; 0 otherwise.
    Envreg(u8),
    /// A thread-block cluster register (sm_90).
    Cluster(ClusterReg),
}

/// The cluster special registers (a launch without clusters is one of
/// 1x1x1 clusters).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ClusterReg {
    /// `%clusterid`, `%nclusterid`, `%cluster_ctaid`, `%cluster_nctaid`
    /// (`.x`/`.y`/`.z`): the cluster's place in the grid and the CTA's in
    /// its cluster.
    Id(u8),
    Nid(u8),
    Ctaid(u8),
    Nctaid(u8),
    /// `%cluster_ctarank`, `%cluster_nctarank`: the CTA's linear rank in
    /// its cluster and the cluster's size.
    Ctarank,
    Nctarank,
    /// `%is_explicit_cluster`: the launch asked for clusters (1 or 0).
    IsExplicit,
}

/// Which `%reserved_smem_offset_*` register.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReservedSmem {
    Begin,
    End,
    Cap,
    /// `%reserved_smem_offset_0` / `_1`.
    At(u8),
}

/// Modes of `shfl.sync`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ShflMode {
    Up,
    Down,
    Bfly,
    Idx,
}

/// Modes of `vote.sync`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VoteMode {
    All,
    Any,
    Uni,
    Ballot,
}

/// CTA barrier operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BarKind {
    /// `bar.sync` / `barrier.sync`: arrive and wait.
    Sync,
    /// `bar.arrive`: arrive without waiting.
    Arrive,
    /// `bar.red.popc.u32`: wait, then the count of threads whose predicate is true.
    RedPopc,
    /// `bar.red.and.pred` / `.or.pred`.
    RedAnd,
    RedOr,
}
