/* warpjit nvcc stand-in: NVRTC has no C library headers; device code
   takes printf from NVRTC itself, so this header declares nothing. */
#pragma once
