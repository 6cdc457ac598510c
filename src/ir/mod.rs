//! The micro-op IR: what PTX lowers to, and what the interpreter, the JIT and
//! the timing model consume.
//!
//! A [`Module`] holds [`Function`]s and module-scope [`Global`]s in typed
//! arenas (cranelift's `PrimaryMap`). A function has typed virtual registers
//! (PTX registers are mutable, so this is not SSA), basic blocks of scalar
//! [`Op`]s ending in an explicit [`Terminator`], and its memory layout (local
//! frame, parameter slots). Every op carries its functional-unit class
//! ([`Unit`]), its issue cost in hardware instructions, and the PTX span it
//! came from. [`cfg`] computes predecessors, post-dominators and the
//! reconvergence point of every branch once; [`verify`] checks the invariants
//! later stages rely on; [`uniform`] marks warp-uniform values and
//! branches; [`slots`] places registers in the register file (registers
//! never live together share a row); [`text`] prints the stable text form.

pub mod cfg;
pub mod liveness;
pub mod lower;
pub mod ops;
pub mod reach;
pub mod schedule;
pub mod slots;
pub mod target;
pub mod text;
pub mod uniform;
pub mod verify;

use cranelift_codegen::entity::{entity_impl, PrimaryMap, SecondaryMap};

use crate::front::{Diagnostic, Span};
pub use ops::*;

/// A virtual register of a function.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Reg(u32);
entity_impl!(Reg, "r");

/// A basic block of a function.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Block(u32);
entity_impl!(Block, "bb");

/// A function (kernel or device function) of a module.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FuncId(u32);
entity_impl!(FuncId, "fn");

/// A module-scope variable in global or constant memory.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GlobalId(u32);
entity_impl!(GlobalId, "g");

/// A static `.shared` variable's place in the CTA's shared memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SharedVar {
    pub offset: u32,
    pub size: u32,
    pub align: u32,
}

/// A lowered PTX module.
#[derive(Clone, Debug)]
pub struct Module {
    /// The source's name (for error messages).
    pub source_name: String,
    pub functions: PrimaryMap<FuncId, Function>,
    pub globals: PrimaryMap<GlobalId, Global>,
    /// Static shared memory of the module, in bytes: the end of its highest
    /// `.shared` variable (variables no kernel uses together overlap, so
    /// this is the largest kernel's, not the sum).
    pub shared_static_size: u32,
    /// Those variables, in declaration order (module scope, then each
    /// function's).
    pub shared_vars: Vec<SharedVar>,
    /// Offset of dynamic (`extern .shared`) shared memory, aligned.
    pub shared_dynamic_offset: u32,
    /// `.file` index to path, for reporting CUDA source lines.
    pub files: Vec<(u32, String)>,
    /// Target architecture from `.target` (e.g. `sm_80`).
    pub target: String,
}

/// Whether any op of any function of `m` is of a kind `pred` accepts.
fn any_op(m: &Module, pred: impl Fn(&OpKind) -> bool) -> bool {
    m.functions.values().any(|f| {
        f.blocks
            .values()
            .flat_map(|b| &b.ops)
            .any(|op| pred(&op.kind))
    })
}

/// Whether any function of `m` calls device-side `malloc` or `free`.
pub fn uses_device_heap(m: &Module) -> bool {
    any_op(m, |k| {
        matches!(
            k,
            OpKind::Call {
                callee: Callee::Malloc | Callee::Free,
                ..
            }
        )
    })
}

/// Whether any function of `m` reads an `%envreg` (a cooperative
/// launch's grid workspace).
pub fn uses_envregs(m: &Module) -> bool {
    any_op(m, |k| {
        matches!(k, OpKind::ReadSpecial(SpecialReg::Envreg(_)))
    })
}

/// Whether any function of `m` computes addresses of other CTAs' shared
/// memory (`mapa`): its shared and generic memory accesses then run in the
/// driver on both engines (`interp::cluster`), never in compiled code.
pub fn uses_clusters(m: &Module) -> bool {
    any_op(m, |k| matches!(k, OpKind::Mapa { .. }))
}

/// Whether any function of `m` reads a `%reserved_smem_offset_*`
/// register (cooperative groups' scratch on sm_80 and later).
pub fn uses_reserved_shared(m: &Module) -> bool {
    any_op(m, |k| {
        matches!(k, OpKind::ReadSpecial(SpecialReg::ReservedSmem(_)))
    })
}

impl Module {
    pub fn function_by_name(&self, name: &str) -> Option<FuncId> {
        self.functions
            .iter()
            .find(|(_, f)| f.name == name)
            .map(|(id, _)| id)
    }

    /// The kernels (`.entry` functions with bodies).
    pub fn kernels(&self) -> impl Iterator<Item = (FuncId, &Function)> {
        self.functions.iter().filter(|(_, f)| f.is_kernel)
    }

    pub fn global_by_name(&self, name: &str) -> Option<GlobalId> {
        self.globals
            .iter()
            .find(|(_, g)| g.name == name)
            .map(|(id, _)| id)
    }
}

/// A variable in `.global` or `.const` memory, with its initial bytes.
#[derive(Clone, Debug)]
pub struct Global {
    pub name: String,
    pub constant: bool,
    pub size: u64,
    pub align: u32,
    /// Initial contents (`size` bytes; zero when there is no initializer).
    pub init: Vec<u8>,
    /// Addresses to patch into `init` at load time.
    pub relocations: Vec<Relocation>,
    /// Declared `.extern` without a definition in this module.
    pub external: bool,
    pub span: Span,
}

/// An address stored in a global's initializer.
#[derive(Clone, Debug)]
pub struct Relocation {
    /// Byte offset in the global's data.
    pub offset: u64,
    /// Width of the stored address in bytes (4 or 8).
    pub width: u32,
    pub target: RelocTarget,
    pub addend: i64,
}

#[derive(Clone, Copy, Debug)]
pub enum RelocTarget {
    Global(GlobalId),
    Function(FuncId),
    /// The address of a `.shared` variable (offset in the shared window).
    Shared(u32),
}

/// One parameter slot of a function (in bytes).
#[derive(Clone, Debug)]
pub struct ParamSlot {
    pub name: String,
    pub offset: u32,
    pub size: u32,
    pub align: u32,
}

/// A function: registers, blocks and memory layout.
#[derive(Clone, Debug)]
pub struct Function {
    pub name: String,
    pub is_kernel: bool,
    /// Declared without a body (an `.extern .func`).
    pub external: bool,
    /// Kernel parameters (in the kernel parameter buffer) or function
    /// parameters (in the frame's parameter area).
    pub params: Vec<ParamSlot>,
    /// Return parameters of a `.func` (in the frame's parameter area).
    pub returns: Vec<ParamSlot>,
    /// Total bytes of kernel parameters.
    pub param_bytes: u32,
    pub regs: PrimaryMap<Reg, RegInfo>,
    pub blocks: PrimaryMap<Block, BlockData>,
    pub entry: Block,
    /// Bytes of the per-thread frame: `.local` variables and `.param`
    /// variables declared in the body, plus the function's own parameter and
    /// return slots for `.func`s.
    pub frame_size: u32,
    pub frame_align: u32,
    /// Control-flow facts, computed once after lowering.
    pub cfg: cfg::CfgInfo,
    /// Which registers and branches are warp-uniform (a side table).
    pub uniform: uniform::Uniformity,
    /// Where each register lives in a warp's register file (registers that
    /// are never live together share a slot).
    pub slots: slots::RegSlots,
    /// The static `.shared` variables its body names: their indices in
    /// `Module::shared_vars` (sorted).
    pub shared_used: Vec<u32>,
    /// `.reqntid` / `.maxntid`, if declared.
    pub reqntid: Option<[u32; 3]>,
    pub maxntid: Option<[u32; 3]>,
    /// `.reqnctapercluster`, if declared: the cluster shape every launch
    /// of the kernel has.
    pub reqnctapercluster: Option<[u32; 3]>,
    /// `.explicitcluster`: the kernel must be launched with clusters.
    pub explicit_cluster: bool,
    /// `.maxnreg`, if declared: the registers per thread ptxas may use.
    pub maxnreg: Option<u32>,
    /// Constructs in the body warpjit cannot run (lowered with
    /// [`lower::run_deferring`]): the body is then a single `trap`, and a
    /// launch of a kernel that may reach this function is refused with
    /// these diagnostics ([`Module::unsupported_in`]).
    pub unsupported: Vec<Diagnostic>,
    pub span: Span,
}

impl Function {
    pub fn new_reg(&mut self, ty: Ty, name: impl Into<String>) -> Reg {
        self.regs.push(RegInfo {
            ty,
            name: name.into(),
        })
    }
}

#[derive(Clone, Debug)]
pub struct RegInfo {
    pub ty: Ty,
    /// The PTX name (or a generated one for temporaries).
    pub name: String,
}

#[derive(Clone, Debug)]
pub struct BlockData {
    /// The PTX label that starts this block, if any.
    pub label: Option<String>,
    pub ops: Vec<Op>,
    pub term: Terminator,
    /// Span of the terminator's PTX instruction.
    pub term_span: Span,
}

/// How a block ends.
#[derive(Clone, Debug, PartialEq)]
pub enum Terminator {
    Jump(Block),
    /// Conditional branch on a predicate register (`@p bra` / `@!p bra`).
    Branch {
        cond: Reg,
        negated: bool,
        taken: Block,
        not_taken: Block,
        /// `bra.uni`: the program asserts the branch is warp-uniform.
        uniform: bool,
    },
    /// `brx.idx`: jump to `targets[index]`.
    Switch {
        index: Reg,
        targets: Vec<Block>,
    },
    /// Return from a `.func` (or end of the kernel for lanes executing it).
    Ret,
    /// `exit`: the executing threads finish.
    Exit,
    /// `trap`: abort the launch with an error.
    Trap,
    /// `brkpt`: a breakpoint; with no debugger attached (warpjit has none)
    /// the launch stops with an error, as a GPU raises an exception
    /// (ptxas makes it the same `BPT.TRAP` as `trap`).
    Brkpt,
    /// Not yet terminated (only during lowering; the verifier rejects it).
    Unset,
}

impl Terminator {
    /// Whether this terminator of `block` is a jump to the block right
    /// after it: no instruction on the hardware (the timing model gives it
    /// no issue slot, and the executor runs it with the step before).
    pub fn falls_through(&self, block: Block) -> bool {
        use cranelift_codegen::entity::EntityRef;
        matches!(self, Terminator::Jump(t) if t.index() == block.index() + 1)
    }
}

/// A source operand.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Src {
    Reg(Reg),
    /// Immediate bits (already converted to the op's type).
    Imm(u64),
    /// The device address of a global plus a byte offset.
    Global(GlobalId, i64),
    /// The address of a function (for indirect calls).
    Func(FuncId),
    /// The local-space address of this frame's byte `offset`.
    FrameAddr(u32),
}

/// A predicate guard on an op.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Guard {
    pub reg: Reg,
    pub negated: bool,
}

/// The callee of a call.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Callee {
    Direct(FuncId),
    /// Through a register holding a function address.
    Indirect(Reg),
    /// The device runtime's `vprintf(format, args)`.
    Printf,
    /// The device runtime's `__assertfail(message, file, line, function, char_size)`.
    AssertFail,
    /// Device-side `malloc(size)`: a block of the launch's device heap, or 0.
    Malloc,
    /// Device-side `free(ptr)`.
    Free,
}

/// An operation. Sources and destinations are in `srcs`/`dsts`; what they
/// mean is documented per kind.
#[derive(Clone, Debug, PartialEq)]
pub enum OpKind {
    /// `d = a`.
    Mov,
    /// `d = a op b`.
    IntBin { op: IntBinOp, ty: Ty },
    /// `d = op a`.
    IntUn { op: IntUnOp, ty: Ty },
    /// `d = op(a, b, c[, d])`.
    IntTern { op: IntTernOp, ty: Ty },
    /// `add.cc`/`addc`/`sub.cc`/`subc`: srcs `a, b[, cc]`, dsts `d[, cc]`.
    AddCarry {
        ty: Ty,
        subtract: bool,
        carry_in: bool,
        carry_out: bool,
    },
    /// `mad.cc`/`madc`: srcs `a, b, c[, cc]`, dsts `d[, cc]`.
    MadCarry {
        hi: bool,
        ty: Ty,
        carry_in: bool,
        carry_out: bool,
    },
    /// `d = op(a[, b[, c]])`.
    Float {
        op: FloatOp,
        ty: Ty,
        mods: FloatMods,
    },
    /// `setp`: srcs `a, b[, c]`, dsts `p[, q]` (q = !cmp combined with c).
    Setp {
        cmp: CmpOp,
        ty: Ty,
        ftz: bool,
        combine: Option<BoolOp>,
    },
    /// `set.cmp.dty.sty`: srcs `a, b[, c]`, dst `d` (all ones / 1.0 when true).
    Set {
        cmp: CmpOp,
        dty: Ty,
        sty: Ty,
        ftz: bool,
        combine: Option<BoolOp>,
    },
    /// A video instruction (`vadd`...`vset4`, PTX ISA §9.7.16): srcs `a, b,
    /// c` (32-bit; `c` is 0 when the instruction has none), dst `d`; the
    /// value is [`crate::sem::video::eval`].
    Video(crate::sem::video::VideoOp),
    /// `selp`: srcs `a, b, p`: `p ? a : b`.
    Selp,
    /// `slct.dty.cty`: srcs `a, b, c`: `c >= 0 ? a : b`.
    Slct { cty: Ty, ftz: bool },
    /// `testp`: src `a`, dst `p`.
    Testp { prop: TestProp, ty: Ty },
    /// `cvt`: src `a` (for packed destinations, two sources), dst `d`.
    Cvt { dst: Ty, src: Ty, mods: CvtMods },
    /// Pack `count` elements of `bits` each (srcs, low first) into `d`.
    Pack { bits: u32 },
    /// Unpack `a` into dsts of `bits` each (low first).
    Unpack { bits: u32 },
    /// `d = special register`.
    ReadSpecial(SpecialReg),
    /// Load `dsts.len()` elements of `ty` from `srcs[0] + offset` in `space`.
    /// `poll`: a `.volatile`, `.relaxed` or `.acquire` load of memory other
    /// threads write, what loops that wait for other warps read: it runs in
    /// the warp driver on both engines, and a warp that runs it twice in a
    /// turn gives the other warps theirs.
    Ld {
        space: Space,
        ty: Ty,
        offset: i64,
        poll: bool,
    },
    /// Store srcs[1..] (elements of `ty`) to `srcs[0] + offset` in `space`.
    St { space: Space, ty: Ty, offset: i64 },
    /// Atomic read-modify-write at `srcs[0] + offset`: srcs `addr, b[, c]`,
    /// dsts `[old]` (none for `red`). A vector atomic (`vec` 2, 4 or 8
    /// elements of `ty`; `atom.global.v4.f32.add`, PTX ISA 8.1) has srcs
    /// `addr, b0..b(vec-1)` and dsts `[old0..old(vec-1)]`: the whole vector
    /// is checked as one access (aligned to its size), then each element is
    /// updated atomically on its own. Scalar atomics have `vec` 1.
    Atom {
        space: Space,
        op: AtomOp,
        ty: Ty,
        offset: i64,
        vec: u8,
    },
    /// `cp.async.{ca,cg}.shared.global`: copy `size` bytes from global memory
    /// (`srcs[1] + src_offset`) to shared memory (`srcs[0] + dst_offset`);
    /// only the first `srcs[2]` bytes are read, the rest are zero-filled.
    /// Executed at issue: the copy is complete before any wait can observe it.
    CpAsync {
        size: u32,
        dst_offset: i64,
        src_offset: i64,
    },
    /// `cp.async.bulk` (PTX ISA §9.7.9.25.4): copy `srcs[2]` bytes (a
    /// multiple of 16, both addresses 16-byte aligned) from `src` space
    /// (`srcs[1] + src_offset`) to `dst` space (`srcs[0] + dst_offset`);
    /// global to shared and shared to shared signal completion with
    /// `complete_tx` of that many bytes on the mbarrier at `srcs[3] +
    /// mbarrier_offset` (`mbarrier`); shared to global belongs to a bulk
    /// group. Executed at issue, like `CpAsync`. `multicast`
    /// (`.multicast::cluster`, global to shared): the data and the
    /// `complete_tx` go to the same CTA-relative offsets in every CTA of
    /// the cluster whose rank is set in the 16-bit mask `srcs[4]`.
    CpAsyncBulk {
        dst: Space,
        src: Space,
        dst_offset: i64,
        src_offset: i64,
        mbarrier: Option<i64>,
        multicast: bool,
        /// `cp.reduce.async.bulk`: each element of the destination becomes
        /// `op(old, source element)`, in the element type given as a
        /// `CUtensorMapDataType` value (as `cp.reduce.async.bulk.tensor`'s
        /// maps give it; 10, FLOAT32_FTZ, for `.f32`: its sums flush
        /// subnormals).
        reduce: Option<(AtomOp, u8)>,
    },
    /// `cp.async.bulk.tensor.Nd` tile mode (PTX ISA §9.7.9.25.5) and
    /// `cp.reduce.async.bulk.tensor` (`reduce`): srcs `[smem, tmap,
    /// coords (rank), mbarrier?]`. `load`: the box of the tensor map at
    /// `tmap + tmap_offset` (a generic address; `sem::tensor_map`) at the
    /// signed coordinates goes to shared memory at `smem + smem_offset`
    /// (swizzled as the map says), out-of-bounds elements filled, and the
    /// box's bytes complete on the mbarrier at `srcs[rank+2] + offset`;
    /// otherwise the shared box goes (or, with `reduce`, is combined) into
    /// the in-bounds global elements, in a bulk group. Executed at issue.
    CpAsyncBulkTensor {
        load: bool,
        rank: u8,
        reduce: Option<AtomOp>,
        smem_offset: i64,
        tmap_offset: i64,
        mbarrier: Option<i64>,
        /// `.multicast::cluster` (loads): the box and the `complete_tx` go
        /// to the same CTA-relative offsets in each CTA of the 16-bit mask
        /// `srcs[rank + 3]`.
        multicast: bool,
    },
    /// `tensormap.replace.tile.<field>`: srcs `[addr, value]`; `field` of
    /// the descriptor at `addr + offset` in `space` (global or shared)
    /// becomes `value` (`sem::tensor_map::replace`).
    TensormapReplace {
        field: crate::sem::tensor_map::Field,
        space: Space,
        offset: i64,
    },
    /// `cvt` between a pair of 8-bit floats and f32 or f16x2
    /// (`sem::fp8::eval`): srcs `a` (and `b` for `FromF32`), dst `d`.
    CvtFp8 { form: Fp8Cvt, ty: Fp8, relu: bool },
    /// `cvt.<rounding>{.satfinite}{.relu}.tf32.f32` (`sem::cvt_extra::tf32`):
    /// src `a` (f32 bits), dst `d` (.b32).
    CvtTf32 {
        rounding: Rounding,
        satfinite: bool,
        relu: bool,
    },
    /// `cvt.pack.sat.convertType.s32{.b32}` (`sem::cvt_extra::pack`) with
    /// `convertType` of `bits` bits, `signed` or not: srcs `a, b` and, for
    /// fewer than 16 bits, `c`; dst `d` (.b32).
    CvtPack { bits: u8, signed: bool },
    /// The `mbarrier` family and `cp.async.mbarrier.arrive` (see
    /// `sem::mbarrier`): srcs `addr` then the op's operands (`init`:
    /// `count`; `expect_tx`/`complete_tx`: `txCount`; `arrive`: `count,
    /// txCount`; waits: `state` or `phaseParity`), dsts `[state]` (arrive)
    /// or `[waitComplete]`; `pending_count`: src `state`, dst `count`.
    /// The object must be in shared memory (`space` Shared or Generic).
    Mbarrier {
        op: crate::sem::mbarrier::MbarrierOp,
        space: Space,
        offset: i64,
    },
    /// Texture and surface instructions through object handles
    /// (`tex`, `tld4`, `txq`, `suld`, `sust`, `sured`, `suq`, `istypep`;
    /// see `sem::texture::TexOp` for the operands).
    Texture { op: crate::sem::texture::TexOp },
    /// `ldmatrix.sync.aligned.m8n8.xN{.trans}.b16`: dsts `num` registers per lane;
    /// src `addr` (the row address each of lanes 0..8*num supplies).
    Ldmatrix {
        num: u8,
        trans: bool,
        space: Space,
        offset: i64,
    },
    /// `stmatrix.sync.aligned.m8n8.xN{.trans}.b16`: srcs `addr, r0..r{num-1}`.
    Stmatrix {
        num: u8,
        trans: bool,
        space: Space,
        offset: i64,
    },
    /// `movmatrix.sync.aligned.m8n8.trans.b16`: src `a`, dst `d` (each lane's
    /// two elements of an 8x8 b16 matrix, transposed across the warp).
    Movmatrix,
    /// `mma.sync.aligned`: srcs are the A, B and C fragments' registers in
    /// order (`regs` gives how many of each: A, B, C, D); dsts the D fragment.
    Mma {
        kind: crate::sem::tensor::MmaKind,
        regs: [u8; 4],
    },
    /// `wmma.load.{a,b,c}.sync.aligned`: srcs `addr, stride` (in elements),
    /// dsts the fragment's registers (layout: [`crate::sem::wmma`]).
    WmmaLoad {
        frag: crate::sem::wmma::WmmaFrag,
        row_major: bool,
        space: Space,
        offset: i64,
    },
    /// `wmma.store.d.sync.aligned`: srcs `addr, stride, regs...`.
    WmmaStore {
        frag: crate::sem::wmma::WmmaFrag,
        row_major: bool,
        space: Space,
        offset: i64,
    },
    /// `wmma.mma.sync.aligned`: srcs the A, B and C fragments' registers in
    /// order (`regs`: how many of each, A, B, C, D), dsts the D fragment.
    WmmaMma {
        kind: crate::sem::wmma::WmmaKind,
        regs: [u8; 4],
    },
    /// `wgmma.mma_async.sync.aligned.m64nNk16.f32`: srcs `desc_a, desc_b,
    /// scale_d, acc...` (the accumulators are read and written), dsts `acc...`.
    /// Each warp computes its 16 rows of the warpgroup's D.
    Wgmma { kind: crate::sem::wgmma::WgmmaKind },
    /// `cvta`: convert between a space's addresses and generic ones.
    Cvta { space: Space, to_generic: bool },
    /// `isspacep.space`: src `a`, dst `p`. `cluster`: `.shared::cluster`,
    /// any CTA of the cluster's shared memory (`.shared` is the CTA's own).
    Isspacep { space: Space, cluster: bool },
    /// `mapa{.shared::cluster}`: srcs `a, rank`, dst `d`: the address of
    /// the same location in the shared memory of the cluster's CTA
    /// `rank` (`generic`: generic addresses in and out; else
    /// shared::cluster ones; encoding in `interp::cluster`).
    Mapa { generic: bool },
    /// `getctarank{.shared::cluster}`: src `a`, dst `d`: the rank of the
    /// CTA whose shared memory `a` names.
    Getctarank { generic: bool },
    /// `barrier.cluster.arrive` (`wait` false) / `.wait`: every thread of
    /// every CTA of the cluster arrives before a wait completes.
    ClusterBar { wait: bool },
    /// `elect.sync d|p, membermask`: srcs `membermask`, dsts `d, p`: the
    /// lowest active lane in the mask is elected.
    Elect,
    /// `shfl.sync`: srcs `a, b, c, membermask`, dsts `d[, p]`.
    Shfl { mode: ShflMode },
    /// `vote.sync`: srcs `a (pred), membermask`, dst `d`.
    Vote { mode: VoteMode, negate_src: bool },
    /// `match.any/all.sync`: srcs `a, membermask`, dsts `d[, p]`.
    Match { all: bool, ty: Ty },
    /// `redux.sync`: srcs `a, membermask`, dst `d`. `abs` and `nan` are
    /// `.f32`'s `.abs` and `.NaN` (`op` `Min` or `Max`; `sem::float::redux_f32`).
    Redux {
        op: AtomOp,
        ty: Ty,
        abs: bool,
        nan: bool,
    },
    /// `activemask.b32`: dst `d`.
    Activemask,
    /// `bar.warp.sync membermask`.
    WarpSync,
    /// CTA barrier: srcs `id[, count][, pred]`, dsts `[d]` for reductions.
    Bar {
        kind: BarKind,
        has_count: bool,
        negate_pred: bool,
    },
    /// Memory fences (`membar`, `fence`): ordering only.
    Fence,
    /// Call: copies each of `args` (caller frame offset, callee frame offset,
    /// size) into the callee's parameter area, runs it, and copies each of
    /// `rets` (callee offset, caller offset, size) back.
    Call {
        callee: Callee,
        args: Vec<(u32, u32, u32)>,
        rets: Vec<(u32, u32, u32)>,
    },
    /// `alloca` (src `size`, dst `ptr`), `stacksave` (dst `d`),
    /// `stackrestore` (src `a`): the thread's stack pointer, a local-space
    /// address above its frame (`interp::warp::Frame::top`); `ty` is
    /// `.u32` or `.u64`.
    Stack { op: StackOp, ty: Ty },
    /// `nanosleep`: no effect on values; the warp gives the other warps
    /// of its CTA a turn, as a thread that sleeps while it waits for them.
    Nanosleep,
    /// No effect (prefetch, pmevent...).
    Nop,
}

/// One micro-op.
#[derive(Clone, Debug, PartialEq)]
pub struct Op {
    pub kind: OpKind,
    pub dsts: Vec<Reg>,
    pub srcs: Vec<Src>,
    pub guard: Option<Guard>,
    /// The functional-unit class the op issues to.
    pub unit: Unit,
    /// How many hardware instructions this op stands for (its issue cost).
    pub cost: u16,
    /// The PTX instruction it came from.
    pub span: Span,
    /// The high-level source line of the last `.loc` before it: (file index, line).
    pub loc: Option<(u32, u32)>,
    /// The instruction's `.sem` qualifier (memory ops; `Plain` elsewhere).
    pub order: MemOrder,
}

/// Per-block facts used by the executors.
pub type BlockMap<T> = SecondaryMap<Block, T>;
