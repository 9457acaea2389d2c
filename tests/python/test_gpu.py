"""test_gpu.py -- the same flows on CUDA as on the CPU through the module:
within the tolerance of tests/gpu/test_methods_agreement.c (float rounding
only: nvcc contracts a*b+c into FMA), no NaN, and a Context.next sequence
on the GPU equal to its pairwise computes.  Skipped without a usable CUDA
device."""
import numpy as np
import pytest

import flowplatform as fp


def relative_rms(a, b):
    return float(np.sqrt(np.mean((a - b) ** 2)) / np.sqrt(np.mean(b ** 2)))


@pytest.mark.parametrize("method, bound", [("hs", 2e-4), ("clg-nl", 2e-4), ("robust", 2e-3)])
def test_gpu_agrees_with_cpu(translation, cuda, method, bound):
    f1, f2 = translation.frames[:2]
    with fp.Context(method, cuda) as ctx:
        assert ctx.device_kind == "cuda" and ctx.notice == ""
        on_gpu = ctx.compute(f1, f2)
    on_cpu = fp.compute(f1, f2, method, "cpu")
    assert np.all(np.isfinite(on_gpu))
    assert relative_rms(on_gpu, on_cpu) < bound


def test_gpu_colour_uint8_agrees_with_cpu(rotation_rgb, cuda):
    f1, f2 = (f.astype(np.uint8) for f in rotation_rgb.frames[:2])
    on_gpu = fp.compute(f1, f2, "clg-nl", cuda)
    on_cpu = fp.compute(f1, f2, "clg-nl", "cpu")
    assert np.all(np.isfinite(on_gpu))
    assert relative_rms(on_gpu, on_cpu) < 2e-4


def test_gpu_sequence(translation, cuda):
    frames = translation.frames
    with fp.Context("clg-nl", cuda) as ctx:
        ctx.next(frames[0])
        flows = [ctx.next(f) for f in frames[1:]]
        pairs = [ctx.compute(a, b) for a, b in zip(frames, frames[1:])]
    for seq, pair in zip(flows, pairs):
        np.testing.assert_array_equal(seq, pair)
