"""test_spread.py -- flowplatform.Spread and compute_many(): a sequence's
flows on a list of devices (three entries of the device under test, one
queue each) equal one Context's, in order, dealt to every entry in chunks;
uint8 frames and separate pairs likewise; a failure names its pair and
device after the flows before it; the errors of bad use."""
import numpy as np
import pytest

import flowplatform as fp

CHUNK = 4  # FLOW_SPREAD_CHUNK: consecutive pairs per entry


@pytest.fixture(scope="module")
def frames(translation):
    # 15 frames: 14 pairs, four chunks over three entries, the last short
    return [f.copy() for f in translation.frames * 3]


def one_context(frames, method="hs", device="cpu"):
    with fp.Context(method, device) as ctx:
        ctx.next(frames[0])
        return [ctx.next(f) for f in frames[1:]]


def test_compute_many_equals_a_context(frames, device):
    want = one_context(frames, device=device)
    got = list(fp.compute_many(frames, f"{device},{device},{device}", "hs"))
    assert len(got) == len(want) == 14
    for k, (g, w) in enumerate(zip(got, want)):
        np.testing.assert_array_equal(g, w, err_msg=f"pair {k}")


def test_spread_order_devices_and_stats(frames, device):
    frames8 = [f.astype(np.uint8) for f in frames]
    want = one_context(frames8, device=device)
    with fp.Spread(f"{device},{device},{device}", method="hs") as sp:
        assert sp.method == "hs" and len(sp.devices) == 3 and sp.devices[0] == sp.devices[2]
        assert sp.depth > 14  # all of them queued at once
        for f in frames8:
            sp.submit(f)
        assert sp.queued == 14
        got = [sp.collect() for _ in range(14)]
        stats = sp.stats()
    for k, (index, flow, entry) in enumerate(got):
        assert index == k and entry == k // CHUNK % 3
        np.testing.assert_array_equal(flow, want[k], err_msg=f"pair {k}")
    # pairs 0-3 and 12-13 to the first entry, 4-7 the second, 8-11 the third
    assert [n for n, _ in stats] == [6, 4, 4]
    assert all(ms >= 0 for _, ms in stats)


def test_submit_pair_equals_compute(frames, device):
    with fp.Context("lk", device) as ctx:
        want = [ctx.compute(frames[k], frames[k + 2]) for k in range(9)]
    with fp.Spread(f"{device},{device}", "lk") as sp:
        for k in range(9):
            sp.submit_pair(frames[k], frames[k + 2])
        got = [sp.collect() for _ in range(9)]
    for k, (index, flow, entry) in enumerate(got):
        assert index == k and entry == k // CHUNK % 2
        np.testing.assert_array_equal(flow, want[k])


def test_failure_names_pair_and_device(frames, device):
    bad = [f.copy() for f in frames]
    bad[9][5, 7] = np.nan  # pair 8 (frames 8 -> 9), the third entry's
    want = one_context(frames, "lk", device)
    with fp.Spread(f"{device},{device},{device}", "lk") as sp:
        for f in bad[:12]:
            sp.submit(f)
        for k in range(8):
            index, flow, _ = sp.collect()
            assert index == k
            np.testing.assert_array_equal(flow, want[k])
        with pytest.raises(fp.Error, match=r"pair 8 on device 2 .*non-finite.*\(7, 5\)"):
            sp.collect()
        assert sp.queued == 0
        # the next frame starts anew
        sp.submit(frames[0])
        sp.submit(frames[1])
        np.testing.assert_array_equal(sp.collect()[1], want[0])


def test_bad_use(frames, device):
    with pytest.raises(fp.ParameterError, match="unknown device 'tpu'"):
        fp.Spread("cpu,tpu", "lk")
    with pytest.raises(fp.ParameterError):
        fp.Spread("cpu", "lk", alpha=-1)
    sp = fp.Spread(device, "lk")
    with pytest.raises(RuntimeError, match="no flow queued"):
        sp.collect()
    sp.submit(frames[0])
    with pytest.raises(ValueError, match="the Spread's frames"):
        sp.submit(frames[1][:-1])
    # the message whole, as Context.compute says it
    h, w = frames[0].shape[:2]
    with pytest.raises(ValueError) as e:
        sp.submit_pair(frames[0], frames[1][:-1])
    assert str(e.value) == (f"frame1 is {w} x {h} with 1 channel but frame2 is {w} x {h - 1} "
                            "with 1 channel")
    for f in frames[1:]:
        if sp.queued == sp.depth:
            with pytest.raises(RuntimeError, match="collect"):
                sp.submit(f)
            break
        sp.submit(f)
    sp.close()  # with flows queued
    sp.close()
    with pytest.raises(ValueError, match="closed"):
        sp.submit(frames[0])
