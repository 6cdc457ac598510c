"""Tiled 2D transpose of an f32 matrix: load a BLOCK_M x BLOCK_N tile coalesced along rows,
tl.trans it (Triton converts the register layout through shared memory) and store it
coalesced along the output rows; 2D grid, masked edges."""
import triton
import triton.language as tl


@triton.jit
def transpose_kernel(in_ptr, out_ptr, M, N, stride_in, stride_out,
                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    tile = tl.load(in_ptr + rm[:, None] * stride_in + rn[None, :],
                   mask=(rm[:, None] < M) & (rn[None, :] < N))
    # out[n, m] = in[m, n]
    tl.store(out_ptr + rn[:, None] * stride_out + rm[None, :], tl.trans(tile),
             mask=(rn[:, None] < N) & (rm[None, :] < M))


M, N = 96, 80
SAMPLE = {
    "fn": transpose_kernel,
    "args": {"in_ptr": "*fp32", "out_ptr": "*fp32", "M": M, "N": N, "stride_in": N, "stride_out": M,
             "BLOCK_M": 32, "BLOCK_N": 32},
    "num_warps": 4,
    "num_stages": 3,
    "archs": [80],
}
