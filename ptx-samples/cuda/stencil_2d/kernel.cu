// One Jacobi sweep for the 2D Poisson equation  -lap(u) = f  on a uniform grid
// (5-point stencil). Each 16x16 block stages its tile of u plus a one-cell
// halo in shared memory; boundary cells of the domain are copied unchanged.

#define BX 16
#define BY 16

__global__ void jacobi_step(const float *__restrict__ u, const float *__restrict__ f,
                            float *__restrict__ unew, int nx, int ny, float h2)
{
    __shared__ float s[BY + 2][BX + 2];

    const int i = blockIdx.x * BX + threadIdx.x; // column
    const int j = blockIdx.y * BY + threadIdx.y; // row
    const int tx = threadIdx.x + 1;
    const int ty = threadIdx.y + 1;
    const bool inside = i < nx && j < ny;

    if (inside) {
        s[ty][tx] = u[j * nx + i];
        if (threadIdx.x == 0 && i > 0)           s[ty][0] = u[j * nx + i - 1];
        if (threadIdx.x == BX - 1 && i < nx - 1) s[ty][BX + 1] = u[j * nx + i + 1];
        if (threadIdx.y == 0 && j > 0)           s[0][tx] = u[(j - 1) * nx + i];
        if (threadIdx.y == BY - 1 && j < ny - 1) s[BY + 1][tx] = u[(j + 1) * nx + i];
    }
    __syncthreads();

    if (!inside)
        return;

    if (i == 0 || j == 0 || i == nx - 1 || j == ny - 1) {
        unew[j * nx + i] = s[ty][tx];
    } else {
        float sum = s[ty - 1][tx] + s[ty + 1][tx] + s[ty][tx - 1] + s[ty][tx + 1];
        unew[j * nx + i] = 0.25f * (sum + h2 * f[j * nx + i]);
    }
}
