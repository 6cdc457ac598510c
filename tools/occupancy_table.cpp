// Generates tests/data/occupancy_table.csv with NVIDIA's own occupancy rules
// (cuda_occupancy.h from the pip package nvidia-cuda-runtime-cu12, header
// only), for warpjit's tests/occupancy.rs. Regenerate with
// tools/gen_occupancy_table.sh. The per-architecture limits below must match
// src/timing/occupancy.rs's BUILTIN table (the test checks names and rows).
#include <cstdio>
#include <cstring>
#include "cuda_occupancy.h"

struct Arch { const char *name; int major, minor, threadsPerSM; size_t smemPerSM, optin, reserved; };

static const Arch ARCHS[] = {
    {"sm_35", 3, 5, 2048, 48 * 1024, 48 * 1024, 0},
    {"sm_52", 5, 2, 2048, 96 * 1024, 48 * 1024, 0},
    {"sm_60", 6, 0, 2048, 64 * 1024, 48 * 1024, 0},
    {"sm_61", 6, 1, 2048, 96 * 1024, 48 * 1024, 0},
    {"sm_70", 7, 0, 2048, 96 * 1024, 96 * 1024, 0},
    {"sm_75", 7, 5, 1024, 64 * 1024, 64 * 1024, 0},
    {"sm_80", 8, 0, 2048, 164 * 1024, 163 * 1024, 1024},
    {"sm_86", 8, 6, 1536, 100 * 1024, 99 * 1024, 1024},
    {"sm_89", 8, 9, 1536, 100 * 1024, 99 * 1024, 1024},
    {"sm_90", 9, 0, 2048, 228 * 1024, 227 * 1024, 1024},
};

int main() {
    const int blocks[] = {32, 64, 96, 128, 160, 192, 256, 320, 384, 512, 640, 768, 1000, 1024};
    const int regs[] = {8, 16, 24, 32, 37, 40, 48, 64, 72, 96, 128, 168, 200, 255};
    const int smem[] = {0, 100, 1024, 4096, 12288, 20000, 32768, 40000, 49152};
    const int dyn[] = {0, 512, 2048, 16384, 30000};
    unsigned rng = 12345;
    printf("arch,block,regs,static_smem,dynamic_smem,active_blocks,limit_warps,limit_regs,limit_smem,limit_blocks\n");
    for (const Arch &a : ARCHS) {
        for (int i = 0; i < 40; i++) {
            rng = rng * 1103515245u + 12345u;
            int b = blocks[(rng >> 8) % 14], r = regs[(rng >> 12) % 14], s = smem[(rng >> 16) % 9], d = dyn[(rng >> 20) % 5];
            cudaOccDeviceProp p;
            p.computeMajor = a.major;
            p.computeMinor = a.minor;
            p.maxThreadsPerBlock = 1024;
            p.maxThreadsPerMultiprocessor = a.threadsPerSM;
            p.regsPerBlock = 65536;
            p.regsPerMultiprocessor = 65536;
            p.warpSize = 32;
            p.sharedMemPerBlock = 48 * 1024;
            p.sharedMemPerMultiprocessor = a.smemPerSM;
            p.numSms = 1;
            p.sharedMemPerBlockOptin = a.optin;
            p.reservedSharedMemPerBlock = a.reserved;
            cudaOccFuncAttributes f;
            f.maxThreadsPerBlock = 1024;
            f.numRegs = r;
            f.sharedSizeBytes = s;
            cudaOccDeviceState st;
            cudaOccResult res;
            memset(&res, 0, sizeof(res));
            if (cudaOccMaxActiveBlocksPerMultiprocessor(&res, &p, &f, &st, b, d) != CUDA_OCC_SUCCESS) continue;
            printf("%s,%d,%d,%d,%d,%d,%d,%d,%d,%d\n", a.name, b, r, s, d, res.activeBlocksPerMultiprocessor,
                   res.blockLimitWarps, res.blockLimitRegs, res.blockLimitSharedMem, res.blockLimitBlocks);
        }
    }
    return 0;
}
