// The video instructions (PTX ISA §9.7.16): each thread reads three words a, b, c
// (edge patterns such as 0x7f/0x80/0xff bytes and 0x7fff/0x8000 halves for the first
// 256 threads, pseudo-random words for the rest) and writes K results: CUDA's SIMD
// intrinsics (which NVRTC lowers to vabsdiff4, vabsdiff2.add and friends or to plain
// integer code; half-word intrinsics that compute_90 lowers to add.u16x2/min.u16x2,
// which warpjit does not execute yet, are left out), then inline asm of every video form: scalar vadd/vsub/vabsdiff/vmin/
// vmax with selectors, .sat, a secondary .add/.min/.max or a data merge d.bN/d.hN;
// vshl/vshr with .clamp/.wrap; vset; vmad with negations, .po, .shr7/.shr15, .sat;
// the SIMD vop2/vop4 forms with masks, source selectors, .sat and .add.
#define K 59

#define V(k, text)                                                     \
    {                                                                  \
        unsigned r;                                                    \
        asm(text : "=r"(r) : "r"(a), "r"(b), "r"(c));                  \
        o[k] = r;                                                      \
    }

extern "C" __global__ void simd_video(const unsigned *in, unsigned *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned a = in[i], b = in[n + i], c = in[2 * n + i];
    unsigned *o = out + (size_t)i * K;
    o[0] = __vabsdiffu4(a, b);
    o[1] = __vsadu2(a, b);
    o[2] = __vadd4(a, b);
    o[3] = __vaddss4(a, b);
    o[4] = __vaddus4(a, b);
    o[5] = __vsubss4(a, b);
    o[6] = __vavgu2(a, b);
    o[7] = __vmaxs4(a, b);
    o[8] = __vminu4(a, b);
    o[9] = __vabsdiffs4(a, b);
    o[10] = __vsetgtu4(a, b);
    o[11] = __vsads4(a, b);
    V(12, "vadd.s32.u32.s32.sat %0, %1.b1, %2.h1;");
    V(13, "vsub.u32.s32.s32 %0, %1, %2;");
    V(14, "vsub.s32.s32.s32.sat %0, %1, %2;");
    V(15, "vabsdiff.u32.u32.u32.add %0, %1, %2, %3;");
    V(16, "vmin.s32.s32.s32.sat.min %0, %1.b3, %2.b0, %3;");
    V(17, "vmax.u32.s32.u32.max %0, %1.h0, %2, %3;");
    V(18, "vadd.s32.s32.s32.sat %0.h1, %1.b1, %2.h1, %3;");
    V(19, "vsub.u32.u32.u32.sat %0.b2, %1.b0, %2.b3, %3;");
    V(20, "vadd.u32.u32.u32 %0.b3, %1, %2, %3;");
    V(21, "vshl.u32.u32.u32.clamp %0, %1, %2.b0;");
    V(22, "vshl.u32.u32.u32.wrap.sat %0, %1, %2.b0;");
    V(23, "vshr.s32.s32.u32.wrap.sat.max %0, %1.h1, %2.b3, %3;");
    V(24, "vshr.s32.s32.u32.clamp.add %0, %1, %2.b1, %3;");
    V(25, "vshl.s32.s32.u32.clamp.sat %0.h0, %1.b2, %2.b0, %3;");
    V(26, "vset.s32.u32.lt %0, %1, %2;");
    V(27, "vset.u32.u32.ne.add %0, %1.b1, %2.h1, %3;");
    V(28, "vset.s32.s32.ge %0.h0, %1.b2, %2.b2, %3;");
    V(29, "vset.s32.s32.gt.max %0, %1.h1, %2.h0, %3;");
    V(30, "vmad.s32.s32.s32.sat %0, -%1, %2, %3;");
    V(31, "vmad.u32.u32.u32 %0, %1, %2, -%3;");
    V(32, "vmad.s32.u32.s32 %0, -%1, -%2, %3;");
    V(33, "vmad.u32.u32.u32.po.shr7 %0, %1.h0, %2.b2, %3;");
    V(34, "vmad.u32.u32.u32.shr15.sat %0, %1.h1, %2.h0, %3;");
    V(35, "vmad.s32.s32.u32.shr15 %0, %1.h1, -%2.h0, %3;");
    V(36, "vmad.u32.u32.u32.sat %0, %1, %2, -%3;");
    V(37, "vadd2.u32.u32.u32.sat %0, %1, %2, %3;");
    V(38, "vsub2.s32.s32.s32.sat %0.h0, %1.h10, %2.h32, %3;");
    V(39, "vavrg2.s32.s32.s32 %0.h1, %1.h31, %2.h02, %3;");
    V(40, "vabsdiff2.s32.s32.s32.add %0, %1, %2, %3;");
    V(41, "vmin2.s32.u32.u32.add %0.h10, %1.h00, %2.h22, %3;");
    V(42, "vmax2.u32.s32.s32.sat %0, %1, %2, %3;");
    V(43, "vset2.u32.u32.ne.add %0, %1, %2, %3;");
    V(44, "vset2.s32.u32.lt %0.h1, %1.h21, %2, %3;");
    V(45, "vadd4.s32.s32.s32.sat %0, %1, %2, %3;");
    V(46, "vsub4.s32.s32.s32.sat %0.b0, %1.b3210, %2.b7654, %3;");
    V(47, "vavrg4.u32.u32.u32 %0.b31, %1, %2, %3;");
    V(48, "vavrg4.s32.s32.s32 %0, %1, %2, %3;");
    V(49, "vabsdiff4.u32.u32.u32 %0, %1, %2, %3;");
    V(50, "vabsdiff4.s32.s32.s32.sat %0, %1, %2, %3;");
    V(51, "vmin4.s32.s32.s32 %0.b20, %1.b7531, %2.b0246, %3;");
    V(52, "vmax4.u32.u32.u32.add %0.b3210, %1.b0123, %2.b2222, %3;");
    V(53, "vset4.s32.s32.lt %0, %1, %2, %3;");
    V(54, "vset4.u32.s32.ge.add %0.b321, %1, %2.b4444, %3;");
    V(55, "vsub4.u32.u32.u32.add %0, %1, %2, %3;");
    V(56, "vadd2.s32.s32.s32 %0, %1, %2, %3;");
    V(57, "vsub.s32.u32.u32.sat %0.b1, %1.h0, %2.h1, %3;");
    V(58, "vabsdiff.s32.s32.s32.sat %0.h0, %1.b0, %2.b2, %3;");
}
