/* What an nvcc-built program does at start-up and at a <<<...>>> launch,
 * on NVIDIA's libcudart.so.12 over warpjit's libcuda.so.1 (run by
 * cuda-shim/clients/run.sh; nvcc itself is not needed): a fatbin holding
 * PTX (the corpus's saxpy, read from argv[1]) is registered with
 * __cudaRegisterFatBinary, its kernel with __cudaRegisterFunction under a
 * host stub's address, then cudaMalloc/cudaMemcpy, cudaLaunchKernel on that
 * address, a stream and events, and the result checked; then a second
 * fatbin (PTX written here) with a __device__ and a __constant__ variable
 * registered with __cudaRegisterVar, set with cudaMemcpyToSymbol, a kernel
 * adding to one, and read back with cudaMemcpyFromSymbol, with
 * cudaFuncGetAttributes and the occupancy calculator on its stub.
 *   gcc cudart_registered.c -o r -L<wheel>/nvidia/cuda_runtime/lib -l:libcudart.so.12
 *   LD_LIBRARY_PATH=<libcuda.so.1's folder>:<that lib> ./r kernel.compute_80.ptx */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct { unsigned x, y, z; } dim3;
typedef void *cudaStream_t;
typedef void *cudaEvent_t;
void **__cudaRegisterFatBinary(void *wrapper);
void __cudaRegisterFatBinaryEnd(void **handle);
void __cudaUnregisterFatBinary(void **handle);
void __cudaRegisterVar(void **handle, char *host, char *device, const char *name, int ext,
                       size_t size, int constant, int global);
void __cudaRegisterFunction(void **handle, const char *host, char *device, const char *name,
                            int limit, void *tid, void *bid, void *bdim, void *gdim, int *wsize);
int cudaLaunchKernel(const void *f, dim3 grid, dim3 block, void **args, size_t shared, cudaStream_t s);
int cudaMalloc(void **p, size_t n);
int cudaFree(void *p);
int cudaMemcpy(void *dst, const void *src, size_t n, int kind);
int cudaStreamCreate(cudaStream_t *s);
int cudaStreamSynchronize(cudaStream_t s);
int cudaStreamDestroy(cudaStream_t s);
int cudaEventCreate(cudaEvent_t *e);
int cudaEventRecord(cudaEvent_t e, cudaStream_t s);
int cudaEventSynchronize(cudaEvent_t e);
int cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b);
int cudaGetLastError(void);
int cudaMemcpyToSymbol(const void *symbol, const void *src, size_t n, size_t offset, int kind);
int cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t n, size_t offset, int kind);
int cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, const void *f, int threads, size_t shared);
/* The head of cudaFuncAttributes: sharedSizeBytes, constSizeBytes,
 * localSizeBytes, maxThreadsPerBlock, numRegs (the rest left as bytes). */
struct func_attributes { size_t shared, constant, local; int max_threads, regs; char rest[256]; };
int cudaFuncGetAttributes(struct func_attributes *a, const void *f);
int cudaDeviceSynchronize(void);
const char *cudaGetErrorString(int e);

#define CHECK(x) do { int e_ = (x); if (e_) { fprintf(stderr, "%s: %d %s\n", #x, e_, cudaGetErrorString(e_)); exit(1); } } while (0)

/* The host stubs nvcc would generate; only their addresses matter here. */
static void saxpy_stub(void) {}
static void bump_stub(void) {}
/* The host shadows of the device variables. */
static unsigned counter, step;

struct wrapper { uint32_t magic, version; const void *data; void *unused; };

/* A __device__ counter, a __constant__ step, and a kernel adding the step
 * to the counter once per thread. */
static const char bump_ptx[] =
    ".version 7.0\n.target sm_80\n.address_size 64\n"
    ".global .align 4 .u32 counter;\n.const .align 4 .u32 step;\n"
    ".visible .entry bump()\n{\n.reg .b32 %r<3>;\n"
    "ld.const.u32 %r1, [step];\natom.global.add.u32 %r2, [counter], %r1;\nret;\n}\n";

/* Registers a fatbin holding `ptx` as nvcc's start-up code does. */
static void **register_ptx(const char *ptx, size_t len) {
  size_t padded = (len + 1 + 7) & ~(size_t)7;
  /* The fatbin: its 16-byte header, one 72-byte PTX entry header, the text. */
  uint8_t *fb = calloc(1, 16 + 72 + padded);
  uint32_t magic = 0xba55ed50, entry_size = 72, payload = (uint32_t)padded, sm = 80;
  uint16_t one = 1, hsize = 16, kind = 1, ver = 0x101;
  uint64_t fat = 72 + padded, flags = 0x11, raw = len + 1;
  memcpy(fb, &magic, 4); memcpy(fb + 4, &one, 2); memcpy(fb + 6, &hsize, 2); memcpy(fb + 8, &fat, 8);
  uint8_t *e = fb + 16;
  memcpy(e, &kind, 2); memcpy(e + 2, &ver, 2); memcpy(e + 4, &entry_size, 4);
  uint32_t unpadded = (uint32_t)(len + 1);
  memcpy(e + 8, &payload, 4); memcpy(e + 16, &unpadded, 4); memcpy(e + 28, &sm, 4);
  memcpy(e + 40, &flags, 8); memcpy(e + 56, &raw, 8);
  memcpy(e + 72, ptx, len);
  struct wrapper *w = calloc(1, sizeof *w);
  w->magic = 0x466243b1; w->version = 1; w->data = fb;
  return __cudaRegisterFatBinary(w);
}

int main(int argc, char **argv) {
  if (argc < 2) return 2;
  FILE *f = fopen(argv[1], "rb");
  if (!f) { perror(argv[1]); return 2; }
  static char ptx[1 << 20];
  size_t len = fread(ptx, 1, sizeof ptx - 1, f);
  fclose(f);
  void **handle = register_ptx(ptx, len);
  __cudaRegisterFunction(handle, (const char *)saxpy_stub, "_Z5saxpyifPKfPf", "_Z5saxpyifPKfPf",
                         -1, 0, 0, 0, 0, 0);
  __cudaRegisterFatBinaryEnd(handle);
  void **vars = register_ptx(bump_ptx, sizeof bump_ptx - 1);
  __cudaRegisterFunction(vars, (const char *)bump_stub, "bump", "bump", -1, 0, 0, 0, 0, 0);
  __cudaRegisterVar(vars, (char *)&counter, "counter", "counter", 0, 4, 0, 0);
  __cudaRegisterVar(vars, (char *)&step, "step", "step", 0, 4, 1, 0);
  __cudaRegisterFatBinaryEnd(vars);

  enum { N = 10000 };
  static float x[N], y[N];
  for (int i = 0; i < N; i++) { x[i] = (float)i; y[i] = 1.0f; }
  float *dx, *dy;
  CHECK(cudaMalloc((void **)&dx, sizeof x));
  CHECK(cudaMalloc((void **)&dy, sizeof y));
  CHECK(cudaMemcpy(dx, x, sizeof x, 1));
  CHECK(cudaMemcpy(dy, y, sizeof y, 1));
  cudaStream_t s;
  cudaEvent_t a, b;
  CHECK(cudaStreamCreate(&s));
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  int n = N;
  float alpha = 3.0f;
  void *args[] = {&n, &alpha, &dx, &dy};
  dim3 grid = {(N + 255) / 256, 1, 1}, block = {256, 1, 1};
  CHECK(cudaEventRecord(a, s));
  CHECK(cudaLaunchKernel((const void *)saxpy_stub, grid, block, args, 0, s));
  CHECK(cudaEventRecord(b, s));
  CHECK(cudaEventSynchronize(b));
  float ms = -1;
  CHECK(cudaEventElapsedTime(&ms, a, b));
  CHECK(cudaStreamSynchronize(s));
  CHECK(cudaMemcpy(y, dy, sizeof y, 2));
  for (int i = 0; i < N; i++) {
    if (y[i] != 3.0f * i + 1.0f) { fprintf(stderr, "y[%d] = %g\n", i, y[i]); return 1; }
  }
  CHECK(cudaGetLastError());

  unsigned start = 1000, by = 3, got = 0;
  CHECK(cudaMemcpyToSymbol(&counter, &start, 4, 0, 1));
  CHECK(cudaMemcpyToSymbol(&step, &by, 4, 0, 1));
  dim3 g4 = {4, 1, 1}, b64 = {64, 1, 1};
  CHECK(cudaLaunchKernel((const void *)bump_stub, g4, b64, NULL, 0, s));
  CHECK(cudaStreamSynchronize(s));
  CHECK(cudaMemcpyFromSymbol(&got, &counter, 4, 0, 2));
  if (got != 1000 + 256 * 3) { fprintf(stderr, "counter = %u\n", got); return 1; }
  struct func_attributes fa;
  memset(&fa, 0, sizeof fa);
  CHECK(cudaFuncGetAttributes(&fa, (const void *)saxpy_stub));
  if (fa.max_threads < 256 || fa.regs <= 0) { fprintf(stderr, "attributes %d %d\n", fa.max_threads, fa.regs); return 1; }
  int blocks = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, (const void *)saxpy_stub, 256, 0));
  if (blocks <= 0) { fprintf(stderr, "occupancy %d\n", blocks); return 1; }
  CHECK(cudaStreamDestroy(s));
  CHECK(cudaFree(dx));
  CHECK(cudaFree(dy));
  CHECK(cudaDeviceSynchronize());
  __cudaUnregisterFatBinary(vars);
  __cudaUnregisterFatBinary(handle);
  printf("cudart registered fatbins on warpjit: cudaLaunchKernel saxpy (%d elements, %.3f ms), "
         "__device__/__constant__ symbols, attributes (%d registers), occupancy (%d blocks/SM) OK\n",
         N, ms, fa.regs, blocks);
  return 0;
}
