/* CPU reference for grid_stride_copy_vec: element-wise copies with swizzled
 * components: float4 (x,y,z,w) -> (w,z,y,x), int2 (x,y) -> (y,x),
 * double2 (x,y) -> (y,x). Inputs are random bit patterns (NaNs with payloads,
 * denormals, -0 included); a copy moves bits unchanged, so outputs are compared
 * as raw integers. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N4 1200
#define N2 1500
#define ND 700

static uint32_t rng = 0xa54ff53au;
static uint32_t xorshift32(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return rng;
}

static void write_file(const char *name, const void *p, size_t bytes)
{
    FILE *f = fopen(name, "wb");
    if (!f || fwrite(p, 1, bytes, f) != bytes) { perror(name); exit(1); }
    fclose(f);
}

int main(void)
{
    static uint32_t f4_in[N4 * 4], f4_out[N4 * 4];
    static int32_t i2_in[N2 * 2], i2_out[N2 * 2];
    static uint64_t d2_in[ND * 2], d2_out[ND * 2];

    for (int i = 0; i < N4 * 4; i++) f4_in[i] = xorshift32();
    f4_in[0] = 0x7fc00001u; /* quiet NaN with payload */
    f4_in[1] = 0xff800000u; /* -inf */
    f4_in[2] = 0x80000000u; /* -0 */
    f4_in[3] = 0x00000001u; /* smallest denormal */
    f4_in[5] = 0x7f800001u; /* signaling NaN */
    for (int i = 0; i < N2 * 2; i++) i2_in[i] = (int32_t)xorshift32();
    for (int i = 0; i < ND * 2; i++) d2_in[i] = ((uint64_t)xorshift32() << 32) | xorshift32();
    d2_in[0] = 0x7ff8000000000abcull; /* NaN with payload */
    d2_in[1] = 0x8000000000000000ull; /* -0 */
    d2_in[2] = 0x000fffffffffffffull; /* largest denormal */

    for (int i = 0; i < N4; i++)
        for (int c = 0; c < 4; c++) f4_out[4 * i + c] = f4_in[4 * i + (3 - c)];
    for (int i = 0; i < N2; i++) {
        i2_out[2 * i] = i2_in[2 * i + 1];
        i2_out[2 * i + 1] = i2_in[2 * i];
    }
    for (int i = 0; i < ND; i++) {
        d2_out[2 * i] = d2_in[2 * i + 1];
        d2_out[2 * i + 1] = d2_in[2 * i];
    }

    write_file("f4_in.bin", f4_in, sizeof f4_in);
    write_file("i2_in.bin", i2_in, sizeof i2_in);
    write_file("d2_in.bin", d2_in, sizeof d2_in);
    write_file("f4_out.expected.bin", f4_out, sizeof f4_out);
    write_file("i2_out.expected.bin", i2_out, sizeof i2_out);
    write_file("d2_out.expected.bin", d2_out, sizeof d2_out);
    return 0;
}
