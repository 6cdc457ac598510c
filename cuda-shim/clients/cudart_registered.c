/* What an nvcc-built program does at start-up and at a <<<...>>> launch,
 * on NVIDIA's libcudart.so.12 over warpjit's libcuda.so.1 (run by
 * cuda-shim/clients/run.sh; nvcc itself is not needed): a fatbin holding
 * PTX (the corpus's saxpy, read from argv[1]) is registered with
 * __cudaRegisterFatBinary, its kernel with __cudaRegisterFunction under a
 * host stub's address, then cudaMalloc/cudaMemcpy, cudaLaunchKernel on that
 * address, a stream and events, and the result checked.
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
int cudaDeviceSynchronize(void);
const char *cudaGetErrorString(int e);

#define CHECK(x) do { int e_ = (x); if (e_) { fprintf(stderr, "%s: %d %s\n", #x, e_, cudaGetErrorString(e_)); exit(1); } } while (0)

/* The host stub nvcc would generate; only its address matters here. */
static void saxpy_stub(void) {}

struct wrapper { uint32_t magic, version; const void *data; void *unused; };

int main(int argc, char **argv) {
  if (argc < 2) return 2;
  FILE *f = fopen(argv[1], "rb");
  if (!f) { perror(argv[1]); return 2; }
  static char ptx[1 << 20];
  size_t len = fread(ptx, 1, sizeof ptx - 1, f);
  fclose(f);
  size_t padded = (len + 1 + 7) & ~(size_t)7;
  /* The fatbin: its 16-byte header, one 72-byte PTX entry header, the text. */
  uint8_t *fb = calloc(1, 16 + 72 + padded);
  uint32_t magic = 0xba55ed50, entry_size = 72, payload = (uint32_t)padded, sm = 80;
  uint16_t one = 1, hsize = 16, kind = 1, ver = 0x101;
  uint64_t fat = 72 + padded, flags = 0x11, raw = len + 1;
  memcpy(fb, &magic, 4); memcpy(fb + 4, &one, 2); memcpy(fb + 6, &hsize, 2); memcpy(fb + 8, &fat, 8);
  uint8_t *e = fb + 16;
  memcpy(e, &kind, 2); memcpy(e + 2, &ver, 2); memcpy(e + 4, &entry_size, 4);
  memcpy(e + 8, &payload, 4); memcpy(e + 28, &sm, 4); memcpy(e + 48, &flags, 8); memcpy(e + 64, &raw, 8);
  memcpy(e + 72, ptx, len);
  static struct wrapper w;
  w.magic = 0x466243b1; w.version = 1; w.data = fb;

  void **handle = __cudaRegisterFatBinary(&w);
  __cudaRegisterFunction(handle, (const char *)saxpy_stub, "_Z5saxpyifPKfPf", "_Z5saxpyifPKfPf",
                         -1, 0, 0, 0, 0, 0);
  __cudaRegisterFatBinaryEnd(handle);

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
  CHECK(cudaStreamDestroy(s));
  CHECK(cudaFree(dx));
  CHECK(cudaFree(dy));
  CHECK(cudaDeviceSynchronize());
  __cudaUnregisterFatBinary(handle);
  printf("cudart registered fatbin on warpjit: cudaLaunchKernel saxpy OK (%d elements, %.3f ms)\n", N, ms);
  return 0;
}
