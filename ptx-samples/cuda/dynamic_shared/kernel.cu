// Dynamic shared memory (size chosen at launch) carved into two typed views:
// a float array of blockDim.x elements followed by an int array of blockDim.x
// elements. Each block reverses its chunk of floats (adding the int of the
// same slot) and tree-reduces its chunk of ints into one sum per block.
// Launch with shared bytes = blockDim.x * (sizeof(float) + sizeof(int)).

extern "C" __global__ void reverse_and_sum(const float *in_f, const int *in_i,
                                           float *out_rev, int *block_sums)
{
    extern __shared__ unsigned char smem[];
    float *s_f = reinterpret_cast<float *>(smem);
    int *s_i = reinterpret_cast<int *>(smem + blockDim.x * sizeof(float));

    const unsigned int tid = threadIdx.x;
    const unsigned int g = blockIdx.x * blockDim.x + tid;

    s_f[tid] = in_f[g];
    s_i[tid] = in_i[g];
    __syncthreads();

    // Reverse the float chunk; mix in this slot's int through the other view.
    out_rev[g] = s_f[blockDim.x - 1 - tid] + (float)s_i[tid];
    __syncthreads(); // everyone has read s_i[tid] before the reduction overwrites it

    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            s_i[tid] += s_i[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        block_sums[blockIdx.x] = s_i[0];
}
