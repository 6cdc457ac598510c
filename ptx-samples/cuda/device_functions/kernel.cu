// Real (non-inlined) device function calls: two recursive functions (GCD and
// naive Fibonacci), a function returning a struct by value, one writing
// through a pointer argument, and a float helper.
struct Stats {
    int lo;
    int hi;
    float mean;
};

__device__ __noinline__ int gcd_rec(int a, int b)
{
    return b == 0 ? a : gcd_rec(b, a % b);
}

__device__ __noinline__ int fib_rec(int n)
{
    return n < 2 ? n : fib_rec(n - 1) + fib_rec(n - 2);
}

__device__ __noinline__ Stats stats3(int a, int b, int c)
{
    Stats s;
    s.lo = min(a, min(b, c));
    s.hi = max(a, max(b, c));
    s.mean = (float)(a + b + c) / 3.0f;
    return s;
}

__device__ __noinline__ void accumulate(int* acc, int v)
{
    *acc = *acc * 31 + v;
}

__device__ __noinline__ float half_square_plus(float x)
{
    return x * x * 0.5f + x;
}

extern "C" __global__ void device_functions(const int* __restrict__ a,
                                            const int* __restrict__ b,
                                            int* __restrict__ iout,
                                            float* __restrict__ fout, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int x = a[i], y = b[i];

    int g = gcd_rec(x, y);
    int f = fib_rec(x & 15);
    Stats s = stats3(x, y, g);

    int acc = 7;
    accumulate(&acc, g);
    accumulate(&acc, f);

    iout[5 * i + 0] = g;
    iout[5 * i + 1] = f;
    iout[5 * i + 2] = s.lo;
    iout[5 * i + 3] = s.hi;
    iout[5 * i + 4] = acc;
    fout[2 * i + 0] = s.mean;
    fout[2 * i + 1] = half_square_plus((float)(y % 1000) * 0.25f);
}
