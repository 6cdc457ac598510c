// Per-element 32-bit integer operations and integer intrinsics. Each thread
// reads one (a, b, c) triple and writes NOPS results to out[i*NOPS .. i*NOPS+NOPS-1].
// b is never zero and (a, b) is never (INT_MIN, -1), so every division is defined.
#define NOPS 42

extern "C" __global__ void int32_ops(const int* __restrict__ a_in,
                                     const int* __restrict__ b_in,
                                     const unsigned int* __restrict__ c_in,
                                     int* __restrict__ out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;

    int a = a_in[i];
    int b = b_in[i];
    unsigned int c = c_in[i];
    unsigned int ua = (unsigned int)a;
    unsigned int ub = (unsigned int)b;
    unsigned int sh = c & 31;
    int* o = out + (size_t)i * NOPS;

    // multiplication, division
    o[0] = a * b;
    o[1] = __mulhi(a, b);
    o[2] = (int)__umulhi(ua, ub);
    o[3] = a / b;
    o[4] = a % b;
    o[5] = (int)(ua / ub);
    o[6] = (int)(ua % ub);

    // shifts by a variable amount (< 32)
    o[7] = a >> sh;
    o[8] = (int)(ua >> sh);
    o[9] = (int)(ua << sh);

    // bitwise
    o[10] = a & b;
    o[11] = a | b;
    o[12] = a ^ b;
    o[13] = ~a;

    // bit intrinsics
    o[14] = __popc(ua);
    o[15] = __clz(a);
    o[16] = (int)__brev(ua);
    o[17] = (int)__byte_perm(ua, ub, c & 0x7777);
    o[18] = (int)__byte_perm(ua, 0, 0x0123);          // byte swap
    o[19] = (int)__funnelshift_l(ua, ub, c);          // shift & 31
    o[20] = (int)__funnelshift_r(ua, ub, c);
    o[21] = (int)__funnelshift_lc(ua, ub, c & 63);    // shift clamped to 32
    o[22] = (int)__funnelshift_rc(ua, ub, c & 63);

    // min / max / abs / sad
    o[23] = min(a, b);
    o[24] = max(a, b);
    o[25] = (int)min(ua, ub);
    o[26] = (int)max(ua, ub);
    o[27] = abs(a);
    o[28] = (int)__sad(a, b, c);
    o[29] = (int)__usad(ua, ub, c);

    // 24-bit multiplies, find-first-set
    o[30] = __mul24(a, b);
    o[31] = (int)__umul24(ua, ub);
    o[32] = __ffs(a);

    // bit-field extract written with shifts and masks
    unsigned int pos = c & 15;
    unsigned int len = 1 + ((c >> 4) & 15);
    o[33] = (int)((ua >> pos) & ((1u << len) - 1));
    o[34] = (int)(ua << (32 - pos - len)) >> (32 - len);

    // rotate left by 1..31
    unsigned int r = 1 + (c >> 8) % 31;
    o[35] = (int)((ua << r) | (ua >> (32 - r)));

    // averages without overflow
    o[36] = __hadd(a, b);
    o[37] = __rhadd(a, b);
    o[38] = (int)__uhadd(ua, ub);
    o[39] = (int)__urhadd(ua, ub);

    // narrowing conversions with sign / zero extension
    o[40] = (int)(short)a;
    o[41] = (int)(signed char)b + (int)(unsigned char)(c >> 3);
}
