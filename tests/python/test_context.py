"""test_context.py -- flowplatform.Context over sequences: next() against
pairwise compute(), where a sequence starts and continues, the buffers
following the frame size, close() and the context manager, the GIL
released while the library computes, and Contexts computing in threads at
once."""
import threading
import time

import numpy as np
import pytest

import flowplatform as fp


def test_next_equals_pairwise_compute(translation, device):
    frames = translation.frames
    with fp.Context("clg-nl", device, solver="fmg") as ctx:
        assert ctx.next(frames[0]) is None
        flows = [ctx.next(f) for f in frames[1:]]
        pairs = [ctx.compute(a, b) for a, b in zip(frames, frames[1:])]
    assert len(flows) == 4
    for k, (seq, pair) in enumerate(zip(flows, pairs)):
        np.testing.assert_array_equal(seq, pair, err_msg=f"pair {k}")


def test_next_with_uint8_frames(translation, device):
    frames = translation.frames[:3]
    with fp.Context("hs", device) as ctx:
        ctx.next(frames[0].astype(np.uint8))
        got = [ctx.next(f.astype(np.uint8)) for f in frames[1:]]
        want = [ctx.compute(a, b) for a, b in zip(frames, frames[1:])]
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


def test_next_continues_from_compute(translation, device):
    f = translation.frames
    with fp.Context("hs", device) as ctx:
        first = ctx.compute(f[0], f[1])
        np.testing.assert_array_equal(ctx.next(f[2]), ctx.compute(f[1], f[2]))
        ctx.reset()
        assert ctx.next(f[0]) is None
        np.testing.assert_array_equal(ctx.next(f[1]), first)


def test_buffers_follow_the_frame_size(translation, device):
    f1, f2 = translation.frames[:2]
    with fp.Context("hs", device) as ctx:
        assert ctx.frame_shape is None
        ctx.compute(f1, f2)
        assert ctx.frame_shape == (72, 96, 1)
        small = ctx.compute(f1[:40, :50], f2[:40, :50])
        assert small.shape == (40, 50, 2) and ctx.frame_shape == (40, 50, 1)
        np.testing.assert_array_equal(small, fp.compute(f1[:40, :50], f2[:40, :50], "hs", device))
        # within a sequence the size stays
        with pytest.raises(ValueError, match="reset"):
            ctx.next(f1)
        # a new sequence may have another size
        ctx.reset()
        assert ctx.next(f1) is None
        np.testing.assert_array_equal(ctx.next(f2), fp.compute(f1, f2, "hs", device))


def test_a_refused_frame_keeps_the_sequence(translation, device):
    f = translation.frames
    with fp.Context("hs", device) as ctx:
        ctx.next(f[0])
        with pytest.raises(TypeError):
            ctx.next(f[1].astype(np.float64))
        np.testing.assert_array_equal(ctx.next(f[1]), fp.compute(f[0], f[1], "hs", device))


def test_parameters_of_a_context():
    with fp.Context("clg-nl", "cpu", alpha=40, solver="w", cycles=3) as ctx:
        p = ctx.params
    schema = {q["name"]: q for q in fp.schema("clg-nl")["params"]}
    assert set(p) == set(schema)
    assert p["alpha"] == 40.0 and p["solver"] == "w" and p["cycles"] == 3
    untouched = [k for k in p if k not in ("alpha", "solver", "cycles")]
    assert all(p[k] == schema[k]["default"] for k in untouched)


def test_close_and_context_manager(translation):
    ctx = fp.Context("hs", "cpu")
    assert "hs" in repr(ctx) and not ctx.closed
    with ctx as entered:
        assert entered is ctx
    assert ctx.closed and "closed" in repr(ctx)
    ctx.close()  # again: nothing happens
    with pytest.raises(ValueError, match="closed"):
        ctx.compute(*translation.frames[:2])
    with pytest.raises(ValueError, match="closed"):
        ctx.device


@pytest.fixture(scope="module")
def slow(translation):
    """Parameters of Horn-Schunck by Jacobi iterations that keep the CPU
    busy for at least 0.3 s on this machine."""
    f1, f2 = translation.frames[:2]
    iterations = 100
    while True:
        params = dict(solver="jacobi", iterations=iterations)
        start = time.monotonic()
        fp.compute(f1, f2, "hs", "cpu", **params)
        if time.monotonic() - start > 0.3:
            return params
        iterations *= 2


def test_gil_is_released_while_computing(translation, slow):
    """A second thread runs while the first is inside the library."""
    f1, f2 = translation.frames[:2]
    span = {}

    def work():
        with fp.Context("hs", "cpu", **slow) as ctx:
            span["start"] = time.monotonic()
            ctx.compute(f1, f2)
            span["end"] = time.monotonic()

    worker = threading.Thread(target=work)
    ticks = []
    worker.start()
    while worker.is_alive():
        ticks.append(time.monotonic())
        time.sleep(0.001)
    worker.join()
    inside = [t for t in ticks if span["start"] + 0.05 < t < span["end"] - 0.05]
    assert len(inside) > 10


def test_contexts_in_threads_equal_each_alone(translation, device):
    """Contexts of one device computing at the same time from a thread each
    (each on its own queue of the device) give the flows of each alone."""
    frames = translation.frames
    methods = ["robust", "clg-nl", "robust"]

    def flows(method):
        with fp.Context(method, device) as ctx:
            ctx.next(frames[0])
            return [ctx.next(f) for f in frames[1:]]

    alone = [flows(m) for m in methods]
    together = [None] * len(methods)

    def work(i):
        together[i] = flows(methods[i])

    workers = [threading.Thread(target=work, args=(i,)) for i in range(len(methods))]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    for i, m in enumerate(methods):
        assert together[i] is not None, m
        for k, (a, t) in enumerate(zip(alone[i], together[i])):
            np.testing.assert_array_equal(t, a, err_msg=f"{m} flow {k}")


def test_one_context_refuses_a_second_thread(translation, slow):
    f1, f2 = translation.frames[:2]
    ctx = fp.Context("hs", "cpu", **slow)
    worker = threading.Thread(target=ctx.compute, args=(f1, f2))
    refused = None
    worker.start()
    while worker.is_alive() and refused is None:
        try:
            ctx.reset()
        except RuntimeError as e:
            refused = str(e)
        time.sleep(0.001)
    worker.join()
    ctx.close()
    assert refused is not None and "another thread" in refused


def test_init_refines_a_given_flow(translation, device):
    f, gt = translation.frames, translation.gt[0]
    aee = lambda flow: float(np.hypot(*(flow - gt).transpose(2, 0, 1)).mean())
    with fp.Context("robust", device) as ctx:
        own = ctx.compute(f[0], f[1])
        refined = ctx.compute(f[0], f[1], init=gt)
        assert aee(refined) <= aee(own)
        assert not np.array_equal(refined, own)
        # the initial flow applies to its call alone
        np.testing.assert_array_equal(ctx.compute(f[0], f[1]), own)
        # confidence 0: the method's own flow; 1: the initial flow refined
        zeros = np.zeros(gt.shape[:2], np.float32)
        np.testing.assert_array_equal(ctx.compute(f[0], f[1], init=gt, confidence=zeros), own)
        np.testing.assert_array_equal(
            ctx.compute(f[0], f[1], init=gt, confidence=zeros + 1), refined)


def test_init_bad_input(translation, device):
    f, gt = translation.frames, translation.gt[0]
    with fp.Context("robust", device) as ctx:
        with pytest.raises(fp.Error, match="initial flow is"):
            ctx.compute(f[0], f[1], init=gt[1:])
        with pytest.raises(ValueError, match="confidence applies to init"):
            ctx.compute(f[0], f[1], confidence=np.ones(gt.shape[:2]))
        with pytest.raises(ValueError, match="confidence is"):
            ctx.compute(f[0], f[1], init=gt, confidence=np.ones((3, 3)))
        with pytest.raises(fp.Error, match=r"confidence .* not in \[0, 1\]"):
            ctx.compute(f[0], f[1], init=gt, confidence=np.full(gt.shape[:2], 2.0))
    with fp.Context("hs", device) as ctx:
        with pytest.raises(fp.Error, match="method hs takes no initial flow"):
            ctx.compute(f[0], f[1], init=gt)
