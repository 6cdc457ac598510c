// Float <-> integer conversions with every explicit CUDA rounding intrinsic,
// float rounding functions and __saturatef. Out-of-range and NaN inputs are
// included: CUDA's float->int conversions saturate.
__global__ void convert_all(const float* __restrict__ f,
                            const double* __restrict__ d,
                            const int* __restrict__ iv,
                            const long long* __restrict__ ll,
                            int* __restrict__ f2i,          // [n][4] rn rz rd ru
                            unsigned* __restrict__ f2u,     // [n]    rn
                            float* __restrict__ d2f,        // [n][4] rn rz rd ru
                            float* __restrict__ i2f,        // [n][4] rn rz rd ru
                            double* __restrict__ ll2d,      // [n]    rn
                            long long* __restrict__ d2ll,   // [n]    rz
                            float* __restrict__ fround,     // [n][5] trunc round rint floor ceil
                            float* __restrict__ sat,        // [n]
                            int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;

    float x = f[i];
    int4 r;
    r.x = __float2int_rn(x);
    r.y = __float2int_rz(x);
    r.z = __float2int_rd(x);
    r.w = __float2int_ru(x);
    reinterpret_cast<int4*>(f2i)[i] = r;
    f2u[i] = __float2uint_rn(x);

    double y = d[i];
    d2f[4 * i + 0] = __double2float_rn(y);
    d2f[4 * i + 1] = __double2float_rz(y);
    d2f[4 * i + 2] = __double2float_rd(y);
    d2f[4 * i + 3] = __double2float_ru(y);
    d2ll[i] = __double2ll_rz(y);

    int k = iv[i];
    i2f[4 * i + 0] = __int2float_rn(k);
    i2f[4 * i + 1] = __int2float_rz(k);
    i2f[4 * i + 2] = __int2float_rd(k);
    i2f[4 * i + 3] = __int2float_ru(k);

    ll2d[i] = __ll2double_rn(ll[i]);

    fround[5 * i + 0] = truncf(x);
    fround[5 * i + 1] = roundf(x);
    fround[5 * i + 2] = rintf(x);
    fround[5 * i + 3] = floorf(x);
    fround[5 * i + 4] = ceilf(x);
    sat[i] = __saturatef(x);
}
