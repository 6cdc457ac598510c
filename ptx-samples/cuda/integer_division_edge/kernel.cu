// Signed/unsigned 32- and 64-bit division and remainder, by runtime divisors and
// by constants (which the compiler strength-reduces to mul.hi/shift sequences).
// C/C++ semantics: quotients truncate toward zero, the remainder has the sign of
// the dividend. Inputs never contain x / 0 or INT_MIN / -1.
template <typename T>
struct DivPair {
    __device__ static void run(T a, T b, T* r);
};

template <>
__device__ void DivPair<int>::run(int a, int b, int* r)
{
    r[0] = a / b;        r[1] = a % b;
    r[2] = a / 7;        r[3] = a % 7;
    r[4] = a / -5;       r[5] = a % -5;
    r[6] = a / 16;       r[7] = a % 16;
    r[8] = a / 1000000;  r[9] = a % 3;
}

template <>
__device__ void DivPair<unsigned>::run(unsigned a, unsigned b, unsigned* r)
{
    r[0] = a / b;        r[1] = a % b;
    r[2] = a / 10u;      r[3] = a % 10u;
    r[4] = a / 3u;       r[5] = a % 3u;
    r[6] = a / 4096u;    r[7] = a % 4096u;
    r[8] = a / 641u;     r[9] = a / 2147483649u;
}

template <>
__device__ void DivPair<long long>::run(long long a, long long b, long long* r)
{
    r[0] = a / b;        r[1] = a % b;
    r[2] = a / 1000;     r[3] = a % 1000;
    r[4] = a / -13;      r[5] = a % -13;
    r[6] = a / (1LL << 20);
    r[7] = a % 1000000007LL;
}

template <>
__device__ void DivPair<unsigned long long>::run(unsigned long long a, unsigned long long b,
                                                 unsigned long long* r)
{
    r[0] = a / b;        r[1] = a % b;
    r[2] = a / 10ull;    r[3] = a % 10ull;
    r[4] = a / 1000000007ull;
    r[5] = a % 1000000007ull;
    r[6] = a / 3ull;
    r[7] = a / 0x8000000000000005ull;
}

__global__ void int_div_edge(const int* __restrict__ a32, const int* __restrict__ b32,
                             const long long* __restrict__ a64, const long long* __restrict__ b64,
                             int* __restrict__ s32, unsigned* __restrict__ u32,
                             long long* __restrict__ s64, unsigned long long* __restrict__ u64,
                             int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int a = a32[i], b = b32[i];
    long long c = a64[i], d = b64[i];
    DivPair<int>::run(a, b, s32 + 10 * i);
    DivPair<unsigned>::run((unsigned)a, (unsigned)b, u32 + 10 * i);
    DivPair<long long>::run(c, d, s64 + 8 * i);
    DivPair<unsigned long long>::run((unsigned long long)c, (unsigned long long)d, u64 + 8 * i);
}
