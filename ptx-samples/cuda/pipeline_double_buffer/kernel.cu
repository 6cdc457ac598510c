// libcu++'s cuda::pipeline with block scope (pipeline_shared_state: one pair of
// mbarriers per stage on sm_80) double-buffering CHUNKS chunks of the input
// through shared memory: producer_acquire, memcpy_async, producer_commit, then
// consumer_wait and consumer_release, with the producer running one chunk ahead
// of the consumer. Before that, cooperative_groups::memcpy_async with cg::wait
// (cp.async and cp.async.wait_group) brings a block of weights into shared memory.
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cuda/pipeline>

namespace cg = cooperative_groups;

#define THREADS 128
#define CHUNK 128
#define CHUNKS 8
#define STAGES 2

extern "C" __global__ void pipeline_sum(const float *in, const int *weights, float *out) {
    __shared__ float buf[STAGES][CHUNK];
    __shared__ int w[THREADS];
    __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, STAGES> state;
    auto block = cg::this_thread_block();

    cg::memcpy_async(block, w, weights + blockIdx.x * THREADS, sizeof(int) * THREADS);
    cg::wait(block);

    auto pipe = cuda::make_pipeline(block, &state);
    const float *src = in + (size_t)blockIdx.x * CHUNK * CHUNKS;
    // Fill the pipeline one chunk ahead, then consume one and produce the next.
    pipe.producer_acquire();
    cuda::memcpy_async(block, buf[0], src, sizeof(float) * CHUNK, pipe);
    pipe.producer_commit();
    float acc = 0.f;
    for (int c = 0; c < CHUNKS; ++c) {
        if (c + 1 < CHUNKS) {
            pipe.producer_acquire();
            cuda::memcpy_async(block, buf[(c + 1) % STAGES], src + (c + 1) * CHUNK,
                               sizeof(float) * CHUNK, pipe);
            pipe.producer_commit();
        }
        pipe.consumer_wait();
        acc += buf[c % STAGES][(threadIdx.x * 5) % CHUNK] * (float)(w[threadIdx.x] + c);
        pipe.consumer_release();
    }
    out[blockIdx.x * THREADS + threadIdx.x] = acc;
}
