//! A bandwidth-limited resource shared by all SMs (a DRAM, an L2 slice), as
//! a first-come queue that tolerates requests out of time order.
//!
//! Each request occupies the resource for its own cost in cycles. Time is
//! cut into windows of [`WINDOW`] cycles. Each window knows when the
//! resource is free for it (`base`: its start, or later when the windows
//! before it left a backlog), the work booked by requests arriving in it
//! (`used`), and when its last booked request ends (`last`). A request
//! arriving at cycle `t` starts at the latest of `t`, `base + used` (the
//! work booked before it in its window is done first: work is conserved,
//! so a saturated resource delivers exactly its bandwidth) and `last`
//! (first come, first served). Requests that arrive in time order are
//! served exactly as by a single first-come queue; a request that arrives
//! after later ones were booked (SMs are simulated a quantum apart) queues
//! behind what was booked in its window, and never behind later windows.
//! Windows behind every SM's clock are dropped ([`Server::advance`]).

use std::collections::VecDeque;

/// Cycles per window.
pub const WINDOW: u64 = 256;

#[derive(Clone, Copy, Debug, Default)]
struct Window {
    base: f64,
    used: f64,
    last: f64,
}

impl Window {
    /// When the work booked in this window (after its backlog) is done.
    fn end(&self) -> f64 {
        self.base + self.used
    }
}

#[derive(Clone, Debug, Default)]
pub struct Server {
    /// The window index of `windows[0]`.
    first: u64,
    windows: VecDeque<Window>,
}

impl Server {
    pub fn new() -> Server {
        Server::default()
    }

    /// The window `w` (at or after `first`), created as needed.
    fn window(&mut self, w: u64) -> &mut Window {
        let i = (w - self.first) as usize;
        while self.windows.len() <= i {
            let start = ((self.first + self.windows.len() as u64) * WINDOW) as f64;
            let carried = self.windows.back().map_or(0.0, Window::end);
            self.windows.push_back(Window {
                base: carried.max(start),
                used: 0.0,
                last: 0.0,
            });
        }
        &mut self.windows[i]
    }

    /// Books a request arriving at cycle `now` that occupies the resource
    /// for `cost` cycles; returns the cycles it waits before it starts.
    pub fn book(&mut self, now: u64, cost: f64) -> u64 {
        let w = (now / WINDOW).max(self.first);
        let win = self.window(w);
        let start = (now as f64).max(win.end()).max(win.last);
        win.used += cost;
        win.last = start + cost;
        // The backlog moves the windows after it.
        let mut i = (w - self.first) as usize;
        while i + 1 < self.windows.len() {
            let start_next = ((self.first + i as u64 + 1) * WINDOW) as f64;
            let base = self.windows[i].end().max(start_next);
            if base <= self.windows[i + 1].base {
                break;
            }
            self.windows[i + 1].base = base;
            i += 1;
        }
        (start - now as f64) as u64
    }

    /// The cycles a request arriving at `now` would wait (nothing booked).
    pub fn backlog(&mut self, now: u64) -> f64 {
        let w = (now / WINDOW).max(self.first);
        let win = self.window(w);
        (win.end().max(win.last) - now as f64).max(0.0)
    }

    /// Forgets the windows that end at or before `now` (no request earlier
    /// than `now` will come); their backlog is in the next window's base.
    /// Cheap when there is nothing to forget: owners call it before each
    /// booking rather than every server every quantum.
    #[inline]
    pub fn advance(&mut self, now: u64) {
        if now / WINDOW > self.first {
            self.forget(now / WINDOW);
        }
    }

    fn forget(&mut self, keep: u64) {
        if self.windows.is_empty() {
            self.first = self.first.max(keep);
            return;
        }
        while self.first < keep {
            let old = self.windows.pop_front().unwrap();
            self.first += 1;
            if self.windows.is_empty() {
                let start = (self.first * WINDOW) as f64;
                self.windows.push_back(Window {
                    base: old.end().max(start),
                    used: 0.0,
                    last: 0.0,
                });
                if self.first < keep {
                    // Jump over empty windows, keeping the backlog.
                    let backlog = self.windows[0].base;
                    self.first = keep;
                    self.windows[0].base = backlog.max((keep * WINDOW) as f64);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// In time order it is a single first-come queue.
    #[test]
    fn in_order_requests_queue_first_come() {
        let mut q = Server::new();
        let mut free = 0.0f64;
        for t in [0u64, 0, 1, 2, 250, 251, 600, 600, 600, 1000, 5000, 5001] {
            let cost = if t % 2 == 0 { 4.0 } else { 2.5 };
            let start = free.max(t as f64);
            free = start + cost;
            assert_eq!(q.book(t, cost), (start - t as f64) as u64, "request at {t}");
            q.advance(t);
        }
    }

    /// A request behind in time does not wait for later bookings.
    #[test]
    fn late_request_queues_behind_earlier_time_only() {
        let mut q = Server::new();
        for _ in 0..100 {
            q.book(1000, 2.0);
        }
        assert_eq!(q.book(10, 2.0), 0, "window 0 is free");
        assert_eq!(q.book(10, 2.0), 2, "behind the first request at 10");
        assert!(q.book(1000, 2.0) >= 200, "behind the hundred at 1000");
    }

    /// A saturated queue carries its backlog across windows.
    #[test]
    fn backlog_crosses_windows() {
        let mut q = Server::new();
        for _ in 0..100 {
            q.book(0, 10.0);
        }
        // 100 requests x 10 cycles: the next starts at 1000.
        assert_eq!(q.book(300, 10.0), 700);
        q.advance(900);
        assert_eq!(q.book(900, 10.0), 110);
    }

    /// Work booked in a later window before an earlier window's backlog
    /// reached it is still done: a saturated resource delivers exactly its
    /// bandwidth whatever the order of arrival.
    #[test]
    fn work_is_conserved_across_windows() {
        let mut q = Server::new();
        // An SM ahead books 50 requests in window 1 first ...
        for _ in 0..50 {
            q.book(300, 4.0);
        }
        // ... then one behind books 100 in window 0, a backlog of 400
        // cycles that runs into window 1.
        for _ in 0..100 {
            q.book(0, 4.0);
        }
        // Window 1's work (200) comes after the backlog (ends at 400).
        assert_eq!(q.book(300, 4.0), 600 - 300);
        // Pseudo-random arrivals, out of order within a few windows, keep
        // the resource busy: the last request ends at the total work.
        let mut q = Server::new();
        let mut x = 12345u64;
        let mut end = 0u64;
        for k in 0..4000u64 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let t = k / 4 + (x >> 60); // within 16 cycles of in order
            end = end.max(t + q.book(t, 2.0) + 2);
        }
        assert_eq!(end, 8000);
    }
}
