//! Executing `OpKind::Texture` for the active lanes of a warp: each lane
//! looks its handle up in the launch's texture table
//! (`LaunchCtx::textures`) and fetches, queries or accesses the object
//! through [`crate::sem::texture`]'s rules, reading and writing device
//! memory through the same checks as loads and stores. A handle that is
//! no live object of the instruction's kind is a `bad_handle` fault at the
//! instruction; `.trap` surface accesses out of bounds are illegal-address
//! faults. The JIT runs these ops in the driver, so both engines share
//! this code. In a checked launch, surface stores and reductions mark
//! their bytes written (initcheck) and texture and surface reads are not
//! checked.

use super::lanes::{Place, Refused};
use super::warp::Warp;
use super::{Cta, Fault, FaultKind};
use crate::ir::{Op, OpKind, Space};
use crate::runtime::memory::AccessFault;
use crate::runtime::texture::Object;
use crate::sanitizer::Rw;
use crate::sem::texture::{
    self, ChannelType, Coords, Cube, HandleKind, SurfPlace, SurfView, TexOp, TexView,
};

impl Warp {
    pub(super) fn texture(&mut self, cta: &mut Cta, op: &Op, mask: u32) -> Result<(), Fault> {
        let OpKind::Texture { op: top } = op.kind else {
            unreachable!("not a texture op")
        };
        for l in (0..32usize).filter(|l| mask & (1 << l) != 0) {
            let h = self.read(cta, &op.srcs[0], l);
            let arg = |w: &Self, i: usize| w.read(cta, &op.srcs[i], l);
            match top {
                TexOp::Istypep(kind) => {
                    let obj = cta.ctx.textures.object(h);
                    let yes = match kind {
                        HandleKind::Texref | HandleKind::Samplerref => {
                            matches!(obj, Some(Object::Texture { .. }))
                        }
                        HandleKind::Surfref => matches!(obj, Some(Object::Surface { .. })),
                    };
                    self.write(cta, op.dsts[0], l, yes as u64);
                }
                TexOp::Txq(q) => {
                    let view = self.tex_view(cta, op, h, l, None)?;
                    self.write(cta, op.dsts[0], l, view.query(q).unwrap_or(0) as u64);
                }
                TexOp::TxqLevel(q) => {
                    let view = self.tex_view(cta, op, h, l, None)?;
                    let lod = arg(self, 1) as u32 as i32;
                    self.write(cta, op.dsts[0], l, view.level_query(q, lod) as u64);
                }
                TexOp::Suq(q) => {
                    let view = self.surf_view(cta, op, h, l)?;
                    self.write(cta, op.dsts[0], l, view.query(q).unwrap_or(0) as u64);
                }
                TexOp::Tex {
                    int_coords,
                    cube,
                    results,
                } => {
                    let view = self.tex_view(cta, op, h, l, cube)?;
                    let c = [arg(self, 1), arg(self, 2), arg(self, 3)];
                    let layer = arg(self, 4) as u32 as i32;
                    let offset = [5, 6, 7].map(|i| arg(self, i) as u32 as i32);
                    let mut read = |a, n| self.global_load(cta, op, l, a, n);
                    let r = if cube {
                        let dir = c.map(|v| f32::from_bits(v as u32));
                        view.fetch_cube(dir, layer, &mut read)
                    } else if int_coords {
                        let coords = Coords::S32(c.map(|v| v as u32 as i32));
                        view.fetch_offset(coords, layer, offset, &mut read)
                    } else {
                        let coords = Coords::F32(c.map(|v| f32::from_bits(v as u32)));
                        view.fetch_offset(coords, layer, offset, &mut read)
                    };
                    let signed = matches!(
                        view.format.channel,
                        ChannelType::S8 | ChannelType::S16 | ChannelType::S32
                    );
                    let (vals, n) = results.values(r?, view.float_results(), signed);
                    self.write_results(cta, op, l, &vals[..n]);
                }
                TexOp::Tld4 { comp, cube } => {
                    let view = self.tex_view(cta, op, h, l, cube)?;
                    let c = [arg(self, 1), arg(self, 2), arg(self, 3)]
                        .map(|v| f32::from_bits(v as u32));
                    let layer = arg(self, 4) as u32 as i32;
                    let offset = [5, 6].map(|i| arg(self, i) as u32 as i32);
                    let mut read = |a, n| self.global_load(cta, op, l, a, n);
                    let r = if cube {
                        view.gather_cube(comp as usize, c, layer, &mut read)
                    } else {
                        view.gather(comp as usize, [c[0], c[1]], layer, offset, &mut read)
                    };
                    let vals = r?.map(|v| v as u64);
                    self.write_results(cta, op, l, &vals);
                }
                TexOp::Suld { bytes, oob } => {
                    let view = self.surf_view(cta, op, h, l)?;
                    let n = op.dsts.len() as u64;
                    let size = bytes as u64;
                    let place = self.surf_place(cta, op, l, &view, size * n, oob)?;
                    for (i, &d) in op.dsts.iter().enumerate() {
                        let v = match place {
                            Some(a) => self.global_load(cta, op, l, a + i as u64 * size, size)?,
                            None => 0,
                        };
                        self.write(cta, d, l, v);
                    }
                }
                TexOp::Sust { bytes, oob } => {
                    let view = self.surf_view(cta, op, h, l)?;
                    let n = op.srcs.len() as u64 - 5;
                    let size = bytes as u64;
                    let place = self.surf_place(cta, op, l, &view, size * n, oob)?;
                    if let Some(a) = place {
                        for i in 0..n {
                            let v = self.read(cta, &op.srcs[5 + i as usize], l);
                            let off = self.global_check(cta, op, l, a + i * size, size)?;
                            self.check_access(cta, op, Place::Global(off), size, Rw::Write, l);
                            cta.ctx.memory.store(off, size, v);
                        }
                    }
                }
                TexOp::Sured {
                    op: rop,
                    bytes,
                    signed,
                    oob,
                } => {
                    let view = self.surf_view(cta, op, h, l)?;
                    let size = bytes as u64;
                    if let Some(a) = self.surf_place(cta, op, l, &view, size, oob)? {
                        let v = self.read(cta, &op.srcs[5], l);
                        let off = self.global_check(cta, op, l, a, size)?;
                        self.check_access(cta, op, Place::Global(off), size, Rw::Atomic, l);
                        cta.ctx.memory.atomic_update(off, size, &mut |old| {
                            texture::sured(rop, bytes, signed, old, v)
                        });
                    }
                }
            }
        }
        Ok(())
    }

    /// `tex`/`tld4`'s results, and `true` to the residency predicate if
    /// the instruction has one (the destination after them: every texel of
    /// a dense resource is resident, there are no sparse arrays).
    fn write_results(&mut self, cta: &Cta, op: &Op, l: usize, r: &[u64]) {
        for (&d, &v) in op.dsts.iter().zip(r) {
            self.write(cta, d, l, v);
        }
        if let Some(&p) = op.dsts.get(r.len()) {
            self.write(cta, p, l, 1);
        }
    }

    fn bad_handle(&self, cta: &Cta, op: &Op, l: usize, h: u64, what: &str) -> Fault {
        let msg = format!("{h:#x} is not a live {what} object");
        self.fault(cta, FaultKind::BadHandle, l as u32, Some(op), msg)
    }

    /// The texture object `h`; `cube`: whether the instruction reads
    /// cubemaps (`.cube`/`.acube`), which must match the texture's kind
    /// (`None`: any texture).
    fn tex_view(
        &self,
        cta: &Cta,
        op: &Op,
        h: u64,
        l: usize,
        cube: impl Into<Option<bool>>,
    ) -> Result<TexView, Fault> {
        let view = cta
            .ctx
            .textures
            .texture(h)
            .copied()
            .ok_or_else(|| self.bad_handle(cta, op, l, h, "texture"))?;
        match cube.into() {
            Some(c) if c != (view.layout.cube != Cube::No) => {
                let msg = if c {
                    format!("{h:#x} is not a cubemap texture (the instruction reads cubemaps)")
                } else {
                    format!("{h:#x} is a cubemap texture (read with `.cube` or `.acube`)")
                };
                Err(self.fault(cta, FaultKind::BadHandle, l as u32, Some(op), msg))
            }
            _ => Ok(view),
        }
    }

    fn surf_view(&self, cta: &Cta, op: &Op, h: u64, l: usize) -> Result<SurfView, Fault> {
        cta.ctx
            .textures
            .surface(h)
            .copied()
            .ok_or_else(|| self.bad_handle(cta, op, l, h, "surface"))
    }

    /// A checked global access of `size` bytes at `addr` (its arena offset).
    fn global_check(
        &self,
        cta: &Cta,
        op: &Op,
        l: usize,
        addr: u64,
        size: u64,
    ) -> Result<u64, Fault> {
        cta.ctx.memory.check(addr, size).map_err(|fault| {
            let r = Refused {
                fault,
                space: Space::Global,
                addr,
            };
            self.access_fault(cta, op, l, r, size)
        })
    }

    fn global_load(
        &self,
        cta: &Cta,
        op: &Op,
        l: usize,
        addr: u64,
        size: u64,
    ) -> Result<u64, Fault> {
        let off = self.global_check(cta, op, l, addr, size)?;
        Ok(cta.ctx.memory.load(off, size))
    }

    /// The address of a surface access (`None`: skipped under `.zero`).
    fn surf_place(
        &self,
        cta: &Cta,
        op: &Op,
        l: usize,
        view: &SurfView,
        bytes: u64,
        oob: texture::Oob,
    ) -> Result<Option<u64>, Fault> {
        let c = [1, 2, 3, 4].map(|i| self.read(cta, &op.srcs[i], l) as u32 as i32);
        let fault = |f: AccessFault, what: &str| {
            let r = Refused {
                fault: f,
                space: Space::Global,
                addr: view.layout.base,
            };
            let mut fault = self.access_fault(cta, op, l, r, bytes);
            fault.message = format!(
                "{what}: {bytes}-byte surface access at x = {} bytes, y = {}, z = {}, layer = {}",
                c[0], c[1], c[2], c[3]
            );
            fault
        };
        match view.place(bytes, c[0], c[1], c[2], c[3], oob) {
            SurfPlace::Addr(a) => Ok(Some(a)),
            SurfPlace::Skip => Ok(None),
            SurfPlace::OutOfBounds => Err(fault(AccessFault::OutOfBounds, "out of bounds (.trap)")),
            SurfPlace::Misaligned => Err(fault(AccessFault::Misaligned, "misaligned")),
        }
    }
}
