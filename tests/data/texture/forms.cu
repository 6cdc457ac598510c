// Texture and surface forms NVRTC 12.9 emits for compute_80 (tests/texture.rs).
// forms.ptx: NVRTC with -std=c++17 --gpu-architecture=compute_80 and the CUDA
// headers of nvidia-cuda-runtime-cu12 on the include path.
extern "C" __global__ void t1(cudaTextureObject_t t, float* o, int n){ int i=threadIdx.x; o[i]=tex1Dfetch<float>(t,i); }
extern "C" __global__ void t2(cudaTextureObject_t t, float4* o, float x, float y){ int i=threadIdx.x; o[i]=tex2D<float4>(t,x+i,y); }
extern "C" __global__ void t2f(cudaTextureObject_t t, float* o, float x, float y){ int i=threadIdx.x; o[i]=tex2D<float>(t,x+i,y); }
extern "C" __global__ void t2i(cudaTextureObject_t t, int* o, float x, float y){ int i=threadIdx.x; o[i]=tex2D<int>(t,x+i,y); }
extern "C" __global__ void t2u(cudaTextureObject_t t, uchar4* o, float x, float y){ int i=threadIdx.x; o[i]=tex2D<uchar4>(t,x+i,y); }
extern "C" __global__ void t1d(cudaTextureObject_t t, float* o, float x){ int i=threadIdx.x; o[i]=tex1D<float>(t,x+i); }
extern "C" __global__ void tl(cudaTextureObject_t t, float* o, float x, float y, int l){ int i=threadIdx.x; o[i]=tex2DLayered<float>(t,x+i,y,l); }
extern "C" __global__ void tl1(cudaTextureObject_t t, float* o, float x, int l){ int i=threadIdx.x; o[i]=tex1DLayered<float>(t,x+i,l); }
extern "C" __global__ void t3(cudaTextureObject_t t, float* o, float x, float y, float z){ int i=threadIdx.x; o[i]=tex3D<float>(t,x+i,y,z); }
extern "C" __global__ void tg(cudaTextureObject_t t, float4* o, float x, float y){ int i=threadIdx.x; o[i]=tex2Dgather<float4>(t,x+i,y,0); }
extern "C" __global__ void tlod(cudaTextureObject_t t, float* o, float x, float y){ int i=threadIdx.x; o[i]=tex2DLod<float>(t,x+i,y,0.0f); }
extern "C" __global__ void tgrad(cudaTextureObject_t t, float* o, float x, float y){ int i=threadIdx.x; o[i]=tex2DGrad<float>(t,x+i,y,make_float2(0,0),make_float2(0,0)); }
extern "C" __global__ void s2(cudaSurfaceObject_t s, cudaSurfaceObject_t d, int w){ int x=threadIdx.x, y=blockIdx.x; float v; surf2Dread(&v,s,x*4,y); surf2Dwrite(v*2,d,x*4,y); }
extern "C" __global__ void s2c(cudaSurfaceObject_t s, cudaSurfaceObject_t d, int w){ int x=threadIdx.x, y=blockIdx.x; uchar4 v; surf2Dread(&v,s,x*4,y, cudaBoundaryModeClamp); surf2Dwrite(v,d,x*4,y, cudaBoundaryModeZero); }
extern "C" __global__ void s1(cudaSurfaceObject_t s, float4* o){ int x=threadIdx.x; float4 v; surf1Dread(&v,s,x*16); o[x]=v; surf1Dwrite(v,s,x*16);}
extern "C" __global__ void s3(cudaSurfaceObject_t s, short* o){ int x=threadIdx.x; short v; surf3Dread(&v,s,x*2,1,2); o[x]=v; surf2DLayeredwrite(v,s,x*2,1,2);}
