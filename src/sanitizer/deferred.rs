//! Checked compiled code's accesses, deferred: compiled code runs lane
//! after lane, the interpreter op by op, so a checked piece or region
//! (`jit::compile_checked`) records its accesses in a [`DeferredLog`] and
//! the hooks ([`super::hooks`]) are called at its end in the interpreter's
//! order, so that both engines' findings are the same.

use super::hooks::{access, atomic, order_of, Spot};
use super::shadow::InitShadow;
use super::shared::Who;
use super::{CtaState, Rw, Site};
use crate::ir::{FuncId, MemOrder, Op};

/// A deferred access's kind ([`Deferred::packed`], bits 8..12): the hook
/// in the low two bits, ...
pub const KIND_READ: u32 = 0;
pub const KIND_WRITE: u32 = 1;
/// An atomic that reads what it updates (all but an exchange) ...
pub const KIND_ATOMIC_READS: u32 = 2;
/// ... and one that does not.
pub const KIND_ATOMIC: u32 = 3;
/// ... and the space: shared memory (offset in the CTA's), the lane's local
/// memory (offset in it), else global (arena offset).
pub const KIND_SHARED: u32 = 4;
pub const KIND_LOCAL: u32 = 8;

/// A checked access compiled code made (`jit::compile_checked`), kept until
/// the compiled piece or loop finished with every lane: compiled code runs
/// lane after lane, the interpreter op by op, so the hooks are called
/// afterwards, in the interpreter's order ([`DeferredLog::replay`]).
/// Written by generated code: the layout is part of its ABI.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Deferred {
    pub op: *const Op,
    /// Arena, shared or local offset (see [`KIND_SHARED`]).
    pub off: u64,
    /// In a loop, a hash of the blocks the lane passed since it began.
    pub path: u64,
    /// The op's place in the lane's run: in a piece, its index from the
    /// piece's first op; in a loop, the lane's steps (ops and terminators)
    /// since the loop began.
    pub step: u32,
    /// The lane (bits 0..8), the kind (8..16: `KIND_*`), the size in
    /// bytes (16..32).
    pub packed: u32,
}

impl Deferred {
    pub const OP: i32 = std::mem::offset_of!(Deferred, op) as i32;
    pub const OFF: i32 = std::mem::offset_of!(Deferred, off) as i32;
    pub const PATH: i32 = std::mem::offset_of!(Deferred, path) as i32;
    pub const STEP: i32 = std::mem::offset_of!(Deferred, step) as i32;
    pub const PACKED: i32 = std::mem::offset_of!(Deferred, packed) as i32;

    /// `packed` less the lane.
    pub const fn pack(kind: u32, size: u64) -> u32 {
        (kind << 8) | ((size as u32) << 16)
    }

    #[inline]
    fn lane(&self) -> u32 {
        self.packed & 0xff
    }

    #[inline]
    fn spot(&self, global_base: u64) -> Spot {
        let kind = (self.packed >> 8) & 0xff;
        if kind & KIND_SHARED != 0 {
            Spot::Shared(self.off as usize)
        } else if kind & KIND_LOCAL != 0 {
            Spot::Local(self.off as usize)
        } else {
            Spot::Global {
                off: self.off,
                addr: global_base.wrapping_add(self.off),
            }
        }
    }
}

/// Where the warp whose accesses are replayed stands.
#[derive(Clone, Copy, Debug)]
pub struct Context {
    /// The warp's index in its CTA.
    pub warp: u32,
    /// The function the code was compiled from.
    pub func: FuncId,
    /// The warp's `bar.warp.sync` count, and its warp-instruction count
    /// before the code ran.
    pub wsync: u32,
    pub instr: u32,
    /// The device address of arena offset 0.
    pub global_base: u64,
}

/// The storage of a warp's deferred accesses of one call of compiled code;
/// reused from call to call and from CTA to CTA. Generated code writes it
/// in one of two ways:
/// - a piece (one run of ops of a block, every lane running its ops in
///   order) gives each of its checked ops a *slot* (at most
///   [`Self::SLOTS`]), writes lane `l`'s access of slot `j` at entry
///   `32 j + l` and sets bit `l` of `masks[j]`: [`Self::replay_piece`];
/// - a loop run lane by lane (`jit` regions) appends its accesses, lane
///   after lane, lanes ascending, each lane's in its order, counting them,
///   at most [`Self::CAP`]: [`Self::replay_loop`].
#[derive(Debug, Default)]
pub struct DeferredLog {
    entries: Vec<Deferred>,
    masks: Vec<u32>,
}

impl DeferredLog {
    /// Entries a call may write.
    pub const CAP: usize = 1 << 14;
    /// Checked ops a piece may hold (`jit::plan::run`).
    pub const SLOTS: usize = 256;

    /// Where generated code writes: the entries (room for [`Self::CAP`])
    /// and the slots' lane masks ([`Self::SLOTS`], all clear).
    pub fn buffers(&mut self) -> (*mut Deferred, *mut u32) {
        if self.entries.capacity() < Self::CAP {
            self.entries.reserve(Self::CAP);
            self.masks.resize(Self::SLOTS, 0);
        }
        (self.entries.as_mut_ptr(), self.masks.as_mut_ptr())
    }

    /// Calls the hooks for a piece's `slots` slots as the interpreter would
    /// have: slot after slot (op after op), lanes ascending, the lanes of a
    /// slot sharing a warp-instruction (`instr`: the context's `instr` plus the entries'
    /// step, the op's index from the piece's first, plus one), up to
    /// `fault` (the (step, lane) of the first fault, where the interpreter
    /// stops). Clears the masks.
    ///
    /// # Safety
    /// Since [`Self::buffers`], the entries the masks name were written,
    /// their ops alive; `slots <= SLOTS`.
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn replay_piece(
        &mut self,
        slots: usize,
        fault: Option<(u32, u32)>,
        san: &mut CtaState,
        init: Option<&InitShadow>,
        ctx: &Context,
    ) {
        let entries = std::slice::from_raw_parts(self.entries.as_ptr(), Self::CAP);
        let until = fault.unwrap_or((u32::MAX, u32::MAX));
        let mut group = Group::new(san, init, ctx);
        for (j, mask) in self.masks[..slots].iter_mut().enumerate() {
            let mut m = std::mem::take(mask);
            if m == 0 {
                continue;
            }
            let row = &entries[j * 32..j * 32 + 32];
            group.start(&row[m.trailing_zeros() as usize]);
            while m != 0 {
                let d = &row[m.trailing_zeros() as usize];
                m &= m - 1;
                if (d.step, d.lane()) >= until {
                    break;
                }
                group.hook(d);
            }
        }
    }

    /// Calls the hooks for a loop's `len` appended entries (`full`: more
    /// were made than [`Self::CAP`]) as the interpreter would have: by
    /// step, lanes ascending within a step, lanes of one step sharing a
    /// warp-instruction (`instr`: the context's plus the step, plus one), when
    /// that is SIMT execution's order, that is when every lane's k-th
    /// access is the same op, at the same step, after the same blocks (the
    /// lanes followed one path until each left the loop, so they made it
    /// in one warp-instruction). Otherwise, or when `full`, this calls
    /// nothing and returns false, and the driver interprets the loop
    /// instead.
    ///
    /// # Safety
    /// The first `len` entries (at most `CAP`) were written since
    /// [`Self::buffers`], their ops alive.
    pub unsafe fn replay_loop(
        &mut self,
        len: usize,
        full: bool,
        san: &mut CtaState,
        init: Option<&InitShadow>,
        ctx: &Context,
    ) -> bool {
        if full {
            return false;
        }
        let entries = std::slice::from_raw_parts(self.entries.as_ptr(), len.min(Self::CAP));
        // Each lane's run of entries: [start, end).
        let mut runs: Vec<(usize, usize)> = Vec::with_capacity(32);
        for (i, e) in entries.iter().enumerate() {
            match runs.last_mut() {
                Some((start, end)) if entries[*start].lane() == e.lane() => *end = i + 1,
                _ => runs.push((i, i + 1)),
            }
        }
        let longest = runs.iter().map(|(s, e)| e - s).max().unwrap_or(0);
        for k in 0..longest {
            let mut at = runs
                .iter()
                .filter(|(s, e)| k < e - s)
                .map(|(s, _)| &entries[s + k]);
            let first = at.next().unwrap();
            if at.any(|e| e.op != first.op || e.step != first.step || e.path != first.path) {
                return false;
            }
        }
        let mut group = Group::new(san, init, ctx);
        for k in 0..longest {
            let mut first = true;
            for &(s, e) in &runs {
                if k < e - s {
                    let d = &entries[s + k];
                    if first {
                        group.start(d);
                        first = false;
                    }
                    group.hook(d);
                }
            }
        }
        true
    }
}

/// The hooks of a replay, with what the accesses of one warp-instruction
/// share.
struct Group<'a, 'b, 'c> {
    san: &'a mut CtaState,
    init: Option<&'b InitShadow>,
    ctx: &'c Context,
    who: Who,
    order: MemOrder,
}

impl<'a, 'b, 'c> Group<'a, 'b, 'c> {
    fn new(san: &'a mut CtaState, init: Option<&'b InitShadow>, ctx: &'c Context) -> Self {
        Group {
            san,
            init,
            ctx,
            who: Who {
                thread: 0,
                wsync: ctx.wsync,
                instr: 0,
                site: Site {
                    func: ctx.func,
                    span: Default::default(),
                    loc: None,
                },
            },
            order: MemOrder::Plain,
        }
    }

    /// Starts the warp-instruction `d` is an access of.
    fn start(&mut self, d: &Deferred) {
        // SAFETY: (`DeferredLog::replay_*`) the op is alive.
        let op = unsafe { &*d.op };
        self.who = Who {
            thread: 0,
            wsync: self.ctx.wsync,
            instr: self.ctx.instr.wrapping_add(d.step).wrapping_add(1),
            site: Site {
                func: self.ctx.func,
                span: op.span,
                loc: op.loc,
            },
        };
        self.order = order_of(op);
    }

    /// Calls the hook of `d`, an access of the current warp-instruction.
    #[inline(always)]
    fn hook(&mut self, d: &Deferred) {
        let who = Who {
            thread: self.ctx.warp * 32 + d.lane(),
            ..self.who
        };
        let spot = d.spot(self.ctx.global_base);
        let (size, order) = ((d.packed >> 16) as u64, self.order);
        match (d.packed >> 8) & 3 {
            KIND_READ => access(self.san, self.init, spot, size, Rw::Read, order, &who),
            KIND_WRITE => access(self.san, self.init, spot, size, Rw::Write, order, &who),
            KIND_ATOMIC_READS => atomic(self.san, self.init, spot, size, true, order, &who),
            _ => atomic(self.san, self.init, spot, size, false, order, &who),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::front::Span;
    use cranelift_codegen::entity::EntityRef;

    fn op_at(start: u32) -> Op {
        Op {
            kind: crate::ir::OpKind::Nop,
            dsts: Vec::new(),
            srcs: Vec::new(),
            guard: None,
            unit: crate::ir::Unit::Int,
            cost: 1,
            span: Span {
                start,
                end: start + 1,
            },
            loc: None,
            order: MemOrder::Plain,
        }
    }

    /// A local-memory write by `lane` of 4 bytes at `off`.
    fn write(op: &Op, lane: u32, step: u32, path: u64, off: u64) -> Deferred {
        Deferred {
            op,
            off,
            path,
            step,
            packed: lane | Deferred::pack(KIND_WRITE | KIND_LOCAL, 4),
        }
    }

    fn state() -> CtaState {
        let mut san = CtaState::default();
        san.local.reset(true);
        san
    }

    fn ctx() -> Context {
        Context {
            warp: 0,
            func: FuncId::new(0),
            wsync: 0,
            instr: 0,
            global_base: 0,
        }
    }

    #[test]
    fn a_piece_replays_up_to_its_first_fault() {
        let (a, b) = (op_at(10), op_at(20));
        let mut log = DeferredLog::default();
        let (entries, masks) = log.buffers();
        // Slot 0 (op a) for lanes 0..8, slot 1 (op b) for lanes 0..8; the
        // first fault is lane 4 at op b (step 1).
        unsafe {
            for lane in 0..8 {
                *entries.add(lane as usize) = write(&a, lane, 0, 0, 0);
                *entries.add(32 + lane as usize) = write(&b, lane, 1, 0, 8);
            }
            *masks = 0xff;
            *masks.add(1) = 0xff;
            let mut san = state();
            log.replay_piece(2, Some((1, 4)), &mut san, None, &ctx());
            for lane in 0..8 {
                assert!(!san.local.unwritten(lane, 0, 4), "op a, lane {lane}");
                assert_eq!(
                    san.local.unwritten(lane, 8, 4),
                    lane >= 4,
                    "op b, lane {lane}"
                );
            }
            assert_eq!(*masks, 0, "the masks are cleared");
        }
    }

    #[test]
    fn a_loop_replays_only_when_its_lanes_followed_one_path() {
        let (a, b) = (op_at(10), op_at(20));
        let mut log = DeferredLog::default();
        let mut san = state();
        // Lanes 1 and 2 on one path; lane 2 leaves after its first access.
        let (entries, _) = log.buffers();
        let one_path = [
            write(&a, 1, 3, 7, 0),
            write(&b, 1, 9, 8, 8),
            write(&a, 2, 3, 7, 0),
        ];
        unsafe {
            std::ptr::copy_nonoverlapping(one_path.as_ptr(), entries, 3);
            assert!(log.replay_loop(3, false, &mut san, None, &ctx()));
        }
        assert!(!san.local.unwritten(1, 8, 4) && !san.local.unwritten(2, 0, 4));
        // Lanes that took different blocks before an access (another path
        // hash), or made another op's access at a step, are interpreted
        // instead: nothing replayed.
        for diverged in [
            write(&a, 2, 3, 9, 16),
            write(&b, 2, 3, 7, 16),
            write(&a, 2, 4, 7, 16),
        ] {
            let mut san = state();
            let (entries, _) = log.buffers();
            unsafe {
                *entries = write(&a, 1, 3, 7, 16);
                *entries.add(1) = diverged;
                assert!(!log.replay_loop(2, false, &mut san, None, &ctx()));
            }
            assert!(san.local.unwritten(1, 16, 4) && san.local.unwritten(2, 16, 4));
        }
        // A log that overflowed is not replayed either.
        let mut san = state();
        let (entries, _) = log.buffers();
        unsafe {
            *entries = write(&a, 1, 3, 7, 24);
            assert!(!log.replay_loop(1, true, &mut san, None, &ctx()));
        }
        assert!(san.local.unwritten(1, 24, 4));
    }
}
