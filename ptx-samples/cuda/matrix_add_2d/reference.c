// CPU reference for matrix_add_2d: C = A + B, 50 rows x 70 columns of f32,
// with row pitches of 320 (A), 288 (B) and 304 (C) bytes. The padding at the end
// of each row of C is never written by the kernel, so it stays zero.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROWS 50
#define COLS 70
#define PITCH_A 320 /* bytes: 80 floats */
#define PITCH_B 288 /* bytes: 72 floats */
#define PITCH_C 304 /* bytes: 76 floats */

static uint32_t rng = 0xBADC0DE5u;
static uint32_t xorshift32(void)
{
    uint32_t x = rng;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return rng = x;
}

static float frand(float lo, float hi)
{
    return lo + (hi - lo) * (float)(xorshift32() >> 8) * (1.0f / 16777216.0f);
}

static void write_file(const char* name, const void* p, size_t n)
{
    FILE* f = fopen(name, "wb");
    if (!f || fwrite(p, 1, n, f) != n) { perror(name); exit(1); }
    fclose(f);
}

static float* at(unsigned char* base, size_t pitch, int r, int c)
{
    return (float*)(base + (size_t)r * pitch) + c;
}

int main(void)
{
    static unsigned char a[ROWS * PITCH_A], b[ROWS * PITCH_B], c[ROWS * PITCH_C];
    /* Padding in the inputs holds garbage (a large sentinel) that must not leak. */
    for (size_t i = 0; i < sizeof a / 4; i++) ((float*)a)[i] = 1.0e30f;
    for (size_t i = 0; i < sizeof b / 4; i++) ((float*)b)[i] = -1.0e30f;
    memset(c, 0, sizeof c);
    for (int r = 0; r < ROWS; r++)
        for (int col = 0; col < COLS; col++) {
            *at(a, PITCH_A, r, col) = frand(-50.0f, 50.0f);
            *at(b, PITCH_B, r, col) = frand(-50.0f, 50.0f);
        }
    for (int r = 0; r < ROWS; r++)
        for (int col = 0; col < COLS; col++)
            *at(c, PITCH_C, r, col) = *at(a, PITCH_A, r, col) + *at(b, PITCH_B, r, col);
    write_file("a.bin", a, sizeof a);
    write_file("b.bin", b, sizeof b);
    write_file("c.expected.bin", c, sizeof c);
    return 0;
}
