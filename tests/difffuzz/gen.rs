//! A generator of random, well-typed PTX kernels for differential testing
//! of the two engines (`tests/engine_diff.rs`, `examples/engine_diff_fuzz.rs`).
//!
//! `generate(seed)` deterministically builds one kernel and its launch: each
//! thread loads values of every type from `in` (random data mixed with edge
//! values: 0, -1, MIN, MAX, NaN, infinities, -0.0, subnormals), runs a random
//! program over integer (8 to 64 bits), f16, f32, f64 and predicate
//! registers — arithmetic with every rounding and `.ftz`/`.sat`, conversions,
//! comparisons, the video instructions (scalar, `vmad`, SIMD), divergent
//! if/else, bounded loops (some only loading, which the JIT runs as
//! regions), guarded instructions, shared memory with barriers,
//! local arrays and `alloca`, generic addresses, shuffles, votes, match
//! and redux (integer and `.f32`), `lop3` (and its predicate form),
//! atomics, calls to a `.func`, printf, `wmma` and `mma.sync` products,
//! `mbarrier` phases — and stores every register to its own
//! slots of `out`. Some programs index memory out of bounds on purpose, so
//! both engines must also report the same fault.

use std::fmt::Write;

#[path = "convert.rs"]
mod convert;
#[path = "matrix.rs"]
mod matrix;
#[path = "memory.rs"]
mod memory;

/// One generated test case.
pub struct Program {
    pub ptx: String,
    pub grid: u32,
    pub block: u32,
    /// Input buffer contents (the kernel's `in`).
    pub input: Vec<u8>,
    /// Bytes of the `out` buffer (per-thread slots) and the `atomics` buffer.
    pub out_bytes: usize,
    pub atomic_bytes: usize,
    pub n: u32,
}

/// Per-thread input stride in bytes and output slots (u64 each).
pub const IN_STRIDE: usize = 64;
pub const SLOTS: usize = 48;

/// splitmix64.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x9e37_79b9_7f4a_7c15)
    }
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }
}

const EDGE32: &[u32] = &[
    0,
    1,
    0xffff_ffff,
    0x8000_0000,
    0x7fff_ffff,
    31,
    32,
    33,
    0x7fc0_0000,
    0xffc0_0001,
    0x7f80_0000,
    0xff80_0000,
    0x8000_0000,
    0x0000_0001,
    0x807f_ffff,
    0x3f80_0000,
    0xbf80_0000,
    0x4f00_0000,
    // Signalling NaNs (the quiet bit clear), with a payload.
    0x7f80_0001,
    0xffa0_0000,
];
const EDGE64: &[u64] = &[
    0,
    1,
    u64::MAX,
    1 << 63,
    i64::MAX as u64,
    63,
    64,
    0x7ff8_0000_0000_0000,
    0xfff0_0000_0000_0000,
    0x7ff0_0000_0000_0000,
    0x8000_0000_0000_0000,
    0x0000_0000_0000_0001,
    0x3ff0_0000_0000_0000,
    0x43e0_0000_0000_0000,
    // Signalling NaNs: a low payload narrowing drops, a high one it keeps.
    0x7ff0_0000_0000_0001,
    0xfff4_0000_0000_0000,
    // A quiet NaN with a low payload, the largest subnormal, the largest
    // finite value.
    0x7ff8_0000_0000_0001,
    0x000f_ffff_ffff_ffff,
    0x7fef_ffff_ffff_ffff,
];

/// Register pools: `%r` b32, `%rd` b64, `%f` f32, `%fd` f64, `%h` b16, `%p` pred.
const NR: u64 = 12;
const NRD: u64 = 8;
const NF: u64 = 8;
const NFD: u64 = 6;
const NH: u64 = 4;
const NP: u64 = 6;

struct Gen {
    rng: Rng,
    body: String,
    labels: u32,
    /// Loop nesting and whether control flow here may be divergent.
    depth: u32,
    divergent: bool,
    uses_shared: bool,
    uses_call: bool,
    uses_printf: bool,
    fault: bool,
}

impl Gen {
    fn r(&mut self) -> String {
        format!("%r{}", self.rng.below(NR))
    }
    fn rd(&mut self) -> String {
        format!("%rd{}", self.rng.below(NRD))
    }
    fn f(&mut self) -> String {
        format!("%f{}", self.rng.below(NF))
    }
    fn fd(&mut self) -> String {
        format!("%fd{}", self.rng.below(NFD))
    }
    fn h(&mut self) -> String {
        format!("%h{}", self.rng.below(NH))
    }
    fn p(&mut self) -> String {
        format!("%p{}", self.rng.below(NP))
    }
    /// A b32 operand: a register or an immediate.
    fn r_or_imm(&mut self) -> String {
        if self.rng.chance(25) {
            let v = *self.rng.pick(EDGE32);
            if self.rng.chance(50) {
                format!("{}", v as i32)
            } else {
                format!("{}", self.rng.below(40))
            }
        } else {
            self.r()
        }
    }
    fn line(&mut self, s: &str) {
        self.body.push('\t');
        self.body.push_str(s);
        self.body.push('\n');
    }
    fn label(&mut self) -> String {
        self.labels += 1;
        format!("$L{}", self.labels)
    }
    fn guard(&mut self) -> String {
        if self.rng.chance(15) {
            let neg = if self.rng.chance(50) { "!" } else { "" };
            format!("@{neg}{} ", self.p())
        } else {
            String::new()
        }
    }

    fn int32_op(&mut self) {
        let g = self.guard();
        let (d, a, b, c) = (self.r(), self.r(), self.r_or_imm(), self.r());
        let sign = if self.rng.chance(50) { "s32" } else { "u32" };
        let s = match self.rng.below(27) {
            // fns: a base beyond bit 31 is undefined.
            26 => format!("and.b32 %r_t, {b}, 31;\n\tfns.b32 {d}, {a}, %r_t, {c};"),
            0 => format!("add.{sign} {d}, {a}, {b};"),
            1 => format!("sub.{sign} {d}, {a}, {b};"),
            2 => format!("mul.lo.{sign} {d}, {a}, {b};"),
            3 => format!("mul.hi.{sign} {d}, {a}, {b};"),
            4 => format!("div.{sign} {d}, {a}, {b};"),
            5 => format!("rem.{sign} {d}, {a}, {b};"),
            6 => format!("min.{sign} {d}, {a}, {b};"),
            7 => format!("max.{sign} {d}, {a}, {b};"),
            8 => format!("and.b32 {d}, {a}, {b};"),
            9 => format!("or.b32 {d}, {a}, {b};"),
            10 => format!("xor.b32 {d}, {a}, {b};"),
            11 => format!("shl.b32 {d}, {a}, {b};"),
            12 => format!("shr.{sign} {d}, {a}, {b};"),
            13 => format!("mad.lo.{sign} {d}, {a}, {b}, {c};"),
            14 => format!("not.b32 {d}, {a};"),
            15 => format!("neg.s32 {d}, {a};"),
            16 => format!("popc.b32 {d}, {a};"),
            17 => format!("clz.b32 {d}, {a};"),
            18 => format!("brev.b32 {d}, {a};"),
            // ptxas takes bfe's position and length immediates in 0..=255.
            19 => {
                let pos = if b.starts_with('%') {
                    b.clone()
                } else {
                    self.rng.below(40).to_string()
                };
                format!("bfe.{sign} {d}, {a}, {pos}, {c};")
            }
            20 => {
                let e = self.r();
                format!("bfi.b32 {d}, {a}, {b}, {c}, {e};")
            }
            21 => format!("prmt.b32 {d}, {a}, {b}, {c};"),
            23 => {
                let lut = self.rng.below(256);
                format!("lop3.b32 {d}, {a}, {b}, {c}, {lut:#x};")
            }
            22 => {
                let p = self.p();
                format!("selp.b32 {d}, {a}, {b}, {p};")
            }
            // Packed 16-bit integers (PTX 8.0, sm_90 in ptxas's terms).
            24 => {
                let t = *self.rng.pick(&["u16x2", "s16x2"]);
                let op = *self.rng.pick(&["add", "min", "max"]);
                let b = self.r();
                format!("{op}.{t} {d}, {a}, {b};")
            }
            25 => {
                let op = *self.rng.pick(&["min", "max"]);
                let b = self.r();
                format!("{op}.relu.s16x2 {d}, {a}, {b};")
            }
            _ => format!("abs.s32 {d}, {a};"),
        };
        // Every line of a multi-line statement takes the guard.
        let s = s.replace("\n\t", &format!("\n\t{g}"));
        self.line(&format!("{g}{s}"));
    }

    /// A video instruction (PTX ISA §9.7.16) in any form ptxas accepts.
    fn video_op(&mut self) {
        let g = self.guard();
        let (d, a, b, c) = (self.r(), self.r(), self.r(), self.r());
        let ty = |rng: &mut Rng| *rng.pick(&["u32", "s32"]);
        let (t0, t1, t2) = (ty(&mut self.rng), ty(&mut self.rng), ty(&mut self.rng));
        let sat = if self.rng.chance(40) { ".sat" } else { "" };
        let part = |rng: &mut Rng| *rng.pick(&["", "", ".b0", ".b1", ".b2", ".b3", ".h0", ".h1"]);
        let (asel, bsel) = (part(&mut self.rng), part(&mut self.rng));
        let cmp = *self.rng.pick(&["eq", "ne", "lt", "le", "gt", "ge"]);
        let s = match self.rng.below(6) {
            // Scalar: plain, with a secondary operation, or with a data merge.
            0..=1 => {
                let (op, types) = match self.rng.below(8) {
                    0 => ("vadd", format!(".{t0}.{t1}.{t2}{sat}")),
                    1 => ("vsub", format!(".{t0}.{t1}.{t2}{sat}")),
                    2 => ("vabsdiff", format!(".{t0}.{t1}.{t2}{sat}")),
                    3 => ("vmin", format!(".{t0}.{t1}.{t2}{sat}")),
                    4 => ("vmax", format!(".{t0}.{t1}.{t2}{sat}")),
                    5 | 6 => {
                        let op = *self.rng.pick(&["vshl", "vshr"]);
                        let mode = *self.rng.pick(&[".clamp", ".wrap"]);
                        (op, format!(".{t0}.{t1}.u32{mode}{sat}"))
                    }
                    _ => ("vset", format!(".{t1}.{t2}.{cmp}")),
                };
                match self.rng.below(3) {
                    0 => format!("{op}{types} {d}, {a}{asel}, {b}{bsel};"),
                    1 => {
                        let op2 = *self.rng.pick(&["add", "min", "max"]);
                        format!("{op}{types}.{op2} {d}, {a}{asel}, {b}{bsel}, {c};")
                    }
                    _ => {
                        let dsel = *self.rng.pick(&[".b0", ".b1", ".b2", ".b3", ".h0", ".h1"]);
                        format!("{op}{types} {d}{dsel}, {a}{asel}, {b}{bsel}, {c};")
                    }
                }
            }
            2 => {
                // vmad: the product or c negated, or .po; scaled, saturated.
                let (na, nb, nc, po) = match self.rng.below(6) {
                    0 => ("-", "", "", ""),
                    1 => ("", "-", "", ""),
                    2 => ("-", "-", "", ""),
                    3 => ("", "", "-", ""),
                    4 => ("", "", "", ".po"),
                    _ => ("", "", "", ""),
                };
                let scale = *self.rng.pick(&["", ".shr7", ".shr15"]);
                format!("vmad.{t0}.{t1}.{t2}{po}{sat}{scale} {d}, {na}{a}{asel}, {nb}{b}{bsel}, {nc}{c};")
            }
            n => {
                // SIMD: two half-words or four bytes, with a mask, selectors, .sat or .add.
                let four = n == 5 || self.rng.chance(50);
                let ops = ["vadd", "vsub", "vavrg", "vabsdiff", "vmin", "vmax", "vset"];
                let op = *self.rng.pick(&ops);
                let lanes = if four { 4 } else { 2 };
                let add = if sat.is_empty() && self.rng.chance(40) {
                    ".add"
                } else {
                    ""
                };
                let types = if op == "vset" {
                    format!(".{t1}.{t2}.{cmp}{add}")
                } else {
                    format!(".{t0}.{t1}.{t2}{sat}{add}")
                };
                let (kind, digits) = if four { ('b', 8) } else { ('h', 4) };
                let sel = |rng: &mut Rng| {
                    if rng.chance(50) {
                        return String::new();
                    }
                    let mut s = format!(".{kind}");
                    for _ in 0..lanes {
                        s.push(char::from(b'0' + rng.below(digits) as u8));
                    }
                    s
                };
                let (asel, bsel) = (sel(&mut self.rng), sel(&mut self.rng));
                let mut mask = String::new();
                for k in (0..lanes).rev() {
                    if self.rng.chance(60) {
                        mask.push(char::from(b'0' + k as u8));
                    }
                }
                let mask = if mask.is_empty() || self.rng.chance(30) {
                    String::new()
                } else {
                    format!(".{kind}{mask}")
                };
                format!("{op}{lanes}{types} {d}{mask}, {a}{asel}, {b}{bsel}, {c};")
            }
        };
        self.line(&format!("{g}{s}"));
    }

    fn int64_op(&mut self) {
        let g = self.guard();
        let (d, a, b) = (self.rd(), self.rd(), self.rd());
        let (r1, r2) = (self.r(), self.r());
        let sign = if self.rng.chance(50) { "s64" } else { "u64" };
        let s = match self.rng.below(14) {
            0 => format!("add.{sign} {d}, {a}, {b};"),
            1 => format!("sub.{sign} {d}, {a}, {b};"),
            2 => format!("mul.lo.{sign} {d}, {a}, {b};"),
            3 => format!("mul.hi.{sign} {d}, {a}, {b};"),
            4 => format!("div.{sign} {d}, {a}, {b};"),
            5 => format!("rem.{sign} {d}, {a}, {b};"),
            6 => format!("mul.wide.s32 {d}, {r1}, {r2};"),
            7 => format!("mul.wide.u32 {d}, {r1}, {r2};"),
            8 => format!("mad.wide.s32 {d}, {r1}, {r2}, {a};"),
            9 => format!("shl.b64 {d}, {a}, {r1};"),
            10 => format!("shr.{sign} {d}, {a}, {r1};"),
            11 => format!("xor.b64 {d}, {a}, {b};"),
            12 => format!("min.{sign} {d}, {a}, {b};"),
            _ => format!("popc.b64 {r1}, {a};"),
        };
        self.line(&format!("{g}{s}"));
    }

    fn float_op(&mut self) {
        let g = self.guard();
        let rnd = *self.rng.pick(&[".rn", ".rz", ".rm", ".rp", ".rn", ".rn"]);
        let ftz = if self.rng.chance(30) { ".ftz" } else { "" };
        let sat = if self.rng.chance(10) { ".sat" } else { "" };
        let (d, a, b, c) = (self.f(), self.f(), self.f(), self.f());
        let s = match self.rng.below(20) {
            0 => format!("add{rnd}{ftz}{sat}.f32 {d}, {a}, {b};"),
            1 => format!("sub{rnd}{ftz}.f32 {d}, {a}, {b};"),
            2 => format!("mul{rnd}{ftz}{sat}.f32 {d}, {a}, {b};"),
            3 => format!("fma{rnd}{ftz}{sat}.f32 {d}, {a}, {b}, {c};"),
            4 => format!("div{rnd}{ftz}.f32 {d}, {a}, {b};"),
            5 => format!("div.approx{ftz}.f32 {d}, {a}, {b};"),
            6 => format!("sqrt{rnd}{ftz}.f32 {d}, {a};"),
            7 => format!("rcp{rnd}{ftz}.f32 {d}, {a};"),
            8 => format!("min{ftz}.f32 {d}, {a}, {b};"),
            9 => format!("max{ftz}.f32 {d}, {a}, {b};"),
            10 => format!("abs{ftz}.f32 {d}, {a};"),
            11 => format!("neg{ftz}.f32 {d}, {a};"),
            12 => format!("ex2.approx{ftz}.f32 {d}, {a};"),
            13 => format!("lg2.approx{ftz}.f32 {d}, {a};"),
            14 => format!("sin.approx{ftz}.f32 {d}, {a};"),
            15 => format!("rsqrt.approx{ftz}.f32 {d}, {a};"),
            16 => format!("add.f32 {d}, {a}, {b};"),
            17 => format!("fma.rn.f32 {d}, {a}, {b}, {c};"),
            18 => format!("mul.f32 {d}, {a}, 0f3F000000;"),
            19 if self.rng.chance(50) => {
                // Half-precision arithmetic on the 16-bit and packed registers.
                let (x, y, z) = (self.h(), self.h(), self.h());
                let (r, q, t) = (self.r(), self.r(), self.r());
                match self.rng.below(8) {
                    0 => format!("add.rn.f16 {x}, {y}, {z};"),
                    1 => {
                        let w = self.h();
                        format!("fma.rn.f16 {x}, {y}, {z}, {w};")
                    }
                    2 => format!("mul{ftz}.f16 {x}, {y}, {z};"),
                    3 => format!("min.f16 {x}, {y}, {z};"),
                    4 => {
                        let w = self.h();
                        format!("fma.rn.bf16 {x}, {y}, {z}, {w};")
                    }
                    5 => format!("fma.rn.f16x2 {r}, {q}, {t}, {r};"),
                    6 => format!("cvt.rn.bf16.f32 {x}, {c};"),
                    _ => format!("max.bf16x2 {r}, {q}, {t};"),
                }
            }
            _ => {
                let (x, y, z) = (self.fd(), self.fd(), self.fd());
                match self.rng.below(8) {
                    0 => format!("add{rnd}.f64 {x}, {y}, {z};"),
                    1 => format!("mul{rnd}.f64 {x}, {y}, {z};"),
                    2 => {
                        let w = self.fd();
                        format!("fma{rnd}.f64 {x}, {y}, {z}, {w};")
                    }
                    3 => format!("div{rnd}.f64 {x}, {y}, {z};"),
                    4 => format!("sqrt{rnd}.f64 {x}, {y};"),
                    5 => {
                        let op = *self.rng.pick(&["min", "max"]);
                        format!("{op}.f64 {x}, {y}, {z};")
                    }
                    6 => {
                        let op = *self.rng.pick(&["neg", "abs"]);
                        format!("{op}.f64 {x}, {y};")
                    }
                    _ => format!("sub.f64 {x}, {y}, {z};"),
                }
            }
        };
        self.line(&format!("{g}{s}"));
    }

    fn compare(&mut self) {
        let (p, q) = (self.p(), self.p());
        let icmp = *self.rng.pick(&["eq", "ne", "lt", "le", "gt", "ge"]);
        let ucmp = *self.rng.pick(&["lo", "ls", "hi", "hs", "eq", "ne"]);
        let fcmp = *self.rng.pick(&[
            "eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num",
            "nan",
        ]);
        let s = match self.rng.below(10) {
            0 => {
                let (a, b) = (self.r(), self.r_or_imm());
                format!("setp.{icmp}.s32 {p}, {a}, {b};")
            }
            1 => {
                let (a, b) = (self.r(), self.r());
                format!("setp.{ucmp}.u32 {p}|{q}, {a}, {b};")
            }
            2 => {
                let (a, b) = (self.f(), self.f());
                let ftz = if self.rng.chance(30) { ".ftz" } else { "" };
                format!("setp.{fcmp}{ftz}.f32 {p}, {a}, {b};")
            }
            3 => {
                let (a, b) = (self.fd(), self.fd());
                format!("setp.{fcmp}.f64 {p}, {a}, {b};")
            }
            4 => {
                let (a, b, c) = (self.r(), self.r(), self.p());
                let op = *self.rng.pick(&["and", "or", "xor"]);
                format!("setp.{icmp}.{op}.s32 {p}|{q}, {a}, {b}, {c};")
            }
            5 => {
                let (a, b) = (self.p(), self.p());
                let op = *self.rng.pick(&["and", "or", "xor"]);
                format!("{op}.pred {p}, {a}, {b};")
            }
            6 => {
                let a = self.p();
                format!("not.pred {p}, {a};")
            }
            7 => {
                let a = self.f();
                let prop = *self.rng.pick(&[
                    "finite",
                    "infinite",
                    "number",
                    "notanumber",
                    "normal",
                    "subnormal",
                ]);
                format!("testp.{prop}.f32 {p}, {a};")
            }
            // lop3's predicate form (PTX ISA 8.2): `d` may be the sink.
            8 => {
                let g = self.guard();
                let d = if self.rng.chance(30) {
                    "_".into()
                } else {
                    self.r()
                };
                let (a, b, c) = (self.r(), self.r_or_imm(), self.r());
                let op = *self.rng.pick(&["and", "or"]);
                let not = if self.rng.chance(30) { "!" } else { "" };
                let lut = self.rng.below(256);
                format!("{g}lop3.{op}.b32 {d}|{p}, {a}, {b}, {c}, {lut:#x}, {not}{q};")
            }
            _ => {
                let (a, b) = (self.rd(), self.rd());
                format!("setp.{icmp}.s64 {p}, {a}, {b};")
            }
        };
        self.line(&s);
    }

    /// A run of random straight-line ops.
    fn straight(&mut self, n: u64) {
        for _ in 0..n {
            match self.rng.below(11) {
                0..=2 => self.int32_op(),
                3 => self.int64_op(),
                4..=5 => self.float_op(),
                6 => self.convert(),
                7 => self.compare(),
                8 => self.local_access(),
                9 if self.rng.chance(40) => self.fp8_convert(),
                10 => self.video_op(),
                _ => self.global_load(),
            }
        }
    }

    fn if_else(&mut self) {
        self.compare();
        let (else_l, end_l) = (self.label(), self.label());
        let p = self.p();
        let neg = if self.rng.chance(50) { "!" } else { "" };
        self.line(&format!("@{neg}{p} bra {else_l};"));
        let was = self.divergent;
        self.divergent = true;
        self.block(3);
        self.line(&format!("bra.uni {end_l};"));
        self.body.push_str(&format!("{else_l}:\n"));
        self.block(3);
        self.body.push_str(&format!("{end_l}:\n"));
        self.divergent = was;
    }

    /// A loop of 0..=7 iterations per thread (a per-thread trip count).
    fn loop_(&mut self) {
        let ctr = format!("%r_c{}", self.depth);
        let src = self.r();
        self.line(&format!("and.b32 {ctr}, {src}, 7;"));
        let (head, done) = (self.label(), self.label());
        self.line(&format!("setp.eq.u32 %p_l, {ctr}, 0;"));
        self.line(&format!("@%p_l bra {done};"));
        self.body.push_str(&format!("{head}:\n"));
        let was = self.divergent;
        self.divergent = true;
        self.depth += 1;
        if self.rng.chance(50) {
            // Loads and arithmetic only: the JIT runs this loop as a region.
            for _ in 0..self.rng.below(6) + 1 {
                match self.rng.below(4) {
                    0 => self.global_load(),
                    1 => self.float_op(),
                    _ => self.int32_op(),
                }
            }
        } else {
            self.block(3);
        }
        self.depth -= 1;
        self.divergent = was;
        self.line(&format!("sub.u32 {ctr}, {ctr}, 1;"));
        self.line(&format!("setp.ne.u32 %p_l, {ctr}, 0;"));
        self.line(&format!("@%p_l bra {head};"));
        self.body.push_str(&format!("{done}:\n"));
    }

    /// A block of statements (`n` of them), structured.
    fn block(&mut self, n: u64) {
        for _ in 0..self.rng.below(n) + 1 {
            match self.rng.below(24) {
                20 => self.warp_exchange(),
                21 if !self.divergent => self.wmma_phase(),
                22 if !self.divergent => self.mma_op(),
                23 if !self.divergent => self.mbarrier_phase(),
                0..=9 => {
                    let k = self.rng.below(6) + 1;
                    self.straight(k)
                }
                10..=11 if self.depth < 2 => self.if_else(),
                12..=13 if self.depth < 2 => self.loop_(),
                14 if !self.divergent => self.shared_phase(),
                15 if !self.divergent => self.warp_op(),
                16 => self.atomic(),
                17 => self.call(),
                18 if !self.divergent && self.rng.chance(20) => self.printf(),
                18 => self.warp_exchange(),
                19 if self.rng.chance(4) => self.store_oob(),
                _ => self.straight(2),
            }
        }
    }
}

/// Generates the test case of `seed`.
pub fn generate(seed: u64) -> Program {
    let mut g = Gen {
        rng: Rng::new(seed),
        body: String::new(),
        labels: 0,
        depth: 0,
        divergent: false,
        uses_shared: false,
        uses_call: false,
        uses_printf: false,
        fault: false,
    };
    let block = *g.rng.pick(&[32u32, 64, 96, 128]);
    let grid = g.rng.below(3) as u32 + 1;
    let threads = (block * grid) as usize;
    // Thread data: random bits with edge values mixed in.
    let mut input = vec![0u8; threads * IN_STRIDE];
    for chunk in input.chunks_mut(8) {
        let v = match g.rng.below(4) {
            0 => *g.rng.pick(EDGE64),
            1 => {
                let a = *g.rng.pick(EDGE32) as u64;
                let b = *g.rng.pick(EDGE32) as u64;
                a | b << 32
            }
            2 => g.rng.below(100),
            _ => g.rng.next(),
        };
        chunk.copy_from_slice(&v.to_le_bytes());
    }
    g.block(30);

    let mut ptx = String::new();
    ptx.push_str(".version 8.7\n.target sm_90\n.address_size 64\n\n");
    ptx.push_str(".extern .func (.param .b32 func_retval0) vprintf(.param .b64 vprintf_param_0, .param .b64 vprintf_param_1);\n");
    let fmt = b"t%d: %d %g\n\0";
    let bytes: Vec<String> = fmt.iter().map(|b| b.to_string()).collect();
    let _ = writeln!(
        ptx,
        ".global .align 1 .b8 fmt[{}] = {{{}}};",
        fmt.len(),
        bytes.join(", ")
    );
    ptx.push_str(".shared .align 4 .b8 sbuf[512];\n.shared .align 16 .b8 xbuf[512];\n.shared .align 8 .b64 mbar;\n\n");
    ptx.push_str(
        ".func (.param .b32 func_retval0) helper(.param .b32 helper_param_0, .param .b32 helper_param_1)\n{\n\t.reg .pred %hp;\n\t.reg .b32 %hr<4>;\n\tld.param.u32 %hr0, [helper_param_0];\n\tld.param.u32 %hr1, [helper_param_1];\n\tsetp.lt.s32 %hp, %hr0, %hr1;\n\t@%hp bra $HL1;\n\tmul.lo.s32 %hr2, %hr0, 3;\n\tadd.s32 %hr2, %hr2, %hr1;\n\tbra.uni $HL2;\n$HL1:\n\txor.b32 %hr2, %hr0, %hr1;\n\tshr.u32 %hr2, %hr2, 1;\n$HL2:\n\tst.param.b32 [func_retval0+0], %hr2;\n\tret;\n}\n\n",
    );
    ptx.push_str(".visible .entry fuzz(.param .u64 p_in, .param .u64 p_out, .param .u64 p_at, .param .u32 p_n)\n{\n");
    let _ = writeln!(
        ptx,
        "\t.local .align 8 .b8 loc[96];\n\t.reg .pred %p<{NP}>;\n\t.reg .pred %p_l;\n\t.reg .b32 %r<{NR}>;\n\t.reg .b64 %rd<{NRD}>;\n\t.reg .f32 %f<{NF}>;\n\t.reg .f64 %fd<{NFD}>;\n\t.reg .b16 %h<{NH}>;"
    );
    ptx.push_str("\t.reg .b32 %r_t, %r_c0, %r_c1, %r_c2, %r_tid, %r_ntid, %r_gid, %r_n;\n");
    ptx.push_str("\t.reg .b64 %rd_t, %rd_t2, %rd_in, %rd_gin, %rd_out, %rd_at, %rd_loc, %rd_sh, %rd_slot, %rd_x, %rd_inbase;\n\t.reg .f64 %fd_t;\n");
    ptx.push_str("\tld.param.u64 %rd_t, [p_in];\n\tcvta.to.global.u64 %rd_in, %rd_t;\n");
    ptx.push_str("\tld.param.u64 %rd_t, [p_out];\n\tcvta.to.global.u64 %rd_out, %rd_t;\n");
    ptx.push_str("\tld.param.u64 %rd_t, [p_at];\n\tcvta.to.global.u64 %rd_at, %rd_t;\n");
    ptx.push_str("\tld.param.u32 %r_n, [p_n];\n");
    ptx.push_str("\tmov.u32 %r_tid, %tid.x;\n\tmov.u32 %r_ntid, %ntid.x;\n\tmov.u32 %r_t, %ctaid.x;\n\tmad.lo.s32 %r_gid, %r_t, %r_ntid, %r_tid;\n");
    let _ = writeln!(
        ptx,
        "\tmul.wide.u32 %rd_t, %r_gid, {IN_STRIDE};\n\tmov.u64 %rd_inbase, %rd_in;\n\tadd.u64 %rd_in, %rd_in, %rd_t;\n\tcvta.global.u64 %rd_gin, %rd_in;"
    );
    ptx.push_str("\tmov.u64 %rd_loc, loc;\n");
    ptx.push_str("\tmul.wide.u32 %rd_t, %r_tid, 4;\n\tmov.u64 %rd_sh, sbuf;\n\tadd.u64 %rd_sh, %rd_sh, %rd_t;\n");
    // Initial register values from the input.
    for i in 0..NR {
        let _ = writeln!(
            ptx,
            "\tld.global.u32 %r{i}, [%rd_in+{}];",
            (i * 4) % IN_STRIDE as u64
        );
    }
    for i in 0..NRD {
        let _ = writeln!(
            ptx,
            "\tld.global.u64 %rd{i}, [%rd_in+{}];",
            (i * 8 + 8) % IN_STRIDE as u64
        );
    }
    for i in 0..NF {
        let _ = writeln!(
            ptx,
            "\tld.global.f32 %f{i}, [%rd_in+{}];",
            (i * 4 + 20) % IN_STRIDE as u64
        );
    }
    for i in 0..NFD {
        let _ = writeln!(
            ptx,
            "\tld.global.f64 %fd{i}, [%rd_in+{}];",
            (i * 8 + 16) % IN_STRIDE as u64
        );
    }
    for i in 0..NH {
        let _ = writeln!(ptx, "\tld.global.u16 %h{i}, [%rd_in+{}];", i * 2 + 6);
    }
    for i in 0..NP {
        let _ = writeln!(
            ptx,
            "\tsetp.lt.u32 %p{i}, %r{}, %r{};",
            i % NR,
            (i * 5 + 3) % NR
        );
    }
    for i in 0..8 {
        let _ = writeln!(ptx, "\tst.local.u64 [%rd_loc+{}], %rd{};", i * 8, i % NRD);
    }
    ptx.push_str(&g.body);
    // Every register to this thread's slots.
    let _ = writeln!(
        ptx,
        "\tmul.wide.u32 %rd_t, %r_gid, {};\n\tadd.u64 %rd_slot, %rd_out, %rd_t;",
        SLOTS * 8
    );
    let mut k = 0;
    let mut st = |ptx: &mut String, ty: &str, reg: String| {
        let _ = writeln!(ptx, "\tst.global.{ty} [%rd_slot+{}], {reg};", k * 8);
        k += 1;
    };
    for i in 0..NR {
        st(&mut ptx, "u32", format!("%r{i}"));
    }
    for i in 0..NRD {
        st(&mut ptx, "u64", format!("%rd{i}"));
    }
    for i in 0..NF {
        st(&mut ptx, "f32", format!("%f{i}"));
    }
    for i in 0..NFD {
        st(&mut ptx, "f64", format!("%fd{i}"));
    }
    for i in 0..NH {
        st(&mut ptx, "u16", format!("%h{i}"));
    }
    for i in 0..NP {
        let _ = writeln!(ptx, "\tselp.u32 %r_t, 1, 0, %p{i};");
        st(&mut ptx, "u32", "%r_t".to_string());
    }
    for i in 0..4 {
        let _ = writeln!(ptx, "\tld.local.u64 %rd_t, [%rd_loc+{}];", i * 8);
        st(&mut ptx, "u64", "%rd_t".to_string());
    }
    debug_assert!(k <= SLOTS);
    ptx.push_str("\tret;\n}\n");
    let _ = (g.uses_shared, g.uses_call, g.uses_printf, g.fault);
    Program {
        ptx,
        grid,
        block,
        input,
        out_bytes: threads * SLOTS * 8,
        atomic_bytes: 64,
        n: threads as u32,
    }
}
