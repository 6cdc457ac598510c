// Cubemap textures: texCubemap with point and linear filtering,
// texCubemapLod, texCubemapLayered over a layered cubemap, and
// tld4 on a cube through inline asm; tex2D with the sparse-texture
// residency flag (every texel of a dense array is resident); a texel
// offset and f16x2 results (inline asm); and cubemap surfaces read and written per face (surfCubemapread,
// surfCubemapwrite: layered 2D surface accesses, the face the layer). A direction picks the face of its largest component;
// the other two, divided by it, address the face. One thread per
// direction; the directions sweep every face.
#define N 256

__device__ float3 dir_at(int i) {
    // Face i % 6; the two minor components odd multiples of 1/32 of the
    // major one, in (-0.75, 0.75): linear filtering never reaches a
    // face's edge, and no coordinate falls on a texel boundary.
    int face = i % 6;
    float ma = 0.5f + (float)(i % 5) * 0.375f;
    float u = (-0.71875f + (float)((i * 7) % 23) * 0.0625f) * ma;
    float v = (-0.65625f + (float)((i * 5) % 21) * 0.0625f) * ma;
    float s = (face & 1) ? -ma : ma;
    if (face < 2) return make_float3(s, u, v);
    if (face < 4) return make_float3(u, s, v);
    return make_float3(u, v, s);
}

#include <cuda_fp16.h>

extern "C" __global__ void texture_cube(cudaTextureObject_t cube_point,
                                        cudaTextureObject_t cube_linear,
                                        cudaTextureObject_t cube_layered,
                                        cudaTextureObject_t image,
                                        cudaSurfaceObject_t faces_in,
                                        cudaSurfaceObject_t faces,
                                        float *out, float4 *gather) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    // Each texel of face f of an 8x8 cubemap surface gets the texel of
    // face 5 - f mirrored in x, plus 100 f.
    if (i < 6 * 64) {
        int f = i / 64, x = i % 8, y = (i / 8) % 8;
        float v;
        surfCubemapread(&v, faces_in, (7 - x) * 4, y, 5 - f);
        surfCubemapwrite(v + 100.0f * f, faces, x * 4, y, f);
    }
    if (i >= N) return;
    float3 d = dir_at(i);
    out[0 * N + i] = texCubemap<float>(cube_point, d.x, d.y, d.z);
    out[1 * N + i] = texCubemap<float>(cube_linear, d.x, d.y, d.z);
    out[2 * N + i] = texCubemapLod<float>(cube_linear, d.x, d.y, d.z, 0.0f);
    out[3 * N + i] = texCubemapLayered<float>(cube_layered, d.x, d.y, d.z, i % 3);
    bool resident = false;
    out[4 * N + i] = tex2D<float>(image, d.x * 4.0f + 4.0f, d.y * 4.0f + 4.0f, &resident);
    out[5 * N + i] = resident ? 1.0f : 0.0f;
    // PTX forms CUDA C++ does not emit, through inline asm: a texel
    // offset of (-1, 2), and channels returned as f16x2 pairs.
    float ix = d.x * 4.0f + 4.0f, iy = d.y * 4.0f + 4.0f, t0, t1, t2, t3;
    asm("tex.2d.v4.f32.f32 {%0, %1, %2, %3}, [%4, {%5, %6}], {-1, 2};"
        : "=f"(t0), "=f"(t1), "=f"(t2), "=f"(t3)
        : "l"(image), "f"(ix), "f"(iy));
    out[6 * N + i] = t0;
    unsigned rg, ba;
    asm("tex.2d.v2.f16x2.f32 {%0, %1}, [%2, {%3, %4}];"
        : "=r"(rg), "=r"(ba)
        : "l"(image), "f"(ix), "f"(iy));
    out[7 * N + i] = __half2float(__ushort_as_half((unsigned short)(rg & 0xffff)))
                   + __half2float(__ushort_as_half((unsigned short)(ba >> 16)));
    // CUDA C++ has no cubemap gather; tld4 reads cube geometries too.
    float4 g;
    asm("tld4.r.cube.v4.f32.f32 {%0, %1, %2, %3}, [%4, {%5, %6, %7, %7}];"
        : "=f"(g.x), "=f"(g.y), "=f"(g.z), "=f"(g.w)
        : "l"(cube_point), "f"(d.x), "f"(d.y), "f"(d.z));
    gather[i] = g;
}
