"""Fused bias-add + GELU over a 2D activation, writing both GELU flavours: the exact one with
erf (tl.math.erf -> libdevice __nv_erff, inlined) and the tanh approximation built from tl.exp
and tl.where (numerically stable for both signs), plus tl.sigmoid-based SiLU of the same input."""
import triton
import triton.language as tl


@triton.jit
def _tanh(x):
    # tanh(x) = sign(x) * (1 - e) / (1 + e), e = exp(-2|x|): no overflow for large |x|
    e = tl.exp(-2.0 * tl.abs(x))
    t = (1.0 - e) / (1.0 + e)
    return tl.where(x >= 0, t, -t)


@triton.jit
def bias_gelu_kernel(x_ptr, bias_ptr, gelu_erf_ptr, gelu_tanh_ptr, silu_ptr, n_rows, n_cols,
                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rm[:, None] < n_rows) & (rn[None, :] < n_cols)
    offs = rm[:, None] * n_cols + rn[None, :]
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    b = tl.load(bias_ptr + rn, mask=rn < n_cols, other=0.0)
    y = x + b[None, :]
    gelu_erf = 0.5 * y * (1.0 + tl.math.erf(y * 0.7071067811865476))
    inner = 0.7978845608028654 * (y + 0.044715 * y * y * y)
    gelu_tanh = 0.5 * y * (1.0 + _tanh(inner))
    silu = y * tl.sigmoid(y)
    tl.store(gelu_erf_ptr + offs, gelu_erf, mask=mask)
    tl.store(gelu_tanh_ptr + offs, gelu_tanh, mask=mask)
    tl.store(silu_ptr + offs, silu, mask=mask)


N_ROWS, N_COLS = 40, 100
SAMPLE = {
    "fn": bias_gelu_kernel,
    "args": {"x_ptr": "*fp32", "bias_ptr": "*fp32", "gelu_erf_ptr": "*fp32", "gelu_tanh_ptr": "*fp32",
             "silu_ptr": "*fp32", "n_rows": N_ROWS, "n_cols": N_COLS, "BLOCK_M": 16, "BLOCK_N": 64},
    "num_warps": 4,
    "num_stages": 3,
    "archs": [80],
}
