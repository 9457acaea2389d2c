"""pictures.py -- what the page shows, made from numpy arrays: PNG files
(encoded here with zlib, no imaging library), the error map, the arrows'
samples and frames as 8-bit pictures.

The colour coding itself is the library's (flowplatform.flow_to_color); the
error map colours each pixel's endpoint error on a fixed scale so that two
parameter sets compare at a glance.
"""
import struct
import zlib

import numpy as np

# A flow vector is unknown when a component is NaN or above this (the
# library writes 1e10), as flowplatform and the flow formats say.
UNKNOWN = 1e9

# The error map's ramp, flow-tool's and the library's (flow_error_color,
# flow/render.h): (fraction of the scale, R, G, B), black for no error
# through red and yellow to white at the scale and beyond, so that it reads
# in grey print too.  The page draws its key from the same list.
ERROR_RAMP = (
    (0.0, 0, 0, 0),
    (1 / 3, 255, 0, 0),
    (2 / 3, 255, 255, 0),
    (1.0, 255, 255, 255),
)
# Pixels that are not scored (unknown ground truth or estimate, outside the
# mask): the library's FLOW_UNSCORED_RGB, a blue grey on no point of the ramp.
NOT_SCORED = (64, 96, 160)

def _chunk(tag, data):
    return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data))


def png(picture, level=1):
    """The PNG file of an H x W (gray) or H x W x 3 (R, G, B) uint8 array.
    Every row is filtered "Up" (less the row above, modulo 256: smooth
    pictures become runs of small values) and compressed at level 1: a
    picture of 600 x 400 encodes in some 20 ms, which matters more here
    than the smallest file."""
    a = np.ascontiguousarray(picture, dtype=np.uint8)
    if a.ndim not in (2, 3) or (a.ndim == 3 and a.shape[2] != 3):
        raise ValueError(f"a picture is H x W or H x W x 3, not {a.shape}")
    h, w = a.shape[:2]
    data = a.reshape(h, -1)
    rows = np.empty((h, 1 + data.shape[1]), np.uint8)
    rows[:, 0] = 2  # the filter type of each row: Up
    rows[:, 1:] = data
    rows[1:, 1:] -= data[:-1]
    header = struct.pack(">IIBBBBB", w, h, 8, 0 if a.ndim == 2 else 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header)
            + _chunk(b"IDAT", zlib.compress(rows.tobytes(), level)) + _chunk(b"IEND", b""))


def to_bytes(frame):
    """A float frame (0..255) as uint8, rounded and clamped as the library writes images."""
    return np.clip(np.rint(frame), 0, 255).astype(np.uint8)


def known(flow):
    """H x W bool: the vectors that are known (finite, no component above UNKNOWN)."""
    return np.all(np.abs(flow) <= UNKNOWN, axis=2)


def max_radius(flow):
    """The largest length of a known vector (0.0 when none is)."""
    ok = known(flow)
    if not ok.any():
        return 0.0
    return float(np.sqrt((flow[ok] ** 2).sum(axis=1)).max())


def endpoint_errors(flow, gt, mask=None):
    """H x W float32 endpoint errors, NaN where a pixel is not scored: the
    ground truth or the estimate unknown, or outside the mask (nonzero =
    scored)."""
    scored = known(flow) & known(gt)
    if mask is not None:
        scored &= mask != 0
    d = np.where(scored[..., None], flow - gt, 0).astype(np.float32)
    ee = np.sqrt((d ** 2).sum(axis=2))
    ee[~scored] = np.nan
    return ee


def error_map(ee, scale):
    """The endpoint errors ee (NaN: not scored) as an H x W x 3 picture on
    ERROR_RAMP, `scale` pixels and more being the ramp's end: channel c is
    255 clamp(3 t - c, 0, 1) rounded half away from zero, t = ee / scale, as
    the library's flow_error_color computes it."""
    t = np.nan_to_num(ee, nan=0.0).astype(np.float64) / scale
    out = np.empty(ee.shape + (3,), np.uint8)
    for c in range(3):
        out[..., c] = np.floor(255.0 * np.clip(3.0 * t - c, 0.0, 1.0) + 0.5)
    out[np.isnan(ee)] = NOT_SCORED
    return out


def vector_grid(flow, step):
    """The arrows' samples: the vector at the centre of every step x step
    cell, as {"step", "columns", "rows", "u", "v"} with u and v row after
    row, rounded to 1/100 px, None where the vector is unknown."""
    h, w = flow.shape[:2]
    ys = np.arange(step // 2, h, step)
    xs = np.arange(step // 2, w, step)
    cells = flow[np.ix_(ys, xs)]
    ok = known(cells)

    def plane(k):
        values = np.round(cells[..., k].astype(np.float64), 2)
        return [float(x) if good else None for x, good in zip(values.ravel(), ok.ravel())]

    return {"step": int(step), "columns": len(xs), "rows": len(ys), "u": plane(0), "v": plane(1)}


def arrow_step(width, height):
    """The library's grid step (flow_vector_step): the smaller side / 18,
    rounded, 8 px at least; 22 px for Middlebury's 584 x 388, so that the
    arrows stay apart and readable as the page scales the picture."""
    return max(8, round(min(width, height) / 18))
