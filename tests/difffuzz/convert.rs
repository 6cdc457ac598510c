//! The generator's conversions: `cvt` between integer and floating-point
//! types of every width, halves, tf32 and `cvt.pack` (see `gen.rs`).

use super::Gen;

impl Gen {
    /// A conversion between integer and floating-point types (rounding,
    /// saturation, halves, tf32, packed), or a bit move between them.
    pub(super) fn convert(&mut self) {
        let g = self.guard();
        let (r, rd, f, fd, h) = (self.r(), self.rd(), self.f(), self.fd(), self.h());
        let (r2, f2) = (self.r(), self.f());
        let irnd = *self.rng.pick(&[".rni", ".rzi", ".rmi", ".rpi"]);
        let sat = if self.rng.chance(20) { ".sat" } else { "" };
        let s = match self.rng.below(18) {
            0 => format!("cvt.rn.f32.s32 {f}, {r};"),
            1 => {
                let rnd = *self.rng.pick(&[".rz", ".rn"]);
                format!("cvt{rnd}.f32.u32 {f}, {r};")
            }
            2 => format!("cvt{irnd}.s32.f32 {r}, {f};"),
            3 => format!("cvt{irnd}{sat}.u32.f32 {r}, {f};"),
            4 => format!("cvt.f64.f32 {fd}, {f};"),
            5 => format!("cvt.rn.f32.f64 {f}, {fd};"),
            6 => match self.rng.below(4) {
                0 => format!("cvt{irnd}.s32.f64 {r}, {fd};"),
                1 => format!("cvt{irnd}.u32.f64 {r}, {fd};"),
                2 => format!("cvt{irnd}.u64.f32 {rd}, {f};"),
                _ => format!("cvt{irnd}.s64.f64 {rd}, {fd};"),
            },
            7 => match self.rng.below(4) {
                0 => format!("cvt.rn.f64.s64 {fd}, {rd};"),
                1 => format!("cvt.rn.f64.u64 {fd}, {rd};"),
                2 => format!("cvt.rn.f32.s64 {f}, {rd};"),
                _ => format!("cvt.rn.f32.u64 {f}, {rd};"),
            },
            8 => format!("cvt.u64.u32 {rd}, {r};"),
            9 => format!("cvt.s64.s32 {rd}, {r};"),
            10 => format!("cvt.u32.u64 {r}, {rd};"),
            11 => format!("cvt.rn.f16.f32 {h}, {f};"),
            12 => match self.rng.below(7) {
                0 => format!("cvt.f32.bf16 {f}, {h};"),
                1 => format!("cvt.rn.f16x2.f32 {r}, {f}, {f2};"),
                2 => format!("cvt.rn.bf16x2.f32 {r}, {f}, {f2};"),
                3 => {
                    let form = *self.rng.pick(&[
                        "rna",
                        "rna.satfinite",
                        "rn",
                        "rz",
                        "rn.satfinite",
                        "rz.relu",
                    ]);
                    format!("cvt.{form}.tf32.f32 {r}, {f};")
                }
                4 => {
                    let ty = *self.rng.pick(&["u8", "s8", "u4", "s4"]);
                    format!("cvt.pack.sat.{ty}.s32.b32 {r}, {r2}, {r}, {r2};")
                }
                5 => {
                    let ty = *self.rng.pick(&["u16", "s16"]);
                    format!("cvt.pack.sat.{ty}.s32 {r}, {r2}, {r};")
                }
                _ => format!("cvt.f32.f16 {f}, {h};"),
            },
            13 => format!("cvt.u16.u32 {h}, {r};"),
            14 => format!("cvt.s32.s16 {r}, {h};"),
            15 => format!("mov.b32 {f2}, {r2};"),
            16 => format!("mov.b32 {r2}, {f};"),
            _ => format!("cvt{sat}.s32.s64 {r}, {rd};"),
        };
        self.line(&format!("{g}{s}"));
    }
}
