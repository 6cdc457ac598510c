// Quantised int8 GEMV with __dp4a (four int8 products per instruction), plus
// element-wise checks of the signed/unsigned __dp4a and __dp2a_lo/__dp2a_hi forms.
__global__ void int8_gemv_dp4a(const int* __restrict__ A,        // [rows][k4] packed int8
                               const int* __restrict__ x,        // [k4] packed int8
                               const int* __restrict__ bias,     // [rows]
                               int* __restrict__ y,              // [rows]
                               const int* __restrict__ sa,       // [n] packed int16x2 / int8x4
                               const int* __restrict__ sb,       // [n] packed int8x4
                               const int* __restrict__ sc,       // [n] accumulators
                               int* __restrict__ s_out,          // [n][3] dp4a, dp2a_lo, dp2a_hi
                               unsigned* __restrict__ u_out,     // [n][3] unsigned variants
                               int rows, int k4)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= rows) return;

    const int* row = A + (size_t)i * k4;
    int acc = bias[i];
#pragma unroll 4
    for (int k = 0; k < k4; k++)
        acc = __dp4a(row[k], x[k], acc);
    y[i] = acc;

    int a = sa[i], b = sb[i], c = sc[i];
    s_out[3 * i + 0] = __dp4a(a, b, c);
    s_out[3 * i + 1] = __dp2a_lo(a, b, c);
    s_out[3 * i + 2] = __dp2a_hi(a, b, c);

    unsigned ua = (unsigned)a, ub = (unsigned)b, uc = (unsigned)c;
    u_out[3 * i + 0] = __dp4a(ua, ub, uc);
    u_out[3 * i + 1] = __dp2a_lo(ua, ub, uc);
    u_out[3 * i + 2] = __dp2a_hi(ua, ub, uc);
}
