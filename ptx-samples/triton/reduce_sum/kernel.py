"""Row sums of a 2D f32 matrix, ROWS rows per program over BLOCK_N-wide column chunks
(tl.sum along axis 1), plus the grand total accumulated across programs with tl.atomic_add."""
import triton
import triton.language as tl


@triton.jit
def row_sum_kernel(x_ptr, row_sums_ptr, total_ptr, n_rows, n_cols, stride_row,
                   ROWS: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * ROWS + tl.arange(0, ROWS)
    row_mask = rows < n_rows
    cols = tl.arange(0, BLOCK_N)
    acc = tl.zeros((ROWS, BLOCK_N), dtype=tl.float32)
    for off in range(0, n_cols, BLOCK_N):
        c = off + cols
        mask = row_mask[:, None] & (c[None, :] < n_cols)
        acc += tl.load(x_ptr + rows[:, None] * stride_row + c[None, :], mask=mask, other=0.0)
    sums = tl.sum(acc, axis=1)
    tl.store(row_sums_ptr + rows, sums, mask=row_mask)
    # One atomic per program: masked rows contributed 0.
    tl.atomic_add(total_ptr, tl.sum(sums, axis=0))


N_ROWS, N_COLS = 100, 333
SAMPLE = {
    "fn": row_sum_kernel,
    "args": {"x_ptr": "*fp32", "row_sums_ptr": "*fp32", "total_ptr": "*fp32", "n_rows": N_ROWS,
             "n_cols": N_COLS, "stride_row": N_COLS, "ROWS": 8, "BLOCK_N": 128},
    "num_warps": 4,
    "num_stages": 3,
    "archs": [80],
}
