//! Cubemap textures (PTX ISA §9.7.10.3 `tex.cube`, `tex.acube`; the CUDA
//! Programming Guide's "Cubemap Textures"): a direction picks a face of
//! the cube, which is then sampled as a 2D texture. A cubemap's faces are
//! the layers of a 2D layered resource ([`super::texture::Cube`]).

use super::texture::{AddressMode, Coords, Cube, TexView};

/// The face a cubemap direction points at (0..6: `+x, -x, +y, -y, +z,
/// -z`) and the normalized coordinates `(s, t)` on it, by the Programming
/// Guide's table "Cubemap Fetch": the component of largest magnitude `ma`
/// picks the face, `s = (sc / |ma| + 1) / 2`, `t = (tc / |ma| + 1) / 2`
/// with `(sc, tc)` `(-z, -y)`, `(z, -y)`, `(x, z)`, `(x, -z)`, `(x, -y)`,
/// `(-x, -y)` on faces 0..5 (f32 arithmetic). Ties go to z, then y, then x
/// (Direct3D's rule; unmeasured on NVIDIA hardware); a component's sign is
/// its sign bit.
pub fn cube_face(d: [f32; 3]) -> (u64, f32, f32) {
    let [x, y, z] = d;
    let (ax, ay, az) = (x.abs(), y.abs(), z.abs());
    let (face, ma, sc, tc) = if az >= ax && az >= ay {
        if z.is_sign_negative() {
            (5, az, -x, -y)
        } else {
            (4, az, x, -y)
        }
    } else if ay >= ax {
        if y.is_sign_negative() {
            (3, ay, x, -z)
        } else {
            (2, ay, x, z)
        }
    } else if x.is_sign_negative() {
        (1, ax, z, -y)
    } else {
        (0, ax, -z, -y)
    };
    (face, (sc / ma + 1.0) * 0.5, (tc / ma + 1.0) * 0.5)
}

impl TexView {
    /// `tex.cube`/`tex.acube`: the texel the direction `dir` points at on
    /// cubemap `layer` (clamped to the cubemaps; ignored by a single
    /// cubemap), sampled on its face as a 2D texture addressed by
    /// normalized coordinates and clamped to the face's edges.
    pub fn fetch_cube<E>(
        &self,
        dir: [f32; 3],
        layer: i32,
        read: &mut dyn FnMut(u64, u64) -> Result<u64, E>,
    ) -> Result<[u32; 4], E> {
        let (face, s, t) = cube_face(dir);
        let (view, layer) = self.face(face, layer);
        view.fetch(Coords::F32([s, t, 0.0]), layer, read)
    }

    /// `tld4.cube`/`tld4.acube`: [`Self::gather`] on the face `dir` points at.
    pub fn gather_cube<E>(
        &self,
        comp: usize,
        dir: [f32; 3],
        layer: i32,
        read: &mut dyn FnMut(u64, u64) -> Result<u64, E>,
    ) -> Result<[u32; 4], E> {
        let (face, s, t) = cube_face(dir);
        let (view, layer) = self.face(face, layer);
        view.gather(comp, [s, t], layer, [0; 2], read)
    }

    /// Face `face` of cubemap `layer` as a 2D layered view addressed by
    /// normalized coordinates with edges clamped, and its layer index.
    fn face(&self, face: u64, layer: i32) -> (TexView, i32) {
        let cubes = (self.layout.layers / 6).max(1) as i64;
        let cube = match self.layout.cube {
            Cube::Layered => (layer as i64).clamp(0, cubes - 1),
            _ => 0,
        };
        let mut view = *self;
        view.layout.cube = Cube::No;
        view.sampler.normalized_coords = true;
        view.sampler.address = [AddressMode::Clamp; 3];
        (view, (cube * 6 + face as i64) as i32)
    }
}
