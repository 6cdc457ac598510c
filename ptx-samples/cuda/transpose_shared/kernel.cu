// Tiled matrix transpose through shared memory (after NVIDIA's "An Efficient
// Matrix Transpose in CUDA C/C++"). A 32x8 thread block moves a 32x32 tile:
// coalesced reads of rows of the input, coalesced writes of rows of the output.
// The tile is padded to TILE_DIM+1 columns so the column-wise shared reads
// hit 32 different banks. Bounds checks handle sizes that are not multiples of 32.

#define TILE_DIM 32
#define BLOCK_ROWS 8

extern "C" __global__ void transpose_shared(float *odata, const float *idata,
                                            int width, int height)
{
    __shared__ float tile[TILE_DIM][TILE_DIM + 1];

    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;

    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < width && y + j < height)
            tile[threadIdx.y + j][threadIdx.x] = idata[(y + j) * width + x];

    __syncthreads();

    x = blockIdx.y * TILE_DIM + threadIdx.x; // transposed block offset
    y = blockIdx.x * TILE_DIM + threadIdx.y;

    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < height && y + j < width)
            odata[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}
