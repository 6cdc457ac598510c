// Divergent control flow inside warps: lanes split by parity, then by data,
// with nested ifs, a data-dependent loop with an early break, a switch, and
// an early return for some threads (their outputs stay untouched, i.e. zero).
// path[i] records which branches the thread took as a bit mask.
extern "C" __global__ void divergent_branches(const int* __restrict__ data,
                                              int* __restrict__ out,
                                              int* __restrict__ path, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int v = data[i];
    int lane = threadIdx.x & 31;
    if (v < -900)
        return;                       // early exit: out[i] and path[i] stay 0

    int result;
    int p = 0;
    if (lane & 1) {                   // odd lanes
        p |= 1;
        if (v > 0) {
            p |= 2;
            result = v * 3 + lane;
        } else {
            p |= 4;
            if (v % 3 == 0) {
                p |= 8;
                result = -v / 3;
            } else {
                result = v - lane;
            }
        }
    } else {                          // even lanes
        p |= 16;
        int acc = 0;
        for (int k = 0; k < (v & 7); k++) {
            acc += k * v;
            if (acc > 1000) {
                p |= 32;
                break;
            }
        }
        result = acc;
        if (lane < 16) {
            p |= 64;
            result ^= 0x55;
        }
    }

    switch ((unsigned)v % 4) {
    case 0: result += 1; break;
    case 1: result *= 2; break;
    case 2: result -= 7; break;
    default: p |= 128; break;
    }
    out[i] = result;
    path[i] = p;
}
