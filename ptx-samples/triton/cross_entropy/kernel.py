"""Cross-entropy forward over a vocabulary row per program (as in fused LM-head losses):
logsumexp with tl.max / tl.exp / tl.sum / tl.log, gather of the target logit through a
scalar load at a data-dependent address, int64 labels with an ignore_index of -100."""
import triton
import triton.language as tl


@triton.jit
def cross_entropy_fwd_kernel(logits_ptr, labels_ptr, loss_ptr, lse_ptr, n_cols, logits_row_stride,
                             ignore_index, BLOCK_SIZE: tl.constexpr):
    row_idx = tl.program_id(0)
    logits_ptr = logits_ptr + row_idx.to(tl.int64) * logits_row_stride
    col_offsets = tl.arange(0, BLOCK_SIZE)
    label_idx = tl.load(labels_ptr + row_idx)
    logits = tl.load(logits_ptr + col_offsets, mask=col_offsets < n_cols, other=-float("inf")).to(tl.float32)
    max_logits = tl.max(logits, 0)
    lse = tl.log(tl.sum(tl.exp(logits - max_logits), 0)) + max_logits
    tl.store(lse_ptr + row_idx, lse)
    if label_idx == ignore_index:
        loss = 0.0
    else:
        loss = lse - tl.load(logits_ptr + label_idx).to(tl.float32)
    tl.store(loss_ptr + row_idx, loss)


N_ROWS, VOCAB = 64, 500
SAMPLE = {
    "fn": cross_entropy_fwd_kernel,
    "args": {"logits_ptr": "*fp32", "labels_ptr": "*i64", "loss_ptr": "*fp32", "lse_ptr": "*fp32",
             "n_cols": VOCAB, "logits_row_stride": VOCAB, "ignore_index": -100, "BLOCK_SIZE": 512},
    "num_warps": 8,
    "num_stages": 3,
    "archs": [80],
}
