"""Tiled matrix transpose through a padded 2D shared array (TILE x TILE+1, no bank conflicts),
2D grid and block. The arrays are typed with layout "A" (any), so the kernel indexes through
the shape and strides parameters."""
from numba import cuda, float32

TILE = 16
TILE_PAD = TILE + 1  # one extra column: column reads hit 16 different banks


@cuda.jit
def transpose_tiled(src, dst):
    tile = cuda.shared.array((TILE, TILE_PAD), dtype=float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    bx = cuda.blockIdx.x * TILE
    by = cuda.blockIdx.y * TILE
    rows, cols = src.shape
    # Load: x is a column of src, y a row of src.
    x = bx + tx
    y = by + ty
    if y < rows and x < cols:
        tile[ty, tx] = src[y, x]
    cuda.syncthreads()
    # Store: dst is cols x rows; x is now a column of dst (a row of src).
    x = by + tx
    y = bx + ty
    if y < cols and x < rows:
        dst[y, x] = tile[tx, ty]


SAMPLE = {
    "fn": transpose_tiled,
    "sig": "void(float32[:, :], float32[:, :])",
    "cc": (8, 0),
}
