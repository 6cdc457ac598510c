// Shared-memory tiled matrix multiply C = A * B (row-major, float).
// Each TILE x TILE block loads one tile of A and one tile of B into static
// shared memory per step, synchronizes, and accumulates the partial dot product.
// Matrix sizes must be multiples of TILE (no bounds checks).

template <int TILE>
__global__ void matmul_tiled(const float *__restrict__ A, const float *__restrict__ B,
                             float *__restrict__ C, int M, int N, int K)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];

    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TILE + ty;
    const int col = blockIdx.x * TILE + tx;

    float acc = 0.0f;
    for (int t = 0; t < K / TILE; ++t) {
        As[ty][tx] = A[row * K + t * TILE + tx];
        Bs[ty][tx] = B[(t * TILE + ty) * N + col];
        __syncthreads();

#pragma unroll
        for (int k = 0; k < TILE; ++k)
            acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    C[row * N + col] = acc;
}

template __global__ void matmul_tiled<16>(const float *__restrict__, const float *__restrict__,
                                          float *__restrict__, int, int, int);
