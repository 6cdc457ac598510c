// SAXPY with a grid-stride loop: y = a * x + y, y updated in place.
// The grid is deliberately smaller than n so each thread handles several elements.
__global__ void saxpy(int n, float a, const float* x, float* y)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        y[i] = a * x[i] + y[i];
    }
}
