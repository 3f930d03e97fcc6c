"""Resampling as OpenCV does it, in numpy (for the OpenCV-free OCR pipeline, issue 28): the
PP-OCR models were tuned on OpenCV's sampling, not Pillow's antialiased one."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

_CUBIC_A = -0.75  # OpenCV's bicubic kernel (Pillow's is -0.5)
# Resizes work on this many output rows at a time: every row is computed alone, so the
# result is the same, but the float temporaries stay a few megabytes. Whole-image ones
# (~100 MB each for a 3200×2464 render) made the kernel map and zero fresh memory for every
# step: 1.1 s of system CPU to resize one such image by a few pixels (measured).
ROWS_AT_ONCE = 64


def _linear_taps(n_out: int, n_in: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    src = np.maximum((np.arange(n_out) + 0.5) * (n_in / n_out) - 0.5, 0.0)
    low = np.minimum(np.floor(src).astype(np.intp), n_in - 1)
    frac = (src - low).astype(np.float32)
    return low, np.minimum(low + 1, n_in - 1), frac


def resize_linear(image: np.ndarray, width: int, height: int) -> np.ndarray:
    """``cv2.resize(image, (width, height))``: bilinear on pixel centres, no antialiasing."""
    h, w = image.shape[:2]
    if (h, w) == (height, width):
        return image.copy()
    y0, y1, fy = _linear_taps(height, h)
    x0, x1, fx = _linear_taps(width, w)
    fy, fx = fy[:, None, None], fx[None, :, None]
    # a side kept (the detector's input made a multiple of 32 along the other): along it
    # each output pixel is its source pixel, a + (b - a) * 0 = a to the bit, so that pass
    # is skipped
    same_rows, same_cols = height == h, width == w
    resized = np.empty((height, width, *image.shape[2:]), np.uint8)
    for start in range(0, height, ROWS_AT_ONCE):
        part = slice(start, start + ROWS_AT_ONCE)
        rows = image[y0[part]].astype(np.float32)
        if not same_rows:
            bottom = image[y1[part]].astype(np.float32)
            bottom -= rows
            bottom *= fy[part]
            rows += bottom
        if same_cols:
            out = rows
        else:  # np.take along the columns: the same values as rows[:, x0], gathered faster
            out, right = np.take(rows, x0, axis=1), np.take(rows, x1, axis=1)
            right -= out
            right *= fx
            out += right
        resized[part] = np.clip(np.rint(out, out=out), 0, 255, out=out)
    return resized


def _cubic_weights(t: np.ndarray) -> list[np.ndarray]:
    a = _CUBIC_A
    w0 = ((a * (t + 1) - 5 * a) * (t + 1) + 8 * a) * (t + 1) - 4 * a
    w1 = ((a + 2) * t - (a + 3)) * t * t + 1
    w2 = ((a + 2) * (1 - t) - (a + 3)) * (1 - t) * (1 - t) + 1
    return [w0, w1, w2, 1 - w0 - w1 - w2]


def homography(src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """The 3×3 matrix taking the four ``src`` points to ``dst`` (cv2.getPerspectiveTransform)."""
    rows, rhs = [], []
    for (x, y), (u, v) in zip(src.astype(np.float64), dst.astype(np.float64), strict=True):
        rows.append([x, y, 1, 0, 0, 0, -x * u, -y * u])
        rows.append([0, 0, 0, x, y, 1, -x * v, -y * v])
        rhs += [u, v]
    return np.append(np.linalg.solve(np.array(rows), np.array(rhs)), 1.0).reshape(3, 3)


def crop_quad(image: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """The text in ``quad`` straightened (rapidocr utils/process_img.get_rotate_crop_image:
    a perspective warp, bicubic, border replicated); tall crops are turned on their side."""
    width = int(max(np.linalg.norm(quad[0] - quad[1]), np.linalg.norm(quad[2] - quad[3])))
    height = int(max(np.linalg.norm(quad[0] - quad[3]), np.linalg.norm(quad[1] - quad[2])))
    target = np.array([[0, 0], [width, 0], [width, height], [0, height]], np.float32)
    m = homography(target, quad)
    # each product of a coordinate once, on a row or a column (broadcast): the same values
    # as over a full grid, fewer operations
    xs = np.arange(width, dtype=np.float64)[None, :]
    ys = np.arange(height, dtype=np.float64)[:, None]
    den = m[2, 0] * xs + m[2, 1] * ys + m[2, 2]
    den = np.where(den == 0, 1.0, den)
    # the exact source position (OpenCV 5 no longer rounds it to 1/32 pixel)
    sx = (m[0, 0] * xs + m[0, 1] * ys + m[0, 2]) / den
    sy = (m[1, 0] * xs + m[1, 1] * ys + m[1, 2]) / den
    x0, y0 = np.floor(sx).astype(np.intp), np.floor(sy).astype(np.intp)
    wx = _cubic_weights((sx - x0).astype(np.float32))
    wy = _cubic_weights((sy - y0).astype(np.float32))
    h, w = image.shape[:2]
    # the 16 neighbours gathered by their index in the flattened image (one gather each
    # instead of a two-index one); a view that is not contiguous is gathered as it is
    pixels = image.reshape(h * w, -1) if image.flags.c_contiguous else None
    cols = [np.clip(x0 + j - 1, 0, w - 1) for j in range(4)]
    out: np.ndarray | None = None
    for i in range(4):
        rows = np.clip(y0 + i - 1, 0, h - 1)
        offsets = rows * w
        for j in range(4):
            near = (np.take(pixels, offsets + cols[j], axis=0) if pixels is not None
                    else image[rows, cols[j]])
            term = np.multiply((wy[i] * wx[j])[..., None], near, dtype=np.float32)
            if out is None:
                out = term  # 0 + term, to the bit
            else:
                out += term
    assert out is not None
    crop = np.clip(np.rint(out, out=out), 0, 255, out=out).astype(np.uint8)
    return np.rot90(crop) if height >= 1.5 * width else crop


def _area_taps(n_out: int, n_in: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """For each of the few source pixels an output pixel covers when ``n_in`` shrinks to
    ``n_out``: their indices and their shares (INTER_AREA: the output pixel's footprint,
    weighted by overlap; a share of 0 where the footprint ends sooner)."""
    step = n_in / n_out
    starts = np.arange(n_out) * step
    taps = []
    for offset in range(int(np.ceil(step)) + 1):
        source = np.floor(starts).astype(np.intp) + offset
        overlap = (np.minimum(source + 1, starts + step) - np.maximum(source, starts)) / step
        share = np.where((overlap > 1e-9) & (source < n_in), overlap, 0.0).astype(np.float32)
        taps.append((np.minimum(source, n_in - 1), share))
    return taps


def resize_area(image: np.ndarray, width: int, height: int) -> np.ndarray:
    """``cv2.resize(image, (width, height), interpolation=cv2.INTER_AREA)`` for a shrink:
    each output pixel the mean of the source pixels it covers (rows first, then columns,
    each a few gathers of the image: no matrix over all its pixels)."""
    row_taps, col_taps = _area_taps(height, image.shape[0]), _area_taps(width, image.shape[1])
    resized = np.empty((height, width, image.shape[2]), np.uint8)
    for start in range(0, height, ROWS_AT_ONCE):
        part = slice(start, start + ROWS_AT_ONCE)
        down = _sum_of_taps(share[part, None, None] * image[rows[part]]
                            for rows, share in row_taps)
        # np.take along the columns: the same values as down[:, cols], gathered faster
        out = _sum_of_taps(np.multiply(np.take(down, cols, axis=1), share[None, :, None])
                           for cols, share in col_taps)
        resized[part] = np.clip(np.rint(out, out=out), 0, 255, out=out)
    return resized


def _sum_of_taps(terms: Iterator[np.ndarray]) -> np.ndarray:
    """The terms added up in their order, into the first (the sum from zero, to the bit:
    0 + x is x), so that no zeroed array is made for it."""
    total = next(terms)
    for term in terms:
        total += term
    return total
