// A struct passed by value as a kernel parameter (mixed float/int/double/short
// fields with padding: 24 bytes, 8-byte aligned). Each thread transforms one
// element according to the parameters.
struct TransformParams {
    float scale;    // offset 0
    int offset;     // offset 4
    double bias;    // offset 8
    short flags;    // offset 16, then 6 bytes of padding
};

enum { FLAG_NEGATE = 1, FLAG_HALVE = 2, FLAG_CLAMP = 4 };

__global__ void transform(TransformParams p, const float* __restrict__ in,
                          double* __restrict__ out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    double v = (double)(in[i] * p.scale) + p.bias;
    v += (double)(p.offset + i);
    if (p.flags & FLAG_NEGATE)
        v = -v;
    if (p.flags & FLAG_HALVE)
        v *= 0.5;
    if (p.flags & FLAG_CLAMP)
        v = fmin(fmax(v, -100.0), 100.0);
    if (p.flags < 0)               // sign bit of the short
        v += 1000.0;
    out[i] = v;
}
