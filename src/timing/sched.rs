//! One warp scheduler of the cycle model: which of its warps are ready to
//! issue (a bit set per unit class), which wait for operands and until
//! when, how its units are booked, and the choice among the ready warps by
//! policy. Warps are named by their local index on the scheduler (context
//! slot / schedulers per SM).

use super::arch::Policy;
use super::report::Stall;

/// The booking of one unit class of a scheduler.
#[derive(Clone, Copy, Default)]
pub(super) struct UnitState {
    /// A multi-cycle dispatch holds the units until this cycle.
    pub busy_until: u64,
    /// The cycle `used` counts single-cycle issues in.
    pub cycle: u64,
    pub used: u32,
}

pub(super) struct Sched {
    /// Per unit class: the warps whose current instruction (of that class)
    /// has its operands ready.
    ready: [u64; 8],
    /// The classes whose `ready` set is not empty (bit set).
    classes: u8,
    /// The unit class of each warp's current instruction. (Local indices
    /// are below 64 and classes below 8 (presets are checked for it), so
    /// indices here are masked rather than bounds-checked.)
    class: [u8; 64],
    /// Warps waiting for operands, and per warp the cycle they are ready.
    waiting: u64,
    ready_at: [u64; 64],
    /// The first waiting warp to become ready: (cycle, local index), kept
    /// exact (`u64::MAX` when none waits).
    pub next: (u64, u32),
    /// Warps waiting at barriers.
    pub at_barrier: u32,
    /// Loose round-robin: the local index the next scan starts at.
    pub rr: u32,
    /// The context slot issued from last (greedy-then-oldest).
    pub last: Option<usize>,
    /// The last cycle this scheduler issued in.
    pub issued_at: u64,
    /// Per unit class, its units (`Units::pipes`: classes sharing units
    /// book the same state).
    pipe: [u8; 8],
    units: [UnitState; 8],
    /// The stall this scheduler has been in since `stall_since` (with the
    /// instruction it is charged to, `usize::MAX` for none).
    pub stall_since: u64,
    pub stall: Stall,
    pub stall_cur: usize,
}

impl Sched {
    pub fn new(pipe: [u8; 8]) -> Sched {
        Sched {
            pipe,
            ready: [0; 8],
            classes: 0,
            class: [0; 64],
            waiting: 0,
            ready_at: [0; 64],
            next: (u64::MAX, 0),
            at_barrier: 0,
            rr: 0,
            last: None,
            issued_at: u64::MAX,
            units: [UnitState::default(); 8],
            stall_since: 0,
            stall: Stall::NoEligibleWarp,
            stall_cur: usize::MAX,
        }
    }

    /// Files warp `local`, whose instruction is of `class`, as ready.
    #[inline]
    pub fn set_ready(&mut self, local: u32, class: u8) {
        self.class[local as usize & 63] = class;
        self.ready[class as usize & 7] |= 1 << local;
        self.classes |= 1 << class;
    }

    /// Files warp `local` as waiting for its operands until `at`.
    #[inline]
    pub fn set_waiting(&mut self, local: u32, class: u8, at: u64) {
        self.class[local as usize & 63] = class;
        self.waiting |= 1 << local;
        self.ready_at[local as usize & 63] = at;
        if (at, local) < self.next {
            self.next = (at, local);
        }
    }

    /// Takes warp `local` (just picked) off its ready set.
    #[inline]
    pub fn take(&mut self, local: u32) {
        let c = self.class[local as usize & 63] as usize & 7;
        self.ready[c] &= !(1 << local);
        if self.ready[c] == 0 {
            self.classes &= !(1 << c);
        }
    }

    /// Moves the waiting warps whose operands are ready at `now` to the
    /// ready sets.
    #[inline]
    pub fn wake(&mut self, now: u64) {
        if self.next.0 > now {
            return;
        }
        let mut w = self.waiting;
        let mut next = (u64::MAX, 0);
        while w != 0 {
            let local = w.trailing_zeros();
            w &= w - 1;
            let at = self.ready_at[local as usize & 63];
            if at <= now {
                self.waiting &= !(1 << local);
                let c = self.class[local as usize & 63];
                self.ready[c as usize & 7] |= 1 << local;
                self.classes |= 1 << c;
            } else if (at, local) < next {
                next = (at, local);
            }
        }
        self.next = next;
    }

    /// Whether a waiting warp other than `except` has its operands by
    /// cycle `at`.
    #[inline]
    pub fn waiting_ready_by(&self, at: u64, except: u32) -> bool {
        let mut w = self.waiting & !(1 << except);
        while w != 0 {
            let local = w.trailing_zeros();
            w &= w - 1;
            if self.ready_at[local as usize & 63] <= at {
                return true;
            }
        }
        false
    }

    /// Whether any warp is ready (the class mask is exact).
    #[inline]
    pub fn has_ready(&self) -> bool {
        self.classes != 0
    }

    /// Every ready warp, whatever its class.
    #[inline]
    pub fn any_ready(&self) -> u64 {
        let mut all = 0;
        let mut c = self.classes;
        while c != 0 {
            all |= self.ready[c.trailing_zeros() as usize & 7];
            c &= c - 1;
        }
        all
    }

    /// The units an instruction of `class` books.
    #[inline]
    pub fn unit(&self, class: usize) -> &UnitState {
        &self.units[self.pipe[class & 7] as usize & 7]
    }

    #[inline]
    pub fn unit_mut(&mut self, class: usize) -> &mut UnitState {
        &mut self.units[self.pipe[class & 7] as usize & 7]
    }

    /// Whether a unit of `class` can take an instruction at `now`.
    #[inline]
    pub fn unit_free(&self, class: usize, now: u64, per_cycle: u32) -> bool {
        let u = self.unit(class);
        u.busy_until <= now && (u.cycle != now || u.used < per_cycle)
    }

    /// The ready warps whose units are free at `now` (`per_cycle`: issues
    /// per cycle per class); `wake` learns when one could issue.
    #[inline]
    pub fn candidates(&self, now: u64, per_cycle: &[u32; 8], wake: &mut u64) -> u64 {
        *wake = (*wake).min(self.next.0);
        let mut bits = 0u64;
        let mut classes = self.classes;
        while classes != 0 {
            let c = classes.trailing_zeros() as usize & 7;
            classes &= classes - 1;
            let unit = *self.unit(c);
            if unit.busy_until > now {
                *wake = (*wake).min(unit.busy_until);
            } else if unit.cycle == now && unit.used >= per_cycle[c] {
                *wake = (*wake).min(now + 1);
            } else {
                bits |= self.ready[c];
            }
        }
        bits
    }

    /// The local index to issue from among `bits` (not empty) by `policy`;
    /// `oldest` orders warps for greedy-then-oldest, `local_of` gives a
    /// context slot's local index.
    #[inline]
    pub fn choose(
        &self,
        policy: Policy,
        mut bits: u64,
        local_of: impl Fn(usize) -> u32,
        oldest: impl Fn(u32) -> (u64, usize),
    ) -> u32 {
        match policy {
            Policy::LooseRoundRobin => {
                // From `rr` upwards, then wrapping around.
                let high = if self.rr >= 64 {
                    0
                } else {
                    bits & (u64::MAX << self.rr)
                };
                if high != 0 {
                    high.trailing_zeros()
                } else {
                    bits.trailing_zeros()
                }
            }
            Policy::LowestNumbered => bits.trailing_zeros(),
            Policy::GreedyThenOldest => {
                if let Some(last) = self.last {
                    let local = local_of(last);
                    if bits & (1 << local) != 0 {
                        return local;
                    }
                }
                // Oldest: the lowest CTA, then the lowest warp.
                let mut best: Option<((u64, usize), u32)> = None;
                while bits != 0 {
                    let local = bits.trailing_zeros();
                    bits &= bits - 1;
                    let key = oldest(local);
                    if best.is_none_or(|b| (key, local) < b) {
                        best = Some((key, local));
                    }
                }
                best.map(|b| b.1).unwrap_or(0)
            }
        }
    }
}
