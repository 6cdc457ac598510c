//! The generator's matrix, 8-bit float and asynchronous-barrier
//! statements: conversions between 8-bit float pairs and f32/f16x2, `wmma`
//! loads, products and stores of every type and shape warpjit runs,
//! `mma.sync`, and `mbarrier` phases (init, arrive in its forms, waits
//! that spin, pending counts, inval; bulk copies into shared memory and
//! bulk reductions out of it). All in warp-uniform control flow, as
//! the `.aligned` forms require (see `gen.rs`).

use super::{Gen, NR};

/// A `wmma` configuration: type of A and B, shape (m, n, k), registers of
/// the A and B fragments, and the accumulator types it takes.
struct WmmaKind {
    ty: &'static str,
    elt_bytes: u64,
    shape: (u64, u64, u64),
    a_regs: usize,
    b_regs: usize,
    accs: &'static [&'static str],
}

const WMMA: &[WmmaKind] = &[
    WmmaKind {
        ty: "f64",
        elt_bytes: 8,
        shape: (8, 8, 4),
        a_regs: 1,
        b_regs: 1,
        accs: &["f64"],
    },
    WmmaKind {
        ty: "f16",
        elt_bytes: 2,
        shape: (16, 16, 16),
        a_regs: 8,
        b_regs: 8,
        accs: &["f16", "f32"],
    },
    WmmaKind {
        ty: "f16",
        elt_bytes: 2,
        shape: (32, 8, 16),
        a_regs: 8,
        b_regs: 8,
        accs: &["f16", "f32"],
    },
    WmmaKind {
        ty: "f16",
        elt_bytes: 2,
        shape: (8, 32, 16),
        a_regs: 8,
        b_regs: 8,
        accs: &["f16", "f32"],
    },
    WmmaKind {
        ty: "bf16",
        elt_bytes: 2,
        shape: (16, 16, 16),
        a_regs: 4,
        b_regs: 4,
        accs: &["f32"],
    },
    WmmaKind {
        ty: "bf16",
        elt_bytes: 2,
        shape: (32, 8, 16),
        a_regs: 8,
        b_regs: 2,
        accs: &["f32"],
    },
    WmmaKind {
        ty: "bf16",
        elt_bytes: 2,
        shape: (8, 32, 16),
        a_regs: 2,
        b_regs: 8,
        accs: &["f32"],
    },
    WmmaKind {
        ty: "tf32",
        elt_bytes: 4,
        shape: (16, 16, 8),
        a_regs: 4,
        b_regs: 4,
        accs: &["f32"],
    },
    WmmaKind {
        ty: "s8",
        elt_bytes: 1,
        shape: (16, 16, 16),
        a_regs: 2,
        b_regs: 2,
        accs: &["s32"],
    },
    WmmaKind {
        ty: "u8",
        elt_bytes: 1,
        shape: (32, 8, 16),
        a_regs: 4,
        b_regs: 1,
        accs: &["s32"],
    },
    WmmaKind {
        ty: "s8",
        elt_bytes: 1,
        shape: (8, 32, 16),
        a_regs: 1,
        b_regs: 4,
        accs: &["s32"],
    },
];

/// An `mma.sync` form: shape, A type, B type, A, B and C/D registers (C/D:
/// 0 for the floating-point fragments' own counts), accumulator types.
type MmaForm = (
    &'static str,
    &'static str,
    &'static str,
    usize,
    usize,
    usize,
    &'static [&'static str],
);

impl Gen {
    /// `n` distinct registers of the `%r` pool, as a `{...}` list.
    fn r_list(&mut self, n: usize) -> String {
        let start = self.rng.below(NR - n as u64 + 1);
        let regs: Vec<String> = (0..n as u64).map(|i| format!("%r{}", start + i)).collect();
        format!("{{{}}}", regs.join(", "))
    }

    /// `n` registers of the `%f` pool.
    fn f_list(&mut self, n: usize) -> String {
        let regs: Vec<String> = (0..n).map(|i| format!("%f{i}")).collect();
        format!("{{{}}}", regs.join(", "))
    }

    /// A conversion between a pair of 8-bit floats and f32 or f16x2.
    pub(super) fn fp8_convert(&mut self) {
        let g = self.guard();
        let (r, h, f, f2) = (self.r(), self.h(), self.f(), self.f());
        let fp8 = *self.rng.pick(&["e4m3x2", "e5m2x2"]);
        let relu = if self.rng.chance(30) { ".relu" } else { "" };
        let s = match self.rng.below(3) {
            0 => format!("cvt.rn.satfinite{relu}.{fp8}.f32 {h}, {f}, {f2};"),
            1 => format!("cvt.rn.satfinite{relu}.{fp8}.f16x2 {h}, {r};"),
            _ => format!("cvt.rn{relu}.f16x2.{fp8} {r}, {h};"),
        };
        self.line(&format!("{g}{s}"));
    }

    /// A warp-wide matrix product: A and B loaded with `wmma.load` from
    /// the input buffer (random bits and edge values), C and D in the
    /// thread's registers; sometimes warp 0 stores D to shared memory and
    /// every thread reads a word of it back.
    pub(super) fn wmma_phase(&mut self) {
        let kind = &WMMA[self.rng.below(WMMA.len() as u64) as usize];
        let (m, n, k) = kind.shape;
        let shape = format!("m{m}n{n}k{k}");
        let la = *self.rng.pick(&["row", "col"]);
        let lb = *self.rng.pick(&["row", "col"]);
        // Natural leading dimensions, so that A and B stay in the first
        // 2 KiB of the input (at least 32 threads of 64 bytes).
        let sa = if la == "row" { k } else { m };
        let sb = if lb == "row" { n } else { k };
        let a_off = self.rng.below(1024 / 32) * 32;
        let b_off = self.rng.below(1024 / 32) * 32;
        debug_assert!(
            a_off + m * k * kind.elt_bytes <= 2048 && b_off + k * n * kind.elt_bytes <= 2048
        );
        let ty = kind.ty;
        // f64 fragments live in the `%fd` pool (A, B one register, C, D two).
        let (a, b) = if ty == "f64" {
            ("{%fd4}".to_string(), "{%fd5}".to_string())
        } else {
            (self.r_list(kind.a_regs), self.r_list(kind.b_regs))
        };
        let generic = self.rng.chance(30);
        let space = if generic { "" } else { ".global" };
        let base = if generic {
            self.line("cvta.global.u64 %rd_t, %rd_inbase;");
            "%rd_t"
        } else {
            "%rd_inbase"
        };
        self.line(&format!(
            "wmma.load.a.sync.aligned.{la}.{shape}{space}.{ty} {a}, [{base}+{a_off}], {sa};"
        ));
        self.line(&format!(
            "wmma.load.b.sync.aligned.{lb}.{shape}{space}.{ty} {b}, [{base}+{b_off}], {sb};"
        ));
        let acc = *self.rng.pick(kind.accs);
        let dacc = if ty == "f16" {
            *self.rng.pick(kind.accs)
        } else {
            acc
        };
        let frag = |g: &mut Gen, t: &str| match t {
            "f32" => g.f_list(8),
            "f16" => g.r_list(4),
            "f64" => format!(
                "{{%fd{0}, %fd{1}}}",
                g.rng.below(2) * 2,
                g.rng.below(2) * 2 + 1
            ),
            _ => g.r_list(8),
        };
        let c = frag(self, acc);
        let d = frag(self, dacc);
        let s = match ty {
            "f64" => {
                let rnd = *self.rng.pick(&["", ".rn", ".rz", ".rm", ".rp"]);
                format!("wmma.mma.sync.aligned.{la}.{lb}.{shape}{rnd}.f64.f64.f64.f64 {d}, {a}, {b}, {c};")
            }
            "f16" => {
                format!("wmma.mma.sync.aligned.{la}.{lb}.{shape}.{dacc}.{acc} {d}, {a}, {b}, {c};")
            }
            "s8" | "u8" => {
                let sat = if self.rng.chance(50) {
                    ".satfinite"
                } else {
                    ""
                };
                format!("wmma.mma.sync.aligned.{la}.{lb}.{shape}.s32.{ty}.{ty}.s32{sat} {d}, {a}, {b}, {c};")
            }
            _ => format!(
                "wmma.mma.sync.aligned.{la}.{lb}.{shape}.f32.{ty}.{ty}.f32 {d}, {a}, {b}, {c};"
            ),
        };
        self.line(&s);
        // D (at most 16 x 16 four-byte elements in 1 KiB: xbuf holds 512
        // bytes, so only 16-bit D of 256 elements) from warp 0 only.
        if dacc == "f16" && m * n == 256 && self.rng.chance(50) {
            let skip = self.label();
            let ld = *self.rng.pick(&["row", "col"]);
            self.line("shr.u32 %r_t, %r_tid, 5;");
            self.line("setp.ne.u32 %p_l, %r_t, 0;");
            self.line(&format!("@%p_l bra {skip};"));
            self.line("mov.u64 %rd_x, xbuf;");
            let stride = if ld == "row" { n } else { m };
            self.line(&format!(
                "wmma.store.d.sync.aligned.{ld}.{shape}.shared.f16 [%rd_x], {d}, {stride};"
            ));
            self.body.push_str(&format!("{skip}:\n"));
            self.line("bar.sync 0;");
            self.line("and.b32 %r_t, %r_tid, 127;");
            self.line("mul.wide.u32 %rd_t, %r_t, 4;");
            self.line("mov.u64 %rd_x, xbuf;");
            self.line("add.u64 %rd_t, %rd_x, %rd_t;");
            let r = self.r();
            self.line(&format!("ld.shared.u32 {r}, [%rd_t];"));
            self.line("bar.sync 0;");
        }
    }

    /// `mma.sync` in the shapes and types warpjit runs (and `movmatrix`),
    /// operands from the thread's registers.
    pub(super) fn mma_op(&mut self) {
        let forms: &[MmaForm] = &[
            ("m16n8k16", "f16", "f16", 4, 2, 0, &["f32", "f16"]),
            ("m16n8k8", "f16", "f16", 2, 1, 0, &["f32", "f16"]),
            ("m16n8k16", "bf16", "bf16", 4, 2, 0, &["f32"]),
            ("m16n8k8", "bf16", "bf16", 2, 1, 0, &["f32"]),
            ("m16n8k8", "tf32", "tf32", 4, 2, 0, &["f32"]),
            ("m16n8k4", "tf32", "tf32", 2, 1, 0, &["f32"]),
            ("m8n8k16", "s8", "u8", 1, 1, 2, &["s32"]),
            ("m16n8k16", "u8", "s8", 2, 1, 4, &["s32"]),
            ("m16n8k32", "s8", "s8", 4, 2, 4, &["s32"]),
            ("m8n8k32", "s4", "s4", 1, 1, 2, &["s32"]),
            ("m16n8k32", "u4", "s4", 2, 1, 4, &["s32"]),
            ("m16n8k64", "u4", "u4", 4, 2, 4, &["s32"]),
            ("m8n8k128", "b1", "b1", 1, 1, 2, &["s32"]),
            ("m16n8k128", "b1", "b1", 2, 1, 4, &["s32"]),
            ("m16n8k256", "b1", "b1", 4, 2, 4, &["s32"]),
            ("m16n8k32", "e4m3", "e5m2", 4, 2, 0, &["f32", "f16"]),
            ("m16n8k16", "e5m2", "e4m3", 2, 1, 0, &["f32"]),
            ("m8n8k4", "f64", "f64", 1, 1, 2, &["f64"]),
        ];
        if self.rng.chance(8) {
            let (d, a) = (self.r(), self.r());
            self.line(&format!("movmatrix.sync.aligned.m8n8.trans.b16 {d}, {a};"));
            return;
        }
        if self.rng.chance(12) {
            self.mma_volta_f16();
            return;
        }
        let &(shape, ta, tb, a_regs, b_regs, c_regs, accs) = self.rng.pick(forms);
        // D and C of one type (ptxas requires it for every mma shape).
        let acc = *self.rng.pick(accs);
        let fd_list = |n: usize| {
            let regs: Vec<String> = (0..n).map(|i| format!("%fd{i}")).collect();
            format!("{{{}}}", regs.join(", "))
        };
        let (a, b) = match ta {
            "f64" => ("{%fd4}".to_string(), "{%fd5}".to_string()),
            _ => (self.r_list(a_regs), self.r_list(b_regs)),
        };
        let frag = |g: &mut Gen| match acc {
            "f32" => g.f_list(4),
            "f16" => g.r_list(2),
            "f64" => fd_list(c_regs),
            _ => g.r_list(c_regs),
        };
        let c = frag(self);
        let d = frag(self);
        let s = match acc {
            "s32" if tb == "b1" => {
                let op = *self.rng.pick(&["xor", "and"]);
                format!(
                    "mma.sync.aligned.{shape}.row.col.s32.b1.b1.s32.{op}.popc {d}, {a}, {b}, {c};"
                )
            }
            "s32" => {
                let sat = if self.rng.chance(50) {
                    ".satfinite"
                } else {
                    ""
                };
                format!(
                    "mma.sync.aligned.{shape}.row.col{sat}.s32.{ta}.{tb}.s32 {d}, {a}, {b}, {c};"
                )
            }
            "f64" => {
                // f64 takes a rounding mode (round to nearest without one).
                let rnd = *self.rng.pick(&["", ".rn", ".rz", ".rm", ".rp"]);
                format!("mma.sync.aligned.{shape}.row.col{rnd}.f64.f64.f64.f64 {d}, {a}, {b}, {c};")
            }
            _ => format!(
                "mma.sync.aligned.{shape}.row.col.{acc}.{ta}.{tb}.{acc} {d}, {a}, {b}, {c};"
            ),
        };
        self.line(&s);
    }

    /// Volta's `mma.sync.aligned.m8n8k4` on f16 (quad-pair fragments): any
    /// layouts, D and C f16 or f32 (D f32 with C f16; not D f16 with C
    /// f32, which ptxas refuses).
    fn mma_volta_f16(&mut self) {
        let la = *self.rng.pick(&["row", "col"]);
        let lb = *self.rng.pick(&["row", "col"]);
        let (dt, ct) = *self
            .rng
            .pick(&[("f16", "f16"), ("f32", "f32"), ("f32", "f16")]);
        let (a, b) = (self.r_list(2), self.r_list(2));
        let frag = |g: &mut Gen, t: &str| match t {
            "f32" => g.f_list(8),
            _ => g.r_list(4),
        };
        let c = frag(self, ct);
        let d = frag(self, dt);
        self.line(&format!(
            "mma.sync.aligned.m8n8k4.{la}.{lb}.{dt}.f16.f16.{ct} {d}, {a}, {b}, {c};"
        ));
    }

    /// One phase of a CTA-wide `mbarrier` in shared memory: thread 0
    /// initializes it, every thread arrives (plain, with a count, with a
    /// transaction count, or dropping out), then spins on `test_wait` or
    /// `try_wait.parity` until the phase completes; the arrival state's
    /// pending count lands in a register; thread 0 invalidates it.
    /// Thread 0 reduces the 64 bytes of `xbuf` the bulk copy filled into
    /// the atomics buffer with `cp.reduce.async.bulk` (an operation and
    /// type from the ISA's table for global destinations), then waits for
    /// its bulk group.
    fn bulk_reduce(&mut self) {
        const FORMS: &[&str] = &[
            "add.u32",
            "add.s32",
            "add.u64",
            "add.f32",
            "add.f64",
            "add.noftz.f16",
            "add.noftz.bf16",
            "min.u32",
            "min.s32",
            "min.u64",
            "min.s64",
            "min.f16",
            "min.bf16",
            "max.u32",
            "max.s32",
            "max.u64",
            "max.s64",
            "max.f16",
            "max.bf16",
            "inc.u32",
            "dec.u32",
            "and.b32",
            "or.b32",
            "xor.b32",
            "and.b64",
            "or.b64",
            "xor.b64",
        ];
        let form = *self.rng.pick(FORMS);
        let skip = self.label();
        self.line("setp.ne.u32 %p_l, %r_tid, 0;");
        self.line(&format!("@%p_l bra {skip};"));
        self.line(&format!(
            "cp.reduce.async.bulk.global.shared::cta.bulk_group.{form} [%rd_at], [xbuf], 64;"
        ));
        self.line("cp.async.bulk.commit_group;");
        self.line("cp.async.bulk.wait_group.read 0;");
        self.body.push_str(&format!("{skip}:\n"));
    }

    pub(super) fn mbarrier_phase(&mut self) {
        self.line("setp.eq.u32 %p_l, %r_tid, 0;");
        self.line("@%p_l mbarrier.init.shared::cta.b64 [mbar], %r_ntid;");
        self.line("bar.sync 0;");
        let bulk = self.rng.chance(30);
        if bulk {
            // Thread 0 expects 64 bytes and copies them from the input
            // into xbuf; the others arrive.
            let (other, done) = (self.label(), self.label());
            self.line(&format!("@!%p_l bra {other};"));
            self.line("mbarrier.arrive.expect_tx.shared::cta.b64 %rd_t, [mbar], 64;");
            self.line("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [xbuf], [%rd_inbase], 64, [mbar];");
            self.line(&format!("bra.uni {done};"));
            self.body.push_str(&format!("{other}:\n"));
            self.line("mbarrier.arrive.shared::cta.b64 %rd_t, [mbar];");
            self.body.push_str(&format!("{done}:\n"));
        }
        let form = if bulk { None } else { Some(self.rng.below(4)) };
        match form {
            None => {}
            Some(0) => self.line("mbarrier.arrive.shared::cta.b64 %rd_t, [mbar];"),
            Some(1) => self.line("mbarrier.arrive.release.cta.shared::cta.b64 %rd_t, [mbar], 1;"),
            Some(2) => {
                let tx = self.rng.below(64) + 1;
                self.line(&format!(
                    "mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [mbar], {tx};"
                ));
                self.line(&format!(
                    "mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [mbar], {tx};"
                ));
                self.line("mbarrier.arrive.shared::cta.b64 %rd_t, [mbar];");
            }
            Some(_) => self.line("mbarrier.arrive_drop.shared::cta.b64 %rd_t, [mbar];"),
        }
        let wait = self.label();
        self.body.push_str(&format!("{wait}:\n"));
        if self.rng.chance(50) {
            self.line("mbarrier.test_wait.shared::cta.b64 %p_l, [mbar], %rd_t;");
        } else {
            self.line("mbarrier.try_wait.parity.shared::cta.b64 %p_l, [mbar], 0;");
        }
        self.line(&format!("@!%p_l bra {wait};"));
        let r = self.r();
        self.line(&format!("mbarrier.pending_count.b64 {r}, %rd_t;"));
        if bulk {
            self.line("and.b32 %r_t, %r_tid, 15;");
            self.line("mul.wide.u32 %rd_t, %r_t, 4;");
            self.line("mov.u64 %rd_x, xbuf;");
            self.line("add.u64 %rd_t, %rd_x, %rd_t;");
            let v = self.r();
            self.line(&format!("ld.shared.u32 {v}, [%rd_t];"));
            if self.rng.chance(50) {
                self.bulk_reduce();
            }
        }
        self.line("bar.sync 0;");
        self.line("setp.eq.u32 %p_l, %r_tid, 0;");
        self.line("@%p_l mbarrier.inval.shared::cta.b64 [mbar];");
        self.line("bar.sync 0;");
    }
}
