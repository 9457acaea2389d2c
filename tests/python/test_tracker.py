"""test_tracker.py -- Tracker against flow-track on the same frames (the
same rows), the known motion of a translation, and its refusals."""
import csv
import io

import numpy as np
import pytest

import flowplatform as fp
from conftest import tool

STATES = {"tracked": fp.TRACK_TRACKED, "lost": fp.TRACK_LOST, "new": fp.TRACK_NEW}


def test_tracker_equals_flow_track(translation, device):
    rows = list(csv.DictReader(io.StringIO(tool(
        "flow-track", "-q", "--device", device, "--features", 200, *translation.paths, "-o", "-"))))
    with fp.Tracker(device, features=200) as tr:
        for k, frame in enumerate(translation.frames):
            pts = tr.next(frame)
            want = [r for r in rows if int(r["frame"]) == k]
            assert len(pts["id"]) == len(want)
            assert [int(r["id"]) for r in want] == pts["id"].tolist()
            assert [STATES[r["status"]] for r in want] == pts["state"].tolist()
            np.testing.assert_allclose(pts["x"], [float(r["x"]) for r in want], atol=6e-5)
            np.testing.assert_allclose(pts["y"], [float(r["y"]) for r in want], atol=6e-5)
        assert tr.alive == int((pts["state"] != fp.TRACK_LOST).sum())
        assert set(tr.losses) == {"texture", "outside", "residual", "fb"}
    assert tr.closed


def test_tracker_follows_the_translation(translation, device):
    """Features move by the sequence's (0.6, -0.3) px per frame."""
    with fp.Tracker(device) as tr:
        first = tr.next(translation.frames[0])
        assert (first["state"] == fp.TRACK_NEW).all() and len(first["id"]) > 20
        second = tr.next(translation.frames[1])
        tracked = second["state"] == fp.TRACK_TRACKED
        ids = second["id"][tracked]
        at = {i: (x, y) for i, x, y in zip(first["id"], first["x"], first["y"])}
        dx = np.array([second["x"][tracked][k] - at[i][0] for k, i in enumerate(ids)])
        dy = np.array([second["y"][tracked][k] - at[i][1] for k, i in enumerate(ids)])
        assert tracked.sum() > 0.8 * len(first["id"])
        assert np.median(dx) == pytest.approx(0.6, abs=0.03)
        assert np.median(dy) == pytest.approx(-0.3, abs=0.03)


def test_tracker_refusals(translation):
    with pytest.raises(fp.ParameterError, match="features"):
        fp.Tracker("cpu", features=0)
    with pytest.raises(TypeError):
        fp.Tracker("cpu", bogus=1)
    tr = fp.Tracker("cpu")
    tr.next(translation.frames[0])
    with pytest.raises(ValueError, match="96x71|96 x 71|size"):
        tr.next(translation.frames[1][:71])
    tr.close()
    with pytest.raises(ValueError, match="closed"):
        tr.next(translation.frames[0])
