// 3D grid of 3D blocks writing into a 3D array (x fastest). The launch covers
// 24x8x4 threads but the array is only nx x ny x nz = 20 x 7 x 3, so every
// dimension needs a bounds check. Each element receives:
//   ids[idx]   packed threadIdx / blockIdx of the thread that wrote it
//   dims[idx]  packed blockDim / gridDim
//   rank[idx]  the thread's rank in the launch: linear block index * threads
//              per block + linear thread index within the block
__global__ void grid3d_index(unsigned int* ids, unsigned int* dims, unsigned int* rank,
                             int nx, int ny, int nz)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int z = blockIdx.z * blockDim.z + threadIdx.z;
    if (x >= nx || y >= ny || z >= nz)
        return;

    unsigned int idx = ((unsigned int)z * ny + y) * nx + x;

    ids[idx] = threadIdx.x | (threadIdx.y << 4) | (threadIdx.z << 8) |
               (blockIdx.x << 12) | (blockIdx.y << 16) | (blockIdx.z << 20);
    dims[idx] = blockDim.x | (blockDim.y << 4) | (blockDim.z << 8) |
                (gridDim.x << 12) | (gridDim.y << 16) | (gridDim.z << 20);

    unsigned int block_linear = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    unsigned int thread_linear = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    unsigned int threads_per_block = blockDim.x * blockDim.y * blockDim.z;
    rank[idx] = block_linear * threads_per_block + thread_linear;
}
