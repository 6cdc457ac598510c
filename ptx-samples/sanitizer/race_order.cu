// Racecheck and the memory model's release and acquire (PTX ISA 8.4): warp 0
// writes a table in shared memory, synchronizes its lanes with __syncwarp,
// and its lane 0 raises a flag; warp 1 spins on the flag, then reads the
// table. With a release store and acquire loads of the flag the table's
// writes are ordered before the reads; with relaxed ones they race.
#include <cuda/atomic>

using flag_ref = cuda::atomic_ref<int, cuda::thread_scope_block>;

template <cuda::memory_order Store, cuda::memory_order Load>
__device__ void publish(int *out)
{
    __shared__ int table[32];
    __shared__ int flag;
    if (threadIdx.x == 0)
        flag = 0;
    __syncthreads();
    flag_ref f(flag);
    if (threadIdx.x < 32) {
        table[threadIdx.x] = threadIdx.x * 3 + 1;
        __syncwarp();
        if (threadIdx.x == 0)
            f.store(1, Store);
    } else if (threadIdx.x < 64) {
        while (f.load(Load) == 0) {
        }
        out[threadIdx.x - 32] = table[63 - threadIdx.x];
    }
}

// The flag raised and read with relaxed atomics: the table's reads race.
extern "C" __global__ void flag_relaxed(int *out)
{
    publish<cuda::memory_order_relaxed, cuda::memory_order_relaxed>(out);
}

// Release and acquire: no race.
extern "C" __global__ void flag_release_acquire(int *out)
{
    publish<cuda::memory_order_release, cuda::memory_order_acquire>(out);
}

// Warps 0 and 1 hand a table over through named barrier 1 (64 threads);
// warp 2 reads the table too, after a barrier of its own (named barrier
// 2, 32 threads), which orders nothing with warp 0: a race.
extern "C" __global__ void named_barrier_outsider(int *out)
{
    __shared__ int table[32];
    int t = threadIdx.x;
    if (t < 32) {
        table[t] = t * 5;
        asm volatile("bar.sync 1, 64;" ::: "memory");
    } else if (t < 64) {
        asm volatile("bar.sync 1, 64;" ::: "memory");
        out[t - 32] = table[63 - t];
    } else if (t < 96) {
        asm volatile("bar.sync 2, 32;" ::: "memory");
        out[t - 32] = table[95 - t];
    }
}
