"""Causal flash-attention forward (Triton fused-attention tutorial structure, simplified): one
program per (BLOCK_M query rows, head); online softmax in base 2 with running max and sum,
S = Q K^T and O += P V on tensor cores (tl.dot, fp16 in, f32 accumulate), fp16 output."""
import triton
import triton.language as tl


@triton.jit
def attn_fwd_kernel(Q, K, V, Out, sm_scale,
                    stride_qh, stride_qm, stride_kh, stride_kn, stride_vh, stride_vn, stride_oh, stride_om,
                    N_CTX, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, HEAD_DIM: tl.constexpr,
                    CAUSAL: tl.constexpr):
    start_m = tl.program_id(0)
    off_h = tl.program_id(1)
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    q = tl.load(Q + off_h * stride_qh + offs_m[:, None] * stride_qm + offs_d[None, :])
    m_i = tl.full([BLOCK_M], -float("inf"), dtype=tl.float32)
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504  # 1/log(2): softmax in base 2
    hi = (start_m + 1) * BLOCK_M if CAUSAL else N_CTX
    for start_n in range(0, hi, BLOCK_N):
        cols = start_n + offs_n
        k = tl.load(K + off_h * stride_kh + cols[None, :] * stride_kn + offs_d[:, None])  # K^T tile
        qk = tl.dot(q, k) * qk_scale
        if CAUSAL:
            qk = tl.where(offs_m[:, None] >= cols[None, :], qk, -float("inf"))
        m_ij = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.math.exp2(qk - m_ij[:, None])
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None]
        v = tl.load(V + off_h * stride_vh + cols[:, None] * stride_vn + offs_d[None, :])
        acc = tl.dot(p.to(tl.float16), v, acc)
        m_i = m_ij
    acc = acc / l_i[:, None]
    tl.store(Out + off_h * stride_oh + offs_m[:, None] * stride_om + offs_d[None, :], acc.to(tl.float16))


H, N_CTX, D = 2, 64, 32
SAMPLE = {
    "fn": attn_fwd_kernel,
    "args": {"Q": "*fp16", "K": "*fp16", "V": "*fp16", "Out": "*fp16", "sm_scale": D ** -0.5,
             "stride_qh": N_CTX * D, "stride_qm": D, "stride_kh": N_CTX * D, "stride_kn": D,
             "stride_vh": N_CTX * D, "stride_vn": D, "stride_oh": N_CTX * D, "stride_om": D,
             "N_CTX": N_CTX, "BLOCK_M": 32, "BLOCK_N": 32, "HEAD_DIM": D, "CAUSAL": True},
    "num_warps": 4,
    "num_stages": 2,
    "archs": [80],
}
