//! Typed PTX instructions: opcodes, modifiers and operands (PTX ISA §9.7).
//!
//! An [`Instruction`] is an [`Opcode`], its dot-modifiers in source order, each
//! parsed into a typed [`Modifier`] (a type, a state space, a shape or a
//! [`Kw`] keyword), and its [`Operand`]s. No string survives parsing: lowering
//! matches exhaustively on these enums. [`Opcode::allowed`] says which
//! modifier classes an opcode accepts, so `add.eq.s32` is rejected at parse
//! time with a clear message.

use super::source::Span;
use super::types::{spelled_enum, ScalarType, StateSpace};

spelled_enum! {
    /// Every PTX opcode (the text before the first dot).
    pub enum Opcode {
        Abs => "abs", Activemask => "activemask", Add => "add", Addc => "addc",
        Alloca => "alloca", And => "and", Applypriority => "applypriority", Atom => "atom",
        Bar => "bar", Barrier => "barrier", Bfe => "bfe", Bfi => "bfi", Bfind => "bfind",
        Bmsk => "bmsk", Bra => "bra", Brev => "brev", Brkpt => "brkpt", Brx => "brx",
        Call => "call", Clusterlaunchcontrol => "clusterlaunchcontrol", Clz => "clz", Cnot => "cnot", Copysign => "copysign", Cos => "cos",
        Cp => "cp", Createpolicy => "createpolicy", Cvt => "cvt", Cvta => "cvta",
        Discard => "discard", Div => "div", Dp2a => "dp2a", Dp4a => "dp4a", Elect => "elect",
        Ex2 => "ex2", Exit => "exit", Fence => "fence", Fma => "fma", Fns => "fns",
        Getctarank => "getctarank", Griddepcontrol => "griddepcontrol", Isspacep => "isspacep",
        Istypep => "istypep", Ld => "ld", Ldmatrix => "ldmatrix", Ldu => "ldu", Lg2 => "lg2",
        Lop3 => "lop3", Mad => "mad", Mad24 => "mad24", Madc => "madc", Mapa => "mapa",
        Match => "match", Max => "max", Mbarrier => "mbarrier", Membar => "membar", Min => "min",
        Mma => "mma", Mov => "mov", Movmatrix => "movmatrix", Mul => "mul", Mul24 => "mul24",
        Multimem => "multimem", Nanosleep => "nanosleep", Neg => "neg", Not => "not", Or => "or",
        Pmevent => "pmevent", Popc => "popc", Prefetch => "prefetch", Prefetchu => "prefetchu",
        Prmt => "prmt", Rcp => "rcp", Red => "red", Redux => "redux", Rem => "rem", Ret => "ret",
        Rsqrt => "rsqrt", Sad => "sad", Selp => "selp", Set => "set", Setmaxnreg => "setmaxnreg",
        Setp => "setp", Shf => "shf", Shfl => "shfl", Shl => "shl", Shr => "shr", Sin => "sin",
        Slct => "slct", Sqrt => "sqrt", St => "st", Stackrestore => "stackrestore",
        Stacksave => "stacksave", Stmatrix => "stmatrix", Sub => "sub", Subc => "subc",
        Suld => "suld", Suq => "suq", Sured => "sured", Sust => "sust", Szext => "szext",
        Tanh => "tanh", Tcgen05 => "tcgen05", Tensormap => "tensormap", Testp => "testp",
        Tex => "tex", Tld4 => "tld4", Trap => "trap", Txq => "txq", Vabsdiff => "vabsdiff",
        Vabsdiff2 => "vabsdiff2", Vabsdiff4 => "vabsdiff4", Vadd => "vadd", Vadd2 => "vadd2",
        Vadd4 => "vadd4", Vavrg2 => "vavrg2", Vavrg4 => "vavrg4", Vmad => "vmad",
        Vmax => "vmax", Vmax2 => "vmax2", Vmax4 => "vmax4", Vmin => "vmin", Vmin2 => "vmin2",
        Vmin4 => "vmin4", Vote => "vote", Vset => "vset", Vset2 => "vset2", Vset4 => "vset4",
        Vshl => "vshl", Vshr => "vshr", Vsub => "vsub", Vsub2 => "vsub2", Vsub4 => "vsub4",
        Wgmma => "wgmma", Wmma => "wmma", Xor => "xor",
    }
}

/// Modifier classes, as bits of a mask (see [`Kw::classes`] and [`Opcode::allowed`]).
pub mod class {
    pub const ROUND: u32 = 1 << 0;
    pub const FLOAT: u32 = 1 << 1;
    pub const INT: u32 = 1 << 2;
    pub const VEC: u32 = 1 << 3;
    pub const CACHE: u32 = 1 << 4;
    pub const CMP: u32 = 1 << 5;
    pub const BOOL: u32 = 1 << 6;
    pub const ATOM: u32 = 1 << 7;
    pub const SCOPE: u32 = 1 << 8;
    pub const SEM: u32 = 1 << 9;
    pub const SHFL: u32 = 1 << 10;
    pub const VOTE: u32 = 1 << 11;
    pub const SYNC: u32 = 1 << 12;
    pub const BAR: u32 = 1 << 13;
    pub const PRMT: u32 = 1 << 14;
    pub const TESTP: u32 = 1 << 15;
    pub const CONV: u32 = 1 << 16;
    pub const MATRIX: u32 = 1 << 17;
    pub const ASYNC: u32 = 1 << 18;
    pub const MBAR: u32 = 1 << 19;
    pub const TEX: u32 = 1 << 20;
    pub const MISC: u32 = 1 << 21;
    pub const TYPE: u32 = 1 << 22;
    pub const SPACE: u32 = 1 << 23;
    pub const SHAPE: u32 = 1 << 24;
    pub const ANY: u32 = u32::MAX;
}

/// Declares the keyword modifiers with their spelling and classes.
macro_rules! keywords {
    ($($variant:ident => $text:literal : $classes:expr,)*) => {
        /// A keyword modifier (everything after a dot that is not a type, a
        /// state space or a matrix shape). Its meaning can depend on the opcode:
        /// `.lo` is the low half for `mul` and "lower" for `setp`.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Kw { $($variant,)* }

        impl Kw {
            pub fn from_name(text: &str) -> Option<Kw> {
                match text { $($text => Some(Kw::$variant),)* _ => None }
            }
            pub fn name(self) -> &'static str {
                match self { $(Kw::$variant => $text,)* }
            }
            /// The modifier classes this keyword belongs to (bits of [`class`]).
            pub fn classes(self) -> u32 {
                use class::*;
                match self { $(Kw::$variant => $classes,)* }
            }
        }
    };
}

keywords! {
    // Rounding (§9.7.3, §9.7.9.21).
    Rn => "rn": ROUND, Rz => "rz": ROUND, Rm => "rm": ROUND, Rp => "rp": ROUND,
    Rna => "rna": ROUND, Rs => "rs": ROUND,
    Rni => "rni": ROUND, Rzi => "rzi": ROUND, Rmi => "rmi": ROUND, Rpi => "rpi": ROUND,
    // Floating-point behaviour.
    Ftz => "ftz": FLOAT, Sat => "sat": FLOAT | INT, Satfinite => "satfinite": FLOAT | MATRIX,
    Approx => "approx": FLOAT, Full => "full": FLOAT, Relu => "relu": FLOAT,
    Xorsign => "xorsign": FLOAT, Abs => "abs": FLOAT, NaN => "NaN": FLOAT, Noftz => "noftz": FLOAT,
    Oob => "oob": FLOAT,
    // Integer behaviour (`lo`/`hi` are also comparisons).
    Hi => "hi": INT | CMP, Lo => "lo": INT | CMP, Wide => "wide": INT, Cc => "cc": INT,
    Shiftamt => "shiftamt": INT, Clamp => "clamp": INT | TEX, Wrap => "wrap": INT,
    L => "l": INT, R => "r": INT | TEX,
    // vmad's plus-one mode and scales (§9.7.16.1.3).
    Po => "po": INT, Shr7 => "shr7": INT, Shr15 => "shr15": INT,
    // Vectors.
    V2 => "v2": VEC, V4 => "v4": VEC, V8 => "v8": VEC,
    // Cache operators and eviction hints (§9.7.9.1).
    Ca => "ca": CACHE, Cg => "cg": CACHE, Cs => "cs": CACHE, Lu => "lu": CACHE, Cv => "cv": CACHE,
    Wb => "wb": CACHE, Wt => "wt": CACHE, Nc => "nc": CACHE,
    L1EvictNormal => "L1::evict_normal": CACHE, L1EvictUnchanged => "L1::evict_unchanged": CACHE,
    L1EvictFirst => "L1::evict_first": CACHE, L1EvictLast => "L1::evict_last": CACHE,
    L1NoAllocate => "L1::no_allocate": CACHE,
    L2EvictNormal => "L2::evict_normal": CACHE, L2EvictFirst => "L2::evict_first": CACHE,
    L2EvictLast => "L2::evict_last": CACHE, L2EvictUnchanged => "L2::evict_unchanged": CACHE,
    L2CacheHint => "L2::cache_hint": CACHE, L2B64 => "L2::64B": CACHE, L2B128 => "L2::128B": CACHE,
    L2B256 => "L2::256B": CACHE, L1 => "L1": CACHE, L2 => "L2": CACHE,
    Unified => "unified": CACHE,
    // Comparisons (§9.7.3.5 setp).
    Eq => "eq": CMP, Ne => "ne": CMP, Lt => "lt": CMP, Le => "le": CMP, Gt => "gt": CMP,
    Ge => "ge": CMP, Ls => "ls": CMP, Hs => "hs": CMP, Equ => "equ": CMP, Neu => "neu": CMP,
    Ltu => "ltu": CMP, Leu => "leu": CMP, Gtu => "gtu": CMP, Geu => "geu": CMP,
    Num => "num": CMP, Nan => "nan": CMP,
    // Boolean combining and atomic operations.
    And => "and": BOOL | ATOM, Or => "or": BOOL | ATOM, Xor => "xor": BOOL | ATOM,
    Add => "add": ATOM, Inc => "inc": ATOM, Dec => "dec": ATOM, Exch => "exch": ATOM,
    Cas => "cas": ATOM, Min => "min": ATOM, Max => "max": ATOM,
    // Scopes and memory-consistency semantics (§8).
    Cta => "cta": SCOPE, Cluster => "cluster": SCOPE, Gpu => "gpu": SCOPE, Sys => "sys": SCOPE,
    Gl => "gl": SCOPE,
    Relaxed => "relaxed": SEM, Acquire => "acquire": SEM, Release => "release": SEM,
    AcqRel => "acq_rel": SEM, Sc => "sc": SEM, Weak => "weak": SEM, Volatile => "volatile": SEM,
    Mmio => "mmio": SEM, Proxy => "proxy": SEM, Alias => "alias": SEM,
    MbarrierInit => "mbarrier_init": SEM,
    ProxyTensormapGeneric => "proxy::tensormap::generic": SEM,
    TensormapGeneric => "tensormap::generic": SEM,
    Generic => "generic": SEM,
    // Warp shuffles and votes.
    Up => "up": SHFL, Down => "down": SHFL, Bfly => "bfly": SHFL, Idx => "idx": SHFL | TEX,
    All => "all": VOTE, Any => "any": VOTE, Uni => "uni": VOTE | SYNC, Ballot => "ballot": VOTE,
    Sync => "sync": SYNC, Aligned => "aligned": SYNC,
    // Barriers.
    Arrive => "arrive": BAR | MBAR, Red => "red": BAR, Popc => "popc": BAR, Warp => "warp": BAR,
    Wait => "wait": BAR | MISC, LaunchDependents => "launch_dependents": MISC,
    // prmt modes.
    F4e => "f4e": PRMT, B4e => "b4e": PRMT, Rc8 => "rc8": PRMT, Ecl => "ecl": PRMT,
    Ecr => "ecr": PRMT, Rc16 => "rc16": PRMT,
    // testp properties.
    Finite => "finite": TESTP, Infinite => "infinite": TESTP, Number => "number": TESTP,
    Notanumber => "notanumber": TESTP, Normal => "normal": TESTP, Subnormal => "subnormal": TESTP,
    // Conversions.
    To => "to": CONV, Pack => "pack": CONV,
    // Matrix instructions (mma, wmma, ldmatrix, stmatrix, movmatrix, wgmma).
    Row => "row": MATRIX, Col => "col": MATRIX, X1 => "x1": MATRIX, X2 => "x2": MATRIX,
    X4 => "x4": MATRIX, Trans => "trans": MATRIX, Load => "load": MATRIX, Store => "store": MATRIX,
    MmaOp => "mma": MATRIX, MmaAsync => "mma_async": MATRIX, A => "a": MATRIX | TEX, B => "b": MATRIX | TEX, C => "c": MATRIX,
    D => "d": MATRIX, Sp => "sp": MATRIX, SpOrderedMetadata => "sp::ordered_metadata": MATRIX,
    Fence => "fence": MATRIX | ASYNC, CommitGroup => "commit_group": MATRIX | ASYNC,
    WaitGroup => "wait_group": MATRIX | ASYNC,
    KindF8f6f4 => "kind::f8f6f4": MATRIX,
    // Asynchronous copies and the tensor memory accelerator.
    Async => "async": ASYNC | SEM, WaitAll => "wait_all": ASYNC, Bulk => "bulk": ASYNC,
    BulkGroup => "bulk_group": ASYNC, Read => "read": ASYNC, Tensor => "tensor": ASYNC,
    Tile => "tile": ASYNC, Im2col => "im2col": ASYNC, MbarrierTx => "mbarrier::complete_tx::bytes": ASYNC,
    MulticastCluster => "multicast::cluster": ASYNC, Mbarrier => "mbarrier": ASYNC,
    Prefetch => "prefetch": ASYNC, Tensormap => "tensormap": ASYNC | SEM, Replace => "replace": ASYNC,
    Tile0 => "tile::gather4": ASYNC, IgnoreOob => "ignore_oob": ASYNC, Noinc => "noinc": ASYNC,
    D4 => "4d": ASYNC, D5 => "5d": ASYNC,
    Reduce => "reduce": ASYNC, CpFenceproxy => "cp_fenceproxy": ASYNC, B1024 => "b1024": ASYNC,
    // tensormap.replace fields (§9.7.9.27).
    GlobalAddress => "global_address": ASYNC, Rank => "rank": ASYNC, BoxDim => "box_dim": ASYNC,
    GlobalDim => "global_dim": ASYNC, GlobalStride => "global_stride": ASYNC,
    ElementStride => "element_stride": ASYNC, Elemtype => "elemtype": ASYNC,
    InterleaveLayout => "interleave_layout": ASYNC, SwizzleMode => "swizzle_mode": ASYNC,
    SwizzleAtomicity => "swizzle_atomicity": ASYNC, FillMode => "fill_mode": ASYNC,
    // mbarrier operations.
    Init => "init": MBAR, ArriveDrop => "arrive_drop": MBAR, TestWait => "test_wait": MBAR,
    TryWait => "try_wait": MBAR, PendingCount => "pending_count": MBAR, Inval => "inval": MBAR,
    ExpectTx => "expect_tx": MBAR, CompleteTx => "complete_tx": MBAR, Parity => "parity": MBAR,
    NoComplete => "noComplete": MBAR,
    // Textures and surfaces (§9.7.10, §9.7.11).
    D1 => "1d": TEX, D2 => "2d": TEX, D3 => "3d": TEX, A1d => "a1d": TEX, A2d => "a2d": TEX,
    Cube => "cube": TEX, Acube => "acube": TEX, D2ms => "2dms": TEX, A2dms => "a2dms": TEX,
    Level => "level": TEX, Grad => "grad": TEX, Base => "base": TEX, G => "g": TEX,
    P => "p": TEX, Trap => "trap": TEX, Zero => "zero": TEX,
    Width => "width": TEX, Height => "height": TEX, Depth => "depth": TEX,
    ChannelDataType => "channel_data_type": TEX, ChannelOrder => "channel_order": TEX,
    NormalizedCoords => "normalized_coords": TEX, FilterMode => "filter_mode": TEX,
    AddrMode0 => "addr_mode_0": TEX, AddrMode1 => "addr_mode_1": TEX, AddrMode2 => "addr_mode_2": TEX,
    ForceUnnormalizedCoords => "force_unnormalized_coords": TEX,
    NumMipmapLevels => "num_mipmap_levels": TEX, NumSamples => "num_samples": TEX,
    ArraySize => "array_size": TEX, MemoryLayout => "memory_layout": TEX,
    Texref => "texref": TEX, Samplerref => "samplerref": TEX, Surfref => "surfref": TEX,
    // Miscellaneous.
    Fractional => "fractional": MISC, Range => "range": MISC, Mask => "mask": MISC,
}

/// One dot-modifier of an instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Modifier {
    Type(ScalarType),
    Space(StateSpace),
    Kw(Kw),
    /// A matrix shape such as `.m16n8k16` (k is 0 for `.m8n8`).
    Shape {
        m: u16,
        n: u16,
        k: u16,
    },
}

impl Modifier {
    pub fn classes(self) -> u32 {
        match self {
            Modifier::Type(_) => class::TYPE,
            Modifier::Space(_) => class::SPACE,
            Modifier::Kw(k) => k.classes(),
            Modifier::Shape { .. } => class::SHAPE,
        }
    }
}

impl std::fmt::Display for Modifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Modifier::Type(t) => f.write_str(t.name()),
            Modifier::Space(s) => f.write_str(s.name()),
            Modifier::Kw(k) => f.write_str(k.name()),
            Modifier::Shape { m, n, k: 0 } => write!(f, "m{m}n{n}"),
            Modifier::Shape { m, n, k } => write!(f, "m{m}n{n}k{k}"),
        }
    }
}

impl Opcode {
    /// The modifier classes this opcode accepts (bits of [`class`]).
    pub fn allowed(self) -> u32 {
        use class::*;
        use Opcode::*;
        let arith = TYPE | ROUND | FLOAT | INT;
        match self {
            Add | Sub | Mul | Mad | Fma | Div | Rem | Addc | Subc | Madc | Mad24 | Mul24 | Sad => {
                arith
            }
            Abs | Neg | Min | Max | Rcp | Sqrt | Rsqrt | Sin | Cos | Lg2 | Ex2 | Tanh
            | Copysign => arith,
            And | Or | Xor | Not | Cnot | Popc | Clz | Brev | Bfind | Bfe | Bfi | Bmsk | Szext
            | Shl | Shr | Shf | Dp2a | Dp4a | Fns | Selp | Slct | Mov => TYPE | INT | FLOAT,
            // `.or`/`.and`: the predicate form (PTX ISA 8.2).
            Lop3 => TYPE | INT | FLOAT | BOOL,
            Prmt => TYPE | PRMT,
            Testp => TYPE | TESTP,
            Setp | Set => TYPE | CMP | BOOL | FLOAT,
            Cvt => TYPE | ROUND | FLOAT | INT | CONV,
            Cvta | Isspacep => TYPE | SPACE | CONV,
            Ld | St | Ldu => TYPE | SPACE | VEC | CACHE | SEM | SCOPE | MISC,
            Prefetch | Prefetchu | Applypriority | Discard | Createpolicy => {
                TYPE | SPACE | CACHE | TEX | MISC | ASYNC
            }
            Atom | Red => TYPE | SPACE | ATOM | SCOPE | SEM | CACHE | FLOAT | VEC | ROUND,
            Membar | Fence => SCOPE | SEM | SPACE | ASYNC | MBAR | SYNC,
            Bar | Barrier => BAR | SYNC | TYPE | BOOL | SCOPE | SEM | Self::CLUSTER_BAR,
            Shfl => SHFL | SYNC | TYPE,
            Vote => VOTE | SYNC | TYPE,
            Match => VOTE | SYNC | TYPE,
            Redux => SYNC | TYPE | ATOM | BOOL | FLOAT,
            Activemask | Elect | Nanosleep | Getctarank | Mapa | Stacksave | Stackrestore
            | Alloca | Setmaxnreg => TYPE | SPACE | SYNC | ATOM | MISC,
            Bra | Brx | Call | Ret => SYNC | SHFL,
            Exit | Trap | Brkpt => 0,
            Pmevent | Griddepcontrol => MISC,
            Tex | Tld4 | Txq | Suld | Sust | Sured | Suq | Istypep => {
                TEX | TYPE | VEC | ATOM | INT | CACHE | MATRIX
            }
            // Video instructions (§9.7.16): `.sat`, `.clamp/.wrap`, `.po`,
            // `.shr7/.shr15` (INT), comparisons, `.add/.min/.max` (ATOM);
            // lowering checks each opcode's own list.
            Vabsdiff | Vadd | Vmad | Vmax | Vmin | Vset | Vshl | Vshr | Vsub | Vabsdiff2
            | Vabsdiff4 | Vadd2 | Vadd4 | Vavrg2 | Vavrg4 | Vmax2 | Vmax4 | Vmin2 | Vmin4
            | Vset2 | Vset4 | Vsub2 | Vsub4 => TYPE | INT | CMP | ATOM,
            // Matrix, asynchronous-copy, cluster and tensor-memory families take a
            // long list of shapes and qualifiers; lowering validates them.
            Mma | Wmma | Wgmma | Ldmatrix | Stmatrix | Movmatrix | Cp | Mbarrier | Multimem
            | Tensormap | Tcgen05 | Clusterlaunchcontrol => ANY,
        }
    }

    /// Families warpjit recognises but does not execute, whose modifiers
    /// and operands it does not model: the statement is kept with the
    /// modifiers it can classify and no operands, and lowering refuses it
    /// with the reason (Blackwell's `tcgen05`, `clusterlaunchcontrol` and
    /// `st.bulk`; multi-GPU `multimem`).
    pub fn kept_unparsed(self, first_modifier: &str) -> bool {
        match self {
            Opcode::Tcgen05 | Opcode::Clusterlaunchcontrol | Opcode::Multimem => true,
            Opcode::St => first_modifier == "bulk",
            _ => false,
        }
    }

    /// `barrier.cluster` and friends use the scope keyword `cluster`.
    const CLUSTER_BAR: u32 = class::SCOPE | class::MBAR;
}

/// A guard predicate: `@%p` or `@!%p`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Guard {
    pub negated: bool,
    pub pred: String,
    pub span: Span,
}

/// A PTX instruction statement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Instruction {
    pub guard: Option<Guard>,
    pub opcode: Opcode,
    pub modifiers: Vec<Modifier>,
    pub operands: Vec<Operand>,
    pub span: Span,
}

impl Instruction {
    /// The type modifiers, in order (`cvt.f32.s32` gives `[F32, S32]`).
    pub fn types(&self) -> impl Iterator<Item = ScalarType> + '_ {
        self.modifiers.iter().filter_map(|m| match m {
            Modifier::Type(t) => Some(*t),
            _ => None,
        })
    }

    /// The first state-space modifier, if any.
    pub fn space(&self) -> Option<StateSpace> {
        self.modifiers.iter().find_map(|m| match m {
            Modifier::Space(s) => Some(*s),
            _ => None,
        })
    }

    /// Whether the keyword modifier `kw` is present.
    pub fn has(&self, kw: Kw) -> bool {
        self.modifiers.contains(&Modifier::Kw(kw))
    }

    /// The keyword modifiers that belong to class `class_bits`, in order.
    pub fn keywords_of(&self, class_bits: u32) -> impl Iterator<Item = Kw> + '_ {
        self.modifiers.iter().filter_map(move |m| match m {
            Modifier::Kw(k) if k.classes() & class_bits != 0 => Some(*k),
            _ => None,
        })
    }
}

/// A vector component selector: `%tid.x`, `%v.w`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Component {
    X,
    Y,
    Z,
    W,
}

impl Component {
    pub fn from_char(c: char) -> Option<Component> {
        match c {
            'x' | 'r' => Some(Component::X),
            'y' | 'g' => Some(Component::Y),
            'z' | 'b' => Some(Component::Z),
            'w' | 'a' => Some(Component::W),
            _ => None,
        }
    }

    pub fn name(self) -> char {
        match self {
            Component::X => 'x',
            Component::Y => 'y',
            Component::Z => 'z',
            Component::W => 'w',
        }
    }
}

/// A video instruction's selector or mask on an operand (PTX ISA §9.7.16):
/// `.b0`..`.b3`, `.h0`, `.h1`, the SIMD selectors `.hxy` and `.bxyzw`, and
/// the destination masks `.h10`, `.b3210`...: `b` or `h` and one to four
/// digits, kept as written (which forms an operand may take is checked by
/// lowering).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct VideoSel {
    /// `.h` (half-words) rather than `.b` (bytes).
    pub half: bool,
    digits: [u8; 4],
    len: u8,
}

impl VideoSel {
    /// `half` and 1 to 4 digits (0..=9), in written order; `None` otherwise.
    pub fn new(half: bool, written: &[u8]) -> Option<VideoSel> {
        if written.is_empty() || written.len() > 4 || written.iter().any(|d| *d > 9) {
            return None;
        }
        let mut digits = [0; 4];
        digits[..written.len()].copy_from_slice(written);
        Some(VideoSel {
            half,
            digits,
            len: written.len() as u8,
        })
    }

    /// The digits in written order (`.b3210` gives `[3, 2, 1, 0]`).
    pub fn digits(&self) -> &[u8] {
        &self.digits[..self.len as usize]
    }
}

impl std::fmt::Display for VideoSel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.half { ".h" } else { ".b" })?;
        for d in self.digits() {
            write!(f, "{d}")?;
        }
        Ok(())
    }
}

/// An immediate value. Integers keep their 64-bit two's-complement bits;
/// floats keep their exact bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Imm {
    Int(i64),
    F32(u32),
    F64(u64),
}

/// An operand with its span.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Operand {
    pub kind: OperandKind,
    pub span: Span,
}

/// The forms an operand takes (§6.4).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OperandKind {
    /// A register, variable, label or function name, optionally with a vector
    /// component (`%tid.x`). Names are resolved by lowering.
    Name {
        name: String,
        component: Option<Component>,
    },
    /// `symbol+offset` outside brackets (the address of a variable plus bytes).
    SymbolOffset {
        name: String,
        offset: i64,
    },
    Imm(Imm),
    /// `{a, b, c, d}`.
    Vector(Vec<Operand>),
    /// `{a, b, c, d}|p`: `tex`/`tld4`'s results and residency predicate.
    VectorPred {
        items: Vec<Operand>,
        pred: String,
    },
    /// `[base+offset]`, `[symbol]`, `[imm]` (base `None`: an absolute address).
    Address {
        base: Option<String>,
        offset: i64,
    },
    /// `[a, b, ...]`: texture and surface operands.
    AddressList(Vec<Operand>),
    /// `(a, b, ...)`: call return values and arguments.
    List(Vec<Operand>),
    /// `!p`: a negated predicate source.
    Not(Box<Operand>),
    /// `-a`: a negated register (`vmad`'s `{-}a, {-}b, {-}c`).
    Neg(Box<Operand>),
    /// `a.b0`, `d.h10`, `b.b7654`: a video instruction's operand with a
    /// byte/half-word selector or destination mask.
    Select {
        base: Box<Operand>,
        sel: VideoSel,
    },
    /// `p|q`: setp's two predicate destinations.
    PredPair(String, String),
    /// `_`: a sink (discarded destination or unnamed parameter).
    Sink,
}

impl Operand {
    /// The register or symbol name when the operand is a plain name.
    pub fn name(&self) -> Option<&str> {
        match &self.kind {
            OperandKind::Name { name, .. } => Some(name),
            _ => None,
        }
    }
}
