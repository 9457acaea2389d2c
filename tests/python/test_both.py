"""test_both.py -- Context.compute_both and compute_both: the backward flow
is the flow of the reversed pair computed alone and the forward flow the
flow computed alone, exactly; the occlusion mask is the forward-backward
test evaluated here with numpy; the confidence lies in [0, 1]; compute
goes on computing one direction afterwards; bad a and b are refused."""
import numpy as np
import pytest

import flowplatform as fp


@pytest.fixture(scope="module")
def pair():
    rng = np.random.default_rng(7)
    base = rng.uniform(0, 255, (60, 80)).astype(np.float32)
    # a smooth texture shifted by (1.5, -0.5): subpixel motion, some pixels leave the frame
    smooth = np.real(np.fft.ifft2(np.fft.fft2(base) * np.exp(-0.02 * np.add.outer(
        np.fft.fftfreq(60) ** 2 * 3600, np.fft.fftfreq(80) ** 2 * 6400))))
    smooth = (smooth - smooth.min()) / np.ptp(smooth) * 255
    yy, xx = np.mgrid[0:60, 0:80].astype(np.float64)
    f1 = smooth.astype(np.float32)
    sx, sy = xx - 1.5, yy + 0.5
    x0, y0 = np.clip(np.floor(sx).astype(int), 0, 79), np.clip(np.floor(sy).astype(int), 0, 59)
    x1, y1 = np.clip(x0 + 1, 0, 79), np.clip(y0 + 1, 0, 59)
    ax, ay = np.clip(sx - np.floor(sx), 0, 1), np.clip(sy - np.floor(sy), 0, 1)
    f2 = ((1 - ay) * ((1 - ax) * smooth[y0, x0] + ax * smooth[y0, x1])
          + ay * ((1 - ax) * smooth[y1, x0] + ax * smooth[y1, x1])).astype(np.float32)
    return f1, f2


def fb_test(fwd, bwd, a, b):
    """The Sundaram-Brox-Keutzer test in numpy: True where it fails."""
    h, w = fwd.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float64)
    qx, qy = xx + fwd[..., 0], yy + fwd[..., 1]
    inside = (qx >= 0) & (qx <= w - 1) & (qy >= 0) & (qy <= h - 1)
    x0 = np.clip(np.floor(qx).astype(int), 0, w - 1)
    y0 = np.clip(np.floor(qy).astype(int), 0, h - 1)
    x1, y1 = np.clip(x0 + 1, 0, w - 1), np.clip(y0 + 1, 0, h - 1)
    fx, fy = (qx - x0)[..., None], (qy - y0)[..., None]
    bw = bwd.astype(np.float64)
    s = (1 - fy) * ((1 - fx) * bw[y0, x0] + fx * bw[y0, x1]) + fy * ((1 - fx) * bw[y1, x0] + fx * bw[y1, x1])
    d2 = ((fwd + s) ** 2).sum(-1)
    tol = a * ((fwd.astype(np.float64) ** 2).sum(-1) + (s ** 2).sum(-1)) + b
    return ~inside | (d2 > tol), np.abs(d2 - tol) < 1e-5


@pytest.mark.parametrize("method", ["hs", "robust", "dis"])
def test_directions_as_alone(pair, device, method):
    f1, f2 = pair
    with fp.Context(method, device) as ctx:
        r = ctx.compute_both(f1, f2)
        np.testing.assert_array_equal(ctx.compute(f1, f2), r["flow"])
    with fp.Context(method, device) as alone:
        np.testing.assert_array_equal(alone.compute(f2, f1), r["backward"])
    assert r["occlusion"].dtype == np.bool_ and r["occlusion"].shape == (60, 80)
    assert r["confidence"].dtype == np.float32
    assert ((r["confidence"] >= 0) & (r["confidence"] <= 1)).all()
    want, boundary = fb_test(r["flow"], r["backward"], 0.01, 0.5)
    assert ((r["occlusion"] != want) & ~boundary).sum() == 0
    # the pixels carried out of the frame (the first 1.5 columns, last row) fail it
    assert r["occlusion"][:, -1].all()


def test_a_and_b(pair, device):
    f1, f2 = pair
    strict = fp.compute_both(f1, f2, "dis", device, a=0, b=1e-4)
    loose = fp.compute_both(f1, f2, "dis", device, a=0, b=1e6)
    assert strict["occlusion"].sum() > loose["occlusion"].sum()
    want, boundary = fb_test(loose["flow"], loose["backward"], 0, 1e6)
    assert ((loose["occlusion"] != want) & ~boundary).sum() == 0


@pytest.mark.parametrize("a,b", [(-1, 0.5), (0.01, -2), (float("nan"), 0.5), (0.01, float("inf"))])
def test_bad_values(pair, device, a, b):
    f1, f2 = pair
    with fp.Context("hs", device) as ctx:
        with pytest.raises(fp.Error, match="occlusion test"):
            ctx.compute_both(f1, f2, a, b)
        ctx.compute(f1, f2)  # the context still computes
