// Texture objects: tex1Dfetch over linear memory, tex2D with point and
// linear filtering under clamp, border, wrap and mirror addressing, with
// unnormalized and normalized coordinates, and a normalized-float read of
// u8x4 texels. One thread per sample point; the points sweep past every
// edge of the 16x8 image.
#define N 256

__device__ float2 point_at(int i) {
    // Unnormalized texel coordinates from -3 to about 19 (x), -2 to 10 (y).
    return make_float2(-3.0f + (float)i * 0.0859375f, -2.0f + (float)(i * 7 % N) * 0.046875f);
}

__device__ float2 norm_at(int i) {
    // Normalized coordinates from -1.25 to about 2.2 (x), -0.6 to 1.9 (y).
    return make_float2(-1.25f + (float)i * 0.013671875f, -0.6f + (float)(i * 11 % N) * 0.009765625f);
}

extern "C" __global__ void texture_fetch(cudaTextureObject_t lin,
                                         cudaTextureObject_t point_clamp,
                                         cudaTextureObject_t linear_clamp,
                                         cudaTextureObject_t linear_border,
                                         cudaTextureObject_t linear_wrap,
                                         cudaTextureObject_t point_mirror,
                                         cudaTextureObject_t linear_mirror,
                                         cudaTextureObject_t rgba8,
                                         float *out, float4 *out4) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= N) return;
    float2 p = point_at(i);
    float2 q = norm_at(i);
    out[0 * N + i] = tex1Dfetch<float>(lin, i - 8);
    out[1 * N + i] = tex2D<float>(point_clamp, p.x, p.y);
    out[2 * N + i] = tex2D<float>(linear_clamp, p.x, p.y);
    out[3 * N + i] = tex2D<float>(linear_border, p.x, p.y);
    out[4 * N + i] = tex2D<float>(linear_wrap, q.x, q.y);
    out[5 * N + i] = tex2D<float>(point_mirror, q.x, q.y);
    out[6 * N + i] = tex2D<float>(linear_mirror, q.x, q.y);
    out4[i] = tex2D<float4>(rgba8, p.x * 0.5f, p.y);
}
