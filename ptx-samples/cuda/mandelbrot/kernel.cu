// Mandelbrot escape-time iteration counts, one thread per pixel (2D grid).
// Compiled with --fmad=false so every multiply and add is rounded separately
// (the iteration count near the set's boundary is sensitive to fma contraction).
extern "C" __global__ void mandelbrot(unsigned int* __restrict__ iters,
                                      int width, int height,
                                      float x0, float y0, float dx, float dy,
                                      int max_iter)
{
    int px = blockIdx.x * blockDim.x + threadIdx.x;
    int py = blockIdx.y * blockDim.y + threadIdx.y;
    if (px >= width || py >= height)
        return;

    float cx = x0 + px * dx;
    float cy = y0 + py * dy;
    float x = 0.0f, y = 0.0f;
    int it = 0;
    while (it < max_iter) {
        float x2 = x * x;
        float y2 = y * y;
        if (x2 + y2 > 4.0f)
            break;
        float xy = x * y;
        y = xy + xy + cy;
        x = x2 - y2 + cx;
        ++it;
    }
    iters[py * width + px] = it;
}
