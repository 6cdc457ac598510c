//! The `mbarrier` object (PTX ISA §9.7.13.15): an opaque 64-bit word in
//! shared memory that tracks the phases of a split arrive/wait barrier.
//!
//! The ISA defines its state, not its bits: the current phase's parity, the
//! pending arrival count (arrivals still missing in the current phase), the
//! expected arrival count (what the pending count is reset to when a phase
//! completes) and the transaction count (bytes of asynchronous copies still
//! expected). A phase completes when both the pending arrivals and the
//! transaction count reach zero; the parity then flips, the pending count
//! is reloaded from the expected count and the transaction count restarts
//! at zero. This module keeps that state in the word itself, so every warp
//! of the CTA sees one object, and defines each operation on it; misuse the
//! ISA leaves undefined (arriving more often than pending, counts out of
//! range, an object never initialized) is an error here, never a guess.
//!
//! Encoding (ours; programs must treat the word as opaque): bits 0..21 the
//! pending count, 21..42 the expected count, 42..63 the transaction count
//! (21-bit two's complement), bit 63 the phase parity. The `state` that
//! `mbarrier.arrive` returns is the word before the arrival: its bit 63 is
//! the phase the arrival belongs to, its low bits the pending count then.

/// Largest arrival count (`count` of `init`/`arrive`: [1, 2^20 - 1]).
pub const MAX_COUNT: u32 = (1 << 20) - 1;
/// Largest transaction count magnitude ([-(2^20 - 1), 2^20 - 1]).
pub const MAX_TX: i64 = (1 << 20) - 1;

const FIELD: u32 = 21;
const MASK: u64 = (1 << FIELD) - 1;

/// What an `mbarrier`-family instruction does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MbarrierOp {
    /// `mbarrier.init.b64 [addr], count`.
    Init,
    /// `mbarrier.inval.b64 [addr]`.
    Inval,
    /// `mbarrier.expect_tx.b64 [addr], txCount`.
    ExpectTx,
    /// `mbarrier.complete_tx.b64 [addr], txCount`.
    CompleteTx,
    /// `mbarrier.arrive{.expect_tx}{.noComplete}` and `arrive_drop`:
    /// `state, [addr], count[, txCount]` (`drop`: `arrive_drop`).
    Arrive {
        drop: bool,
        no_complete: bool,
        expect_tx: bool,
    },
    /// `cp.async.mbarrier.arrive{.noinc}.b64 [addr]`: an arrival once the
    /// thread's earlier `cp.async` copies complete (at issue, here).
    CpAsyncArrive { noinc: bool },
    /// `mbarrier.test_wait` / `try_wait` (`{.parity}`): `waitComplete,
    /// [addr], state|phaseParity`.
    Wait { parity: bool, try_wait: bool },
    /// `mbarrier.pending_count.b64 count, state` (no address).
    PendingCount,
}

impl MbarrierOp {
    /// Whether the op changes the object (waits and `pending_count` read).
    pub fn writes(self) -> bool {
        !matches!(self, MbarrierOp::Wait { .. } | MbarrierOp::PendingCount)
    }
}

/// Misuse the ISA leaves undefined.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MbarrierError {
    /// `init` or `arrive` with a count outside [1, 2^20 - 1].
    Count(u64),
    /// More arrivals than the phase still expects (an object never
    /// initialized has none pending).
    TooManyArrivals { count: u32, pending: u32 },
    /// `arrive.noComplete` that would complete the phase.
    Completes,
    /// The transaction count left its range.
    TxRange(i64),
}

impl std::fmt::Display for MbarrierError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MbarrierError::Count(c) => write!(f, "count {c} is outside [1, 2^20 - 1]"),
            MbarrierError::TooManyArrivals { count, pending: 0 } => write!(
                f,
                "{count} arrival(s) on an mbarrier with no pending arrivals (not initialized, or invalidated?)"
            ),
            MbarrierError::TooManyArrivals { count, pending } => write!(
                f,
                "{count} arrival(s) on an mbarrier with only {pending} pending in its phase"
            ),
            MbarrierError::Completes => {
                f.write_str("arrive.noComplete would complete the current phase")
            }
            MbarrierError::TxRange(t) => write!(
                f,
                "transaction count {t} is outside [-(2^20 - 1), 2^20 - 1]"
            ),
        }
    }
}

/// The decoded object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mbarrier {
    pub phase: bool,
    pub pending: u32,
    pub expected: u32,
    pub tx: i64,
}

impl Mbarrier {
    pub fn decode(word: u64) -> Mbarrier {
        let tx = ((word >> (2 * FIELD)) & MASK) as i64;
        Mbarrier {
            phase: word >> 63 != 0,
            pending: (word & MASK) as u32,
            expected: ((word >> FIELD) & MASK) as u32,
            tx: if tx >> (FIELD - 1) != 0 {
                tx - (1 << FIELD)
            } else {
                tx
            },
        }
    }

    pub fn encode(self) -> u64 {
        (self.phase as u64) << 63
            | (self.tx as u64 & MASK) << (2 * FIELD)
            | (self.expected as u64 & MASK) << FIELD
            | (self.pending as u64 & MASK)
    }

    /// `mbarrier.init`: phase 0, `count` expected and pending, no
    /// transactions.
    pub fn init(count: u64) -> Result<Mbarrier, MbarrierError> {
        let count = check_count(count)?;
        Ok(Mbarrier {
            phase: false,
            pending: count,
            expected: count,
            tx: 0,
        })
    }

    /// The phase of parity `parity` has completed: the object has moved
    /// on to the other parity (test_wait's and try_wait's answer).
    pub fn completed(self, parity: bool) -> bool {
        self.phase != parity
    }

    /// Adds `delta` to the transaction count (`expect_tx` adds,
    /// `complete_tx` subtracts), completing the phase when that leaves
    /// nothing pending.
    pub fn add_tx(&mut self, delta: i64) -> Result<(), MbarrierError> {
        let tx = self.tx + delta;
        if tx.abs() > MAX_TX {
            return Err(MbarrierError::TxRange(tx));
        }
        self.tx = tx;
        if delta < 0 {
            self.complete_if_done();
        }
        Ok(())
    }

    /// One arrive-on operation of `count` arrivals; `drop` also lowers the
    /// expected count (for this and later phases) by `count` first;
    /// `no_complete` forbids completing the phase.
    pub fn arrive(
        &mut self,
        count: u64,
        drop: bool,
        no_complete: bool,
    ) -> Result<(), MbarrierError> {
        let count = check_count(count)?;
        if count > self.pending {
            return Err(MbarrierError::TooManyArrivals {
                count,
                pending: self.pending,
            });
        }
        if drop {
            self.expected = self.expected.saturating_sub(count);
        }
        self.pending -= count;
        if no_complete && self.pending == 0 && self.tx == 0 {
            return Err(MbarrierError::Completes);
        }
        self.complete_if_done();
        Ok(())
    }

    fn complete_if_done(&mut self) {
        if self.pending == 0 && self.tx == 0 {
            self.phase = !self.phase;
            self.pending = self.expected;
        }
    }
}

fn check_count(count: u64) -> Result<u32, MbarrierError> {
    if count == 0 || count > MAX_COUNT as u64 {
        return Err(MbarrierError::Count(count));
    }
    Ok(count as u32)
}

/// `mbarrier.pending_count`: the pending arrivals recorded in `state`.
pub fn pending_count(state: u64) -> u32 {
    Mbarrier::decode(state).pending
}

/// The phase parity a `state` from `arrive` belongs to.
pub fn state_parity(state: u64) -> bool {
    state >> 63 != 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encoding_round_trips_every_field() {
        let m = Mbarrier {
            phase: true,
            pending: MAX_COUNT,
            expected: 12345,
            tx: -MAX_TX,
        };
        assert_eq!(Mbarrier::decode(m.encode()), m);
        let z = Mbarrier::init(3).unwrap();
        assert_eq!(Mbarrier::decode(z.encode()), z);
        assert_eq!(pending_count(z.encode()), 3);
        assert!(!state_parity(z.encode()));
    }

    #[test]
    fn a_phase_completes_at_the_last_arrival_and_reloads() {
        let mut m = Mbarrier::init(3).unwrap();
        m.arrive(1, false, false).unwrap();
        m.arrive(1, false, false).unwrap();
        assert!(!m.completed(false));
        m.arrive(1, false, false).unwrap();
        assert!(m.completed(false), "phase 0 done");
        assert!(!m.completed(true), "phase 1 pending");
        assert_eq!((m.pending, m.expected), (3, 3));
        m.arrive(3, false, false).unwrap();
        assert!(m.completed(true) && !m.phase);
    }

    #[test]
    fn transactions_hold_the_phase_until_complete() {
        let mut m = Mbarrier::init(1).unwrap();
        m.add_tx(256).unwrap();
        m.arrive(1, false, false).unwrap();
        assert!(!m.completed(false), "256 bytes still expected");
        m.add_tx(-200).unwrap();
        assert!(!m.completed(false));
        m.add_tx(-56).unwrap();
        assert!(m.completed(false));
        assert_eq!((m.pending, m.tx), (1, 0));
        // complete_tx may run ahead of expect_tx: the count goes negative.
        m.add_tx(-8).unwrap();
        m.add_tx(8).unwrap();
        m.arrive(1, false, false).unwrap();
        assert!(m.completed(true));
        assert_eq!(
            m.add_tx(MAX_TX + 1),
            Err(MbarrierError::TxRange(MAX_TX + 1))
        );
    }

    #[test]
    fn arrive_drop_lowers_later_phases() {
        let mut m = Mbarrier::init(4).unwrap();
        m.arrive(1, true, false).unwrap();
        assert_eq!((m.pending, m.expected), (3, 3));
        m.arrive(3, false, false).unwrap();
        assert_eq!((m.pending, m.expected, m.phase), (3, 3, true));
    }

    #[test]
    fn misuse_is_an_error() {
        assert_eq!(Mbarrier::init(0), Err(MbarrierError::Count(0)));
        assert_eq!(Mbarrier::init(1 << 20), Err(MbarrierError::Count(1 << 20)));
        let mut never = Mbarrier::decode(0);
        assert_eq!(
            never.arrive(1, false, false),
            Err(MbarrierError::TooManyArrivals {
                count: 1,
                pending: 0
            })
        );
        let mut m = Mbarrier::init(2).unwrap();
        assert_eq!(
            m.arrive(3, false, false),
            Err(MbarrierError::TooManyArrivals {
                count: 3,
                pending: 2
            })
        );
        m.arrive(1, false, true).unwrap();
        assert_eq!(m.arrive(1, false, true), Err(MbarrierError::Completes));
    }
}
