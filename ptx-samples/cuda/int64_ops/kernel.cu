// Per-element 64-bit integer operations and intrinsics (long long /
// unsigned long long). Each thread writes NOPS results to out[i*NOPS ..].
// b is never zero and (a, b) is never (LLONG_MIN, -1).
#define NOPS 34

__global__ void int64_ops(const long long* __restrict__ a_in,
                          const long long* __restrict__ b_in,
                          const unsigned long long* __restrict__ c_in,
                          long long* __restrict__ out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;

    long long a = a_in[i];
    long long b = b_in[i];
    unsigned long long c = c_in[i];
    unsigned long long ua = (unsigned long long)a;
    unsigned long long ub = (unsigned long long)b;
    unsigned int sh = (unsigned int)(c & 63);
    long long* o = out + (size_t)i * NOPS;

    o[0] = a * b;
    o[1] = __mul64hi(a, b);
    o[2] = (long long)__umul64hi(ua, ub);
    o[3] = a / b;
    o[4] = a % b;
    o[5] = (long long)(ua / ub);
    o[6] = (long long)(ua % ub);

    o[7] = a >> sh;
    o[8] = (long long)(ua >> sh);
    o[9] = (long long)(ua << sh);

    o[10] = a & b;
    o[11] = a | b;
    o[12] = a ^ b;
    o[13] = ~a;

    o[14] = __popcll(ua);
    o[15] = __clzll(a);
    o[16] = (long long)__brevll(ua);
    o[17] = __ffsll(a);

    o[18] = llmin(a, b);
    o[19] = llmax(a, b);
    o[20] = (long long)ullmin(ua, ub);
    o[21] = (long long)ullmax(ua, ub);
    o[22] = llabs(a);

    unsigned int r = 1 + (unsigned int)((c >> 8) % 63);
    o[23] = (long long)((ua << r) | (ua >> (64 - r)));

    unsigned int pos = (unsigned int)(c & 31);
    unsigned int len = 1 + (unsigned int)((c >> 5) & 31);
    o[24] = (long long)((ua >> pos) & ((1ull << len) - 1));

    o[25] = a + b;
    o[26] = a - b;

    // 32 <-> 64 bit mixing
    o[27] = (long long)(int)ua;
    o[28] = (long long)((unsigned long long)(unsigned int)ub * (unsigned int)c);
    o[29] = (long long)(int)a * (int)b;

    // multiply-add and division by constants
    o[30] = a * 1000003LL + b;
    o[31] = (long long)(ua / 10u);
    o[32] = a / 7;
    o[33] = a % 1000;
}
