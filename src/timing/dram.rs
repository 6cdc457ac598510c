//! DRAM bandwidth as a queue that tolerates requests out of time order.
//!
//! The device serves one sector every `cycles_per_sector` cycles. Time is
//! cut into windows of [`WINDOW`] cycles, each remembering when its next
//! sector can start; a sector requested at cycle `t` starts at the later of
//! `t` and that time in `t`'s window (a backlog running past a window's end
//! carries into the next). Requests that arrive in time order are served
//! exactly as by a single first-come queue; a request that arrives after
//! later ones were booked (SMs are simulated a quantum apart) queues only
//! behind what was booked at or before its own time. Windows behind every
//! SM's clock are dropped ([`DramQueue::advance`]).

use std::collections::VecDeque;

/// Cycles per window.
pub const WINDOW: u64 = 256;

pub struct DramQueue {
    cycles_per_sector: f64,
    /// The window index of `free[0]`.
    base: u64,
    /// Per window from `base`: the cycle its next sector can start.
    free: VecDeque<f64>,
}

impl DramQueue {
    pub fn new(cycles_per_sector: f64) -> DramQueue {
        DramQueue {
            cycles_per_sector,
            base: 0,
            free: VecDeque::new(),
        }
    }

    /// The window `w` (at or after `base`), created as needed.
    fn window(&mut self, w: u64) -> &mut f64 {
        let i = (w - self.base) as usize;
        while self.free.len() <= i {
            let start = (self.base + self.free.len() as u64) * WINDOW;
            let carried = self.free.back().copied().unwrap_or(0.0);
            self.free.push_back(carried.max(start as f64));
        }
        &mut self.free[i]
    }

    /// Books a sector requested at cycle `now`; returns the cycles it waits.
    pub fn book(&mut self, now: u64) -> u64 {
        let w = (now / WINDOW).max(self.base);
        let per_sector = self.cycles_per_sector;
        let slot = self.window(w);
        let start = slot.max(now as f64);
        let done = start + per_sector;
        *slot = done;
        // A backlog past the window's end delays the windows after it.
        let mut next = w + 1;
        while done > (next * WINDOW) as f64 && next < self.base + self.free.len() as u64 {
            let s = self.window(next);
            if *s >= done {
                break;
            }
            *s = done;
            next += 1;
        }
        (start - now as f64) as u64
    }

    /// Forgets the windows that end at or before `now` (no request earlier
    /// than `now` will come), carrying their backlog forward.
    pub fn advance(&mut self, now: u64) {
        if self.free.is_empty() {
            self.base = self.base.max(now / WINDOW);
            return;
        }
        while self.free.len() > 1 && (self.base + 1) * WINDOW <= now {
            let carried = self.free.pop_front().unwrap();
            self.base += 1;
            let next = &mut self.free[0];
            *next = next.max(carried);
        }
        if self.free.len() == 1 && (self.base + 1) * WINDOW <= now {
            let carried = self.free[0];
            self.base = now / WINDOW;
            self.free[0] = carried.max((self.base * WINDOW) as f64);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// In time order it is a single first-come queue.
    #[test]
    fn in_order_requests_queue_first_come() {
        let mut q = DramQueue::new(4.0);
        let mut free = 0.0f64;
        for t in [0u64, 0, 1, 2, 250, 251, 600, 600, 600, 1000, 5000, 5001] {
            let start = free.max(t as f64);
            free = start + 4.0;
            assert_eq!(q.book(t), (start - t as f64) as u64, "request at {t}");
            q.advance(t);
        }
    }

    /// A request behind in time does not wait for later bookings.
    #[test]
    fn late_request_queues_behind_earlier_time_only() {
        let mut q = DramQueue::new(2.0);
        for _ in 0..100 {
            q.book(1000);
        }
        assert_eq!(q.book(10), 0, "window 0 is free");
        assert_eq!(q.book(10), 2, "behind the first request at 10");
        assert!(q.book(1000) >= 200, "behind the hundred at 1000");
    }

    /// A saturated queue carries its backlog across windows.
    #[test]
    fn backlog_crosses_windows() {
        let mut q = DramQueue::new(10.0);
        for _ in 0..100 {
            q.book(0);
        }
        // 100 sectors x 10 cycles: the next starts at 1000.
        assert_eq!(q.book(300), 700);
        q.advance(900);
        assert_eq!(q.book(900), 110);
    }
}
