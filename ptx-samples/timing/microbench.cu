// Microbenchmarks for the timing model, written the way GPU researchers
// write them (Wong et al. 2010, Jia et al. 2018, Arafa et al. 2019): a
// dependent chain timed with clock64() (inline PTX so the compiler keeps the
// chain exactly), pointer chasing over a linked ring for cache and memory
// latencies, and a dependent-FMA kernel for latency hiding.
// Regenerate the PTX with: python3 ptx-samples/gen/gen_timing.py

#define CHAIN 64

// One dependent chain of CHAIN instructions per iteration; cycles[0] gets
// the clock64() difference around `iters` iterations.
#define DEFINE_CHAIN(NAME, T, ASM, CONSTRAINT)                                  \
  extern "C" __global__ void NAME(T *data, long long *cycles, int iters) {     \
    T x = data[threadIdx.x];                                                    \
    T y = data[threadIdx.x + 32];                                               \
    long long t0 = clock64();                                                   \
    for (int i = 0; i < iters; i++) {                                           \
      _Pragma("unroll") for (int k = 0; k < CHAIN; k++) {                       \
        asm volatile(ASM : "+" CONSTRAINT(x) : CONSTRAINT(y));                  \
      }                                                                         \
    }                                                                           \
    long long t1 = clock64();                                                   \
    data[threadIdx.x] = x;                                                      \
    if (threadIdx.x == 0) cycles[0] = t1 - t0;                                  \
  }

DEFINE_CHAIN(chain_add_s32, int, "add.s32 %0, %0, %1;", "r")
DEFINE_CHAIN(chain_mul_s32, int, "mul.lo.s32 %0, %0, %1;", "r")
DEFINE_CHAIN(chain_fma_f32, float, "fma.rn.f32 %0, %0, %1, %1;", "f")
DEFINE_CHAIN(chain_fma_f64, double, "fma.rn.f64 %0, %0, %1, %1;", "d")
DEFINE_CHAIN(chain_ex2_f32, float, "ex2.approx.ftz.f32 %0, %0;", "f")

// Pointer chasing: `ring` holds pointers (each element the address of the
// next); `warm` steps first (to fill the caches), then `iters` timed steps.
extern "C" __global__ void chase(void **ring, long long *out, int warm, int iters) {
  void **p = ring;
  for (int i = 0; i < warm; i++) p = (void **)*p;
  long long t0 = clock64();
  for (int i = 0; i < iters; i++) p = (void **)*p;
  long long t1 = clock64();
  out[0] = t1 - t0;
  out[1] = (long long)p;
}

// Latency hiding: every thread runs a dependent FMA chain; throughput over
// the number of resident warps shows Little's law.
extern "C" __global__ void fma_throughput(float *data, float a, float b, int iters) {
  float x = data[blockIdx.x * blockDim.x + threadIdx.x];
  for (int i = 0; i < iters; i++) {
#pragma unroll
    for (int k = 0; k < 16; k++) x = fmaf(x, a, b);
  }
  data[blockIdx.x * blockDim.x + threadIdx.x] = x;
}

// Independent integer and FP32 chains, interleaved (four of each, eight
// steps unrolled): before Volta both kinds run on the same CUDA cores, so
// a warp-instruction of either takes the cores for the same dispatch time;
// from Volta on they issue to separate INT32 and FP32 units.
extern "C" __global__ void int_fp32_mix(float *fout, int *iout, float a, int iters) {
  const int t = threadIdx.x;
  int i0 = t, i1 = t + 1, i2 = t + 2, i3 = t + 3;
  float f0 = t, f1 = t + 1.0f, f2 = t + 2.0f, f3 = t + 3.0f;
  for (int n = 0; n < iters; n++) {
#pragma unroll
    for (int k = 0; k < 8; k++) {
      i0 = (i0 ^ 0x5bd1e995) + 0x1b873593;
      f0 = fmaf(f0, a, 1.0f);
      i1 = (i1 ^ 0x5bd1e995) + 0x1b873593;
      f1 = fmaf(f1, a, 1.0f);
      i2 = (i2 ^ 0x5bd1e995) + 0x1b873593;
      f2 = fmaf(f2, a, 1.0f);
      i3 = (i3 ^ 0x5bd1e995) + 0x1b873593;
      f3 = fmaf(f3, a, 1.0f);
    }
  }
  iout[blockIdx.x * blockDim.x + t] = i0 + i1 + i2 + i3;
  fout[blockIdx.x * blockDim.x + t] = f0 + f1 + f2 + f3;
}
