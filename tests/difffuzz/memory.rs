//! The generator's statements that touch memory or the whole warp: global,
//! local, shared and generic accesses, warp-synchronous exchanges, warp-wide
//! ops, atomics, calls, printf and deliberate faults (see `gen.rs`).

use super::{Gen, IN_STRIDE};

impl Gen {
    /// A load from this thread's input (in bounds), sometimes through a
    /// generic address; rarely, on purpose, out of bounds.
    pub(super) fn global_load(&mut self) {
        let g = self.guard();
        let off = self.rng.below(IN_STRIDE as u64 / 8) * 8;
        let generic = self.rng.chance(30);
        let base = if generic { "%rd_gin" } else { "%rd_in" };
        let sp = if generic { "" } else { ".global" };
        let s = match self.rng.below(9) {
            // A cache policy and a load that carries it.
            7 if !generic => format!(
                "createpolicy.fractional.L2::evict_first.b64 %rd_t, 0.5;\n\tld.global.L2::cache_hint.u32 {}, [{base}+{off}], %rd_t;",
                self.r()
            ),
            // A kernel parameter read through its generic address.
            8 => format!(
                "mov.b64 %rd_t, p_n;\n\tcvta.param.u64 %rd_t, %rd_t;\n\tld.u32 {}, [%rd_t];",
                self.r()
            ),
            0 => format!("ld{sp}.u32 {}, [{base}+{off}];", self.r()),
            1 => format!(
                "ld{sp}.s8 {}, [{base}+{}];",
                self.r(),
                off + self.rng.below(8)
            ),
            2 => format!("ld{sp}.f32 {}, [{base}+{off}];", self.f()),
            3 => format!("ld{sp}.f64 {}, [{base}+{off}];", self.fd()),
            4 => format!("ld{sp}.u64 {}, [{base}+{off}];", self.rd()),
            5 => {
                let (a, b) = (self.r(), self.r());
                format!("ld{sp}.v2.u32 {{{a}, {b}}}, [{base}+{off}];")
            }
            _ => format!(
                "ld{sp}.s16 {}, [{base}+{}];",
                self.h(),
                off + 2 * self.rng.below(4)
            ),
        };
        // Every line of a multi-line statement takes the guard.
        let s = s.replace("\n\t", &format!("\n\t{g}"));
        self.line(&format!("{g}{s}"));
    }

    /// A load or store of this thread's local array (index masked in bounds).
    pub(super) fn local_access(&mut self) {
        let idx = self.r();
        // `alloca` (PTX ISA 7.3): 8 to 64 bytes a lane, a word stored at
        // the end and the first read back (what an earlier allocation left
        // there when they differ), then the stack given back.
        if self.rng.chance(25) {
            let align = *self.rng.pick(&[8, 16, 64]);
            let (v, d) = (self.rd(), self.rd());
            self.line("stacksave.u64 %rd_t2;");
            self.line(&format!("and.b32 %r_t, {idx}, 7;"));
            self.line("mul.wide.u32 %rd_x, %r_t, 8;");
            self.line("add.u64 %rd_t, %rd_x, 8;");
            self.line(&format!("alloca.u64 %rd_t, %rd_t, {align};"));
            self.line("add.u64 %rd_x, %rd_t, %rd_x;");
            self.line(&format!("st.local.u64 [%rd_x], {v};"));
            if self.rng.chance(50) {
                self.line("cvta.local.u64 %rd_t, %rd_t;");
                self.line(&format!("ld.u64 {d}, [%rd_t];"));
            } else {
                self.line(&format!("ld.local.u64 {d}, [%rd_t];"));
            }
            self.line("stackrestore.u64 %rd_t2;");
            return;
        }
        self.line(&format!("and.b32 %r_t, {idx}, 7;"));
        self.line("mul.wide.u32 %rd_t, %r_t, 8;");
        self.line("add.u64 %rd_t, %rd_loc, %rd_t;");
        if self.rng.chance(50) {
            let v = self.rd();
            self.line(&format!("st.local.u64 [%rd_t], {v};"));
        } else {
            let v = self.rd();
            self.line(&format!("ld.local.u64 {v}, [%rd_t];"));
        }
    }

    /// Shared memory: each thread writes its slot, a barrier, then reads a
    /// neighbour's (only in uniform control flow).
    pub(super) fn shared_phase(&mut self) {
        self.uses_shared = true;
        let v = self.r();
        let generic = self.rng.chance(30);
        if generic {
            self.line("cvta.shared.u64 %rd_t, %rd_sh;");
            self.line(&format!("st.u32 [%rd_t], {v};"));
        } else {
            self.line(&format!("st.shared.u32 [%rd_sh], {v};"));
        }
        self.line("bar.sync 0;");
        let k = self.rng.below(64) + 1;
        self.line(&format!("xor.b32 %r_t, %r_tid, {k};"));
        self.line("rem.u32 %r_t, %r_t, %r_ntid;");
        self.line("mul.wide.u32 %rd_t, %r_t, 4;");
        self.line("mov.u64 %rd_t2, sbuf;");
        self.line("add.u64 %rd_t, %rd_t2, %rd_t;");
        let d = self.r();
        self.line(&format!("ld.shared.u32 {d}, [%rd_t];"));
        self.line("bar.sync 0;");
    }

    /// Warp-wide ops with the full mask (only in uniform control flow).
    pub(super) fn warp_op(&mut self) {
        let (d, a, b) = (self.r(), self.r(), self.r());
        let p = self.p();
        let s = match self.rng.below(9) {
            8 => format!("elect.sync {d}|{p}, 0xffffffff;"),
            0 => {
                let mode = *self.rng.pick(&["up", "down", "bfly", "idx"]);
                let c = if mode == "up" { 0 } else { 31 };
                format!(
                    "shfl.sync.{mode}.b32 {d}|{p}, {a}, {}, {c}, 0xffffffff;",
                    self.rng.below(40)
                )
            }
            1 => {
                let mode = *self.rng.pick(&["all", "any", "uni"]);
                let q = self.p();
                format!("vote.sync.{mode}.pred {p}, {q}, 0xffffffff;")
            }
            2 => {
                let q = self.p();
                format!("vote.sync.ballot.b32 {d}, {q}, 0xffffffff;")
            }
            3 => format!("match.any.sync.b32 {d}, {a}, 0xffffffff;"),
            // redux.f32 (PTX ISA 8.6, sm_100a): NaN, signed-zero and `.abs` rules.
            4 if self.rng.chance(40) => {
                let (fd, fa) = (self.f(), self.f());
                let op = *self.rng.pick(&["min", "max"]);
                let abs = *self.rng.pick(&["", ".abs"]);
                let nan = *self.rng.pick(&["", ".NaN"]);
                format!("redux.sync.{op}{abs}{nan}.f32 {fd}, {fa}, 0xffffffff;")
            }
            4 => {
                let op = *self.rng.pick(&["add", "min", "max", "and", "or", "xor"]);
                let ty = if op == "add" || op == "min" || op == "max" {
                    *self.rng.pick(&["u32", "s32"])
                } else {
                    "b32"
                };
                format!("redux.sync.{op}.{ty} {d}, {a}, 0xffffffff;")
            }
            5 => format!("activemask.b32 {d};"),
            6 => format!("shfl.sync.idx.b32 {d}, {a}, {b}, 31, 0xffffffff;"),
            _ => format!("match.all.sync.b32 {d}|{p}, {a}, 0xffffffff;"),
        };
        self.line(&s);
    }

    /// Lanes of a warp exchanging values through memory without a barrier:
    /// under lockstep semantics a lane reads what its neighbour stored by
    /// the previous instruction (or, loading first, the old value).
    pub(super) fn warp_exchange(&mut self) {
        let k = self.rng.below(31) + 1;
        let (v, d) = (self.r(), self.r());
        let load_first = self.rng.chance(40);
        let (own, other) = match self.rng.below(3) {
            0 => {
                self.line("mov.u64 %rd_x, xbuf;");
                self.line("mul.wide.u32 %rd_t, %r_tid, 4;");
                self.line("add.u64 %rd_t, %rd_x, %rd_t;");
                self.line(&format!("xor.b32 %r_t, %r_tid, {k};"));
                self.line("mul.wide.u32 %rd_t2, %r_t, 4;");
                self.line("add.u64 %rd_t2, %rd_x, %rd_t2;");
                ("st.shared.u32 [%rd_t]", "ld.shared.u32")
            }
            1 => {
                self.line("mov.u64 %rd_x, xbuf;");
                self.line("cvta.shared.u64 %rd_x, %rd_x;");
                self.line("mul.wide.u32 %rd_t, %r_tid, 4;");
                self.line("add.u64 %rd_t, %rd_x, %rd_t;");
                self.line(&format!("xor.b32 %r_t, %r_tid, {k};"));
                self.line("mul.wide.u32 %rd_t2, %r_t, 4;");
                self.line("add.u64 %rd_t2, %rd_x, %rd_t2;");
                ("st.u32 [%rd_t]", "ld.u32")
            }
            _ => {
                let stride = IN_STRIDE;
                self.line(&format!("mul.wide.u32 %rd_t, %r_gid, {stride};"));
                self.line("add.u64 %rd_t, %rd_inbase, %rd_t;");
                self.line(&format!("xor.b32 %r_t, %r_gid, {k};"));
                self.line(&format!("mul.wide.u32 %rd_t2, %r_t, {stride};"));
                self.line("add.u64 %rd_t2, %rd_inbase, %rd_t2;");
                ("st.global.u32 [%rd_t+60]", "ld.global.u32")
            }
        };
        let off = if other == "ld.global.u32" { "+60" } else { "" };
        if load_first {
            self.line(&format!("{other} {d}, [%rd_t2{off}];"));
            self.line(&format!("{own}, {v};"));
        } else {
            self.line(&format!("{own}, {v};"));
            self.line(&format!("{other} {d}, [%rd_t2{off}];"));
        }
    }

    /// An atomic on a small global, shared or generic-addressed area. The
    /// engines run lanes, warps and (in these tests) CTAs in a fixed order,
    /// so even the old values returned must agree.
    pub(super) fn atomic(&mut self) {
        let (v, w, d) = (self.r(), self.r(), self.r());
        let idx = self.r();
        self.line(&format!("and.b32 %r_t, {idx}, 15;"));
        self.line("mul.wide.u32 %rd_t, %r_t, 4;");
        let space = match self.rng.below(3) {
            0 if self.rng.chance(25) => return self.vector_atomic(&idx),
            0 => {
                self.line("add.u64 %rd_t, %rd_at, %rd_t;");
                ".global"
            }
            1 => {
                self.line("mov.u64 %rd_x, xbuf;");
                self.line("add.u64 %rd_t, %rd_x, %rd_t;");
                ".shared"
            }
            _ => {
                self.line("mov.u64 %rd_x, xbuf;");
                self.line("cvta.shared.u64 %rd_x, %rd_x;");
                self.line("add.u64 %rd_t, %rd_x, %rd_t;");
                ""
            }
        };
        let op = *self.rng.pick(&[
            "add.u32", "min.u32", "max.s32", "and.b32", "or.b32", "xor.b32", "exch.b32", "inc.u32",
            "dec.u32", "add.f32",
        ]);
        let g = self.guard();
        match self.rng.below(4) {
            // `red` has no `.exch` (ptxas rejects it).
            0 if op != "exch.b32" => self.line(&format!("{g}red{space}.{op} [%rd_t], {v};")),
            1 => self.line(&format!("{g}atom{space}.cas.b32 {d}, [%rd_t], {v}, {w};")),
            _ => self.line(&format!("{g}atom{space}.{op} {d}, [%rd_t], {v};")),
        }
    }

    /// A vector atomic (PTX ISA 8.1) on a 16-byte slot of the global area
    /// (64 bytes): each element is its own atomic, the old values in order.
    fn vector_atomic(&mut self, idx: &str) {
        self.line(&format!("and.b32 %r_t, {idx}, 3;"));
        self.line("mul.wide.u32 %rd_t, %r_t, 16;");
        self.line("add.u64 %rd_t, %rd_at, %rd_t;");
        let g = self.guard();
        let (a, b, c, e) = (self.f(), self.f(), self.f(), self.f());
        let s = match self.rng.below(4) {
            0 => {
                let (w, x, y, z) = (self.f(), self.f(), self.f(), self.f());
                format!("atom.global.v4.f32.add {{{w}, {x}, {y}, {z}}}, [%rd_t], {{{a}, {b}, {c}, {e}}};")
            }
            1 => format!("red.global.v2.f32.add [%rd_t+8], {{{a}, {b}}};"),
            2 => {
                let (v, w, x, y) = (self.r(), self.r(), self.r(), self.r());
                let op = *self.rng.pick(&["add", "min", "max"]);
                let ty = *self.rng.pick(&["f16x2", "bf16x2"]);
                format!("atom.global.v2.{ty}.{op}.noftz {{{v}, {w}}}, [%rd_t+8], {{{x}, {y}}};")
            }
            _ => {
                let (v, w) = (self.r(), self.r());
                let op = *self.rng.pick(&["add", "min", "max"]);
                format!("red.global.v4.bf16x2.{op}.noftz [%rd_t], {{{v}, {w}, {v}, {w}}};")
            }
        };
        self.line(&format!("{g}{s}"));
    }

    pub(super) fn call(&mut self) {
        self.uses_call = true;
        let (a, b, d) = (self.r(), self.r(), self.r());
        self.line("{");
        self.line(".param .b32 param0;");
        self.line(".param .b32 param1;");
        self.line(&format!("st.param.b32 [param0+0], {a};"));
        self.line(&format!("st.param.b32 [param1+0], {b};"));
        self.line(".param .b32 retval0;");
        self.line("call.uni (retval0), helper, (param0, param1);");
        self.line(&format!("ld.param.b32 {d}, [retval0+0];"));
        self.line("}");
    }

    pub(super) fn printf(&mut self) {
        self.uses_printf = true;
        let (a, f) = (self.r(), self.f());
        let skip = self.label();
        self.line("setp.ne.u32 %p_l, %r_gid, 5;");
        self.line(&format!("@%p_l bra {skip};"));
        self.line(&format!("st.local.u32 [%rd_loc+64], {a};"));
        self.line(&format!("cvt.f64.f32 %fd_t, {f};"));
        self.line("st.local.f64 [%rd_loc+72], %fd_t;");
        self.line("{");
        self.line(".param .b64 param0;");
        self.line(".param .b64 param1;");
        self.line(".param .b32 retval0;");
        self.line("mov.u64 %rd_t, fmt;");
        self.line("cvta.global.u64 %rd_t, %rd_t;");
        self.line("st.param.b64 [param0+0], %rd_t;");
        self.line("cvta.local.u64 %rd_t, %rd_loc;");
        self.line("add.u64 %rd_t, %rd_t, 64;");
        self.line("st.param.b64 [param1+0], %rd_t;");
        self.line("call.uni (retval0), vprintf, (param0, param1);");
        self.line("}");
        self.body.push_str(&format!("{skip}:\n"));
    }

    pub(super) fn store_oob(&mut self) {
        self.fault = true;
        let v = self.r();
        // Thread 37 writes past the end of `out`.
        self.line("setp.eq.u32 %p_l, %r_gid, 37;");
        self.line("mov.u64 %rd_t, 1048576;");
        self.line("add.u64 %rd_t, %rd_out, %rd_t;");
        self.line(&format!("@%p_l st.global.u32 [%rd_t], {v};"));
    }
}
