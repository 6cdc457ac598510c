// All-pairs gravitational n-body acceleration (after GPU Gems 3 ch. 31).
// Each thread owns one body; the block cooperatively stages TILE body positions
// (xyz + mass in w) in shared memory per step and every thread accumulates the
// interactions with the whole tile. Plummer softening eps2 keeps r = 0 finite.
// Padding bodies past n get mass 0 and contribute nothing.

#define TILE 128

__device__ __forceinline__ float3 body_body_interaction(float4 bi, float4 bj, float3 ai, float eps2)
{
    float3 r;
    r.x = bj.x - bi.x;
    r.y = bj.y - bi.y;
    r.z = bj.z - bi.z;
    float dist_sqr = r.x * r.x + r.y * r.y + r.z * r.z + eps2;
    float inv_dist = rsqrtf(dist_sqr);
    float inv_dist3 = inv_dist * inv_dist * inv_dist;
    float s = bj.w * inv_dist3;
    ai.x += r.x * s;
    ai.y += r.y * s;
    ai.z += r.z * s;
    return ai;
}

__global__ void nbody_accel(const float4 *__restrict__ pos, float3 *__restrict__ accel,
                            int n, float eps2)
{
    __shared__ float4 sh_pos[TILE];

    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const float4 my_pos = i < n ? pos[i] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    float3 acc = make_float3(0.0f, 0.0f, 0.0f);

    for (int tile = 0; tile < (n + TILE - 1) / TILE; ++tile) {
        const int j = tile * TILE + threadIdx.x;
        sh_pos[threadIdx.x] = j < n ? pos[j] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        __syncthreads();
#pragma unroll 8
        for (int k = 0; k < TILE; ++k)
            acc = body_body_interaction(my_pos, sh_pos[k], acc, eps2);
        __syncthreads();
    }

    if (i < n)
        accel[i] = acc;
}
