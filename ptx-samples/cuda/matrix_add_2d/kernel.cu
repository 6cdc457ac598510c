// 2D matrix addition C = A + B on pitched row-major matrices (as allocated by
// cudaMallocPitch): each row starts `pitch` bytes after the previous one.
// 2D grid of 16x16 blocks with bounds checks in both dimensions.
extern "C" __global__ void matrix_add_2d(const float* A, size_t pitchA,
                                         const float* B, size_t pitchB,
                                         float* C, size_t pitchC,
                                         int rows, int cols)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < rows && col < cols) {
        const float* a_row = (const float*)((const char*)A + row * pitchA);
        const float* b_row = (const float*)((const char*)B + row * pitchB);
        float* c_row = (float*)((char*)C + row * pitchC);
        c_row[col] = a_row[col] + b_row[col];
    }
}
