// libcu++'s cuda::barrier<thread_scope_block> (PTX mbarrier.init/arrive/
// test_wait on sm_80) with cuda::memcpy_async (cp.async + cp.async.mbarrier.arrive):
// each block streams TILES tiles of its input through one shared buffer,
// reusing the barrier for every phase (arrive_and_wait, and split arrive()/
// wait(token)); the upper 128 threads also run rounds on a second barrier of
// 128 from which thread 255 drops out (arrive_and_drop) in round 2, each round
// counting arrivals in shared memory and recording what it sees after the phase.
#include <cooperative_groups.h>
#include <cuda/barrier>

namespace cg = cooperative_groups;
using block_barrier = cuda::barrier<cuda::thread_scope_block>;

#define TILE 256
#define TILES 4
#define ROUNDS 4

extern "C" __global__ void barrier_tiles(const float *in, float *out, int *seen) {
    __shared__ float buf[TILE];
    __shared__ block_barrier bar;
    __shared__ block_barrier upper;
    __shared__ int count;
    auto block = cg::this_thread_block();
    if (block.thread_rank() == 0) {
        init(&bar, block.size());
        init(&upper, 128);
        count = 0;
    }
    block.sync();
    const float *src = in + (size_t)blockIdx.x * TILE * TILES;
    float acc = 0.f;
    for (int t = 0; t < TILES; ++t) {
        cuda::memcpy_async(block, buf, src + t * TILE, sizeof(float) * TILE, bar);
        bar.arrive_and_wait();
        acc += buf[TILE - 1 - threadIdx.x] * (float)(t + 1);
        float x = buf[threadIdx.x];
        auto token = bar.arrive();
        acc += 0.5f * x;
        bar.wait(std::move(token));
    }
    out[blockIdx.x * TILE + threadIdx.x] = acc;

    if (threadIdx.x >= 128) {
        int *mine = seen + (blockIdx.x * 128 + threadIdx.x - 128) * ROUNDS;
        for (int r = 0; r < ROUNDS; ++r) {
            if (r == 2 && threadIdx.x == 255) {
                upper.arrive_and_drop();
                break;
            }
            atomicAdd(&count, 1);
            upper.arrive_and_wait();
            mine[r] = count;
            upper.arrive_and_wait();
        }
    }
}
