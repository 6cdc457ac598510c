// Surface objects: a 3x3 box blur of a f32 surface read with clamped
// coordinates (surf2Dread, cudaBoundaryModeClamp), written transposed into
// another surface (surf2Dwrite); and a uchar4 surface whose texels are
// read one to the right with zeros past the edge (cudaBoundaryModeZero),
// channels rotated, written to a fourth surface. Surface x coordinates are
// bytes.
extern "C" __global__ void surface_rw(cudaSurfaceObject_t src, cudaSurfaceObject_t dst,
                                      cudaSurfaceObject_t rgba, cudaSurfaceObject_t rgba_out,
                                      int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    float s = 0.0f;
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
            float v;
            surf2Dread(&v, src, (x + dx) * 4, y + dy, cudaBoundaryModeClamp);
            s += v;
        }
    surf2Dwrite(s / 9.0f, dst, y * 4, x);
    uchar4 c;
    surf2Dread(&c, rgba, (x + 1) * 4, y, cudaBoundaryModeZero);
    surf2Dwrite(make_uchar4(c.y, c.z, c.w, c.x), rgba_out, x * 4, y);
}
