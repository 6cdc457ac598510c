"""Transcendental math in f64 and f32: out64 = exp(-x*x) * sqrt(|y|) + sin(x) in float64
(libdevice __nv_exp, __nv_sin, sqrt.rn.f64), and the same formula after converting x, y to
float32 (libdevice __nv_expf, __nv_sinf, sqrt.rn.f32)."""
import math

from numba import cuda, float32


@cuda.jit
def math_mix(x, y, out64, out32):
    i = cuda.grid(1)
    if i < x.size:
        a = x[i]
        b = y[i]
        out64[i] = math.exp(-a * a) * math.sqrt(abs(b)) + math.sin(a)
        af = float32(a)
        bf = float32(b)
        out32[i] = math.exp(-af * af) * math.sqrt(abs(bf)) + math.sin(af)


SAMPLE = {
    "fn": math_mix,
    "sig": "void(float64[::1], float64[::1], float64[::1], float32[::1])",
    "cc": (8, 0),
}
