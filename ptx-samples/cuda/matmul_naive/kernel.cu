// Naive dense matrix multiply C = A * B (row-major, float).
// One thread computes one element of C; 2D grid of 2D blocks, with bounds
// checks because M and N are not multiples of the block size.

extern "C" __global__ void matmul_naive(const float *A, const float *B, float *C,
                                        int M, int N, int K)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M && col < N) {
        float sum = 0.0f;
        for (int k = 0; k < K; ++k)
            sum += A[row * K + k] * B[k * N + col];
        C[row * N + col] = sum;
    }
}
