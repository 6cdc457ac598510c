// Read-modify-write operations that have no native atomic, built from
// atomicCAS retry loops, the way CUDA code did it before (and still does for
// custom operations). The final values do not depend on the order of the
// successful CAS operations.

// Float max through the integer CAS on the bit pattern.
__device__ float atomicMaxFloat(float* address, float val)
{
    int* addr = reinterpret_cast<int*>(address);
    int old = *addr;
    int assumed;
    do {
        assumed = old;
        if (__int_as_float(assumed) >= val) break;
        old = atomicCAS(addr, assumed, __float_as_int(val));
    } while (assumed != old);
    return __int_as_float(old);
}

// Double min through the 64-bit CAS.
__device__ double atomicMinDouble(double* address, double val)
{
    unsigned long long* addr = reinterpret_cast<unsigned long long*>(address);
    unsigned long long old = *addr;
    unsigned long long assumed;
    do {
        assumed = old;
        if (__longlong_as_double((long long)assumed) <= val) break;
        old = atomicCAS(addr, assumed, (unsigned long long)__double_as_longlong(val));
    } while (assumed != old);
    return __longlong_as_double((long long)old);
}

// The pre-sm_60 double atomicAdd from the CUDA C Programming Guide.
__device__ double atomicAddDoubleCAS(double* address, double val)
{
    unsigned long long int* address_as_ull = (unsigned long long int*)address;
    unsigned long long int old = *address_as_ull, assumed;
    do {
        assumed = old;
        old = atomicCAS(address_as_ull, assumed,
                        __double_as_longlong(val + __longlong_as_double(assumed)));
    } while (assumed != old);
    return __longlong_as_double(old);
}

// Add `inc` to *address unless the result would exceed `limit`.
// Returns true when the addition happened.
__device__ bool atomicAddBelow(int* address, int inc, int limit)
{
    int old = *address;
    int assumed;
    do {
        assumed = old;
        if (assumed + inc > limit) return false;
        old = atomicCAS(address, assumed, assumed + inc);
    } while (assumed != old);
    return true;
}

// 16-bit counter increment through the 16-bit atomicCAS (sm_70+).
__device__ void atomicIncU16(unsigned short* address)
{
    unsigned short old = *address;
    unsigned short assumed;
    do {
        assumed = old;
        old = atomicCAS(address, assumed, (unsigned short)(assumed + 1));
    } while (assumed != old);
}

extern "C" __global__ void cas_loop_kernel(const float* __restrict__ vals,
                                           const int* __restrict__ ivals,
                                           const int* __restrict__ bucket_of,
                                           const int* __restrict__ limits,
                                           int n,
                                           float* gmax,          // 16 groups, initialised to -inf
                                           double* gmin,         // 8 groups, initialised to +inf
                                           double* dsum,         // 1
                                           int* fill,            // 32 buckets
                                           int* granted,         // 32 buckets
                                           unsigned short* cnt16) // 32 buckets
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;

    float v = vals[i];
    atomicMaxFloat(&gmax[(i * 7) & 15], v);

    int k = ivals[i];
    double d = (double)k * (1.0 / 1024.0);
    atomicMinDouble(&gmin[i & 7], d - (double)(i & 3));
    atomicAddDoubleCAS(dsum, d);

    int b = bucket_of[i];
    int inc = 1 + (b & 1);            // the same increment for every request on a bucket
    if (atomicAddBelow(&fill[b], inc, limits[b])) {
        atomicAdd(&granted[b], 1);
    }
    atomicIncU16(&cnt16[b]);
}
