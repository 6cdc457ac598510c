// Racecheck and the cluster barrier (sm_90): cooperative groups'
// cluster.sync() (barrier.cluster.arrive + wait) orders every thread's
// accesses before it, in each CTA of the cluster, before every thread's
// after it, as __syncthreads() does within a CTA (tests/sanitizer_race_cluster.rs).
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

// Correct: each CTA reverses its 128 values through shared memory, the
// write and the read separated by cluster.sync(), then clears its slot
// after a second one.
extern "C" __global__ void __cluster_dims__(2, 1, 1) cluster_exchange(const int* in, int* out) {
    __shared__ int s[128];
    cg::cluster_group cluster = cg::this_cluster();
    const int t = threadIdx.x;
    s[t] = in[blockIdx.x * 128 + t] * 2;
    cluster.sync();
    out[blockIdx.x * 128 + t] = s[127 - t];
    cluster.sync();
    s[t] = 0;
}

// Bug: the read comes before the cluster barrier (a RAW hazard with the
// write of thread 127 - t).
extern "C" __global__ void __cluster_dims__(2, 1, 1) cluster_exchange_early(const int* in, int* out) {
    __shared__ int s[128];
    cg::cluster_group cluster = cg::this_cluster();
    const int t = threadIdx.x;
    s[t] = in[blockIdx.x * 128 + t] * 2;
    const int v = s[127 - t];
    cluster.sync();
    out[blockIdx.x * 128 + t] = v;
}
