#!/usr/bin/env python3
"""peers_dis.py -- OpenCV's DIS (cv2.DISOpticalFlow) on the pairs that
bench_accuracy scores and on generated frames, for the side-by-side tables of
docs/BENCHMARKS.md.  A benchmark, not a test.

  peers_dis.py DATA_DIR [FRAME0 FRAME1]...

Accuracy: Yosemite (AAE in degrees on the terrain mask), the four Middlebury
pairs and FlyingChairs 0000000-0000003 (AEE in px), each preset with
OpenCV's defaults, on the gray frames (DIS takes 8-bit gray).  Time: the
median wall time of calc() over 10 runs after one warm-up, on every
FRAME0 FRAME1 pair given (all CPU threads OpenCV uses by default).

Its pair list, .flo reader and scoring (scores_density, summary) also serve
peers_klt.py and scripts/bench-peers, so that every side is scored alike."""
import sys
import time

import cv2
import numpy as np

PRESETS = [("ultrafast", cv2.DISOPTICAL_FLOW_PRESET_ULTRAFAST),
           ("fast", cv2.DISOPTICAL_FLOW_PRESET_FAST),
           ("medium", cv2.DISOPTICAL_FLOW_PRESET_MEDIUM)]
MB = "middlebury/"
FC = "flyingchairs/"
PAIRS = [("Yosemite", "yosemite-clouds/yos09.png", "yosemite-clouds/yos10.png",
          "yosemite-clouds/yos09-yos10.flo", "yosemite-clouds/yos09-terrain-mask.png")]
PAIRS += [(n, MB + n + "/frame10.png", MB + n + "/frame11.png", MB + n + "/flow10.flo", None)
          for n in ("RubberWhale", "Dimetrodon", "Grove2", "Urban2")]
PAIRS += [("chairs%d" % i, FC + "%07d-img0.ppm" % i, FC + "%07d-img1.ppm" % i,
           FC + "%07d-gt.flo" % i, None) for i in range(4)]


def read_flo(path):
    with open(path, "rb") as f:
        if np.frombuffer(f.read(4), np.float32)[0] != 202021.25:
            raise ValueError(path + ": not a .flo file")
        w, h = np.frombuffer(f.read(8), np.int32)
        return np.frombuffer(f.read(), np.float32).reshape(h, w, 2)


def gray(path):
    img = cv2.imread(path, cv2.IMREAD_GRAYSCALE)
    if img is None:
        raise ValueError(path + ": cannot read")
    return img


def known(flow):
    """Where both components are known: below 1e9 in magnitude, not NaN."""
    return (np.abs(flow[..., 0]) < 1e9) & (np.abs(flow[..., 1]) < 1e9)


def scores_density(est, gt, mask):
    """AAE (degrees), AEE (px) and density, as test_realdata scores: over the
    pixels whose ground truth is known (and mask >= 128 where a mask is
    given), leaving out those the estimate marks unknown; the density is the
    share of those pixels the estimate knows."""
    scored = known(gt)
    if mask is not None:
        scored &= mask >= 128
    solved = scored & known(est)
    e, g = est[solved].astype(np.float64), gt[solved].astype(np.float64)
    if not len(e):
        return float("nan"), float("nan"), 0.0
    aee = np.mean(np.hypot(e[:, 0] - g[:, 0], e[:, 1] - g[:, 1]))
    c = (1 + np.sum(e * g, 1)) / (np.sqrt(1 + np.sum(e * e, 1)) * np.sqrt(1 + np.sum(g * g, 1)))
    aae = np.degrees(np.mean(np.arccos(np.clip(c, -1, 1))))
    return aae, aee, np.count_nonzero(solved) / np.count_nonzero(scored)


def scores(est, gt, mask):
    return scores_density(est, gt, mask)[:2]


MIDDLEBURY = ("RubberWhale", "Dimetrodon", "Grove2", "Urban2")
CHAIRS = tuple("chairs%d" % i for i in range(4))


def summary(row):
    """(Yosemite AAE, Middlebury mean AEE, chairs mean AEE) of a row that
    maps each pair's name to its AAE (Yosemite) or AEE (the others)."""
    return (row["Yosemite"], np.mean([row[n] for n in MIDDLEBURY]),
            np.mean([row[n] for n in CHAIRS]))


def main():
    data = sys.argv[1].rstrip("/") + "/"
    print("OpenCV %s, %d threads" % (cv2.__version__, cv2.getNumThreads()))
    print("| preset | Yosemite | RubberWhale | Dimetrodon | Grove2 | Urban2 | chairs0 | chairs1 "
          "| chairs2 | chairs3 | Middlebury mean | chairs mean |")
    print("|---" * 12 + "|")
    for name, preset in PRESETS:
        dis = cv2.DISOpticalFlow_create(preset)
        row = {}
        for pname, f1, f2, gt, mask in PAIRS:
            flow = dis.calc(gray(data + f1), gray(data + f2), None)
            m = gray(data + mask) if mask else None
            aae, aee = scores(flow, read_flo(data + gt), m)
            row[pname] = aae if pname == "Yosemite" else aee
        yos, mid, ch = summary(row)
        print("| DIS %s | %.2f | " % (name, yos)
              + " | ".join("%.3f" % row[p[0]] for p in PAIRS[1:])
              + " | %.3f | %.3f |" % (mid, ch))
    print("\n| preset | size | ms per frame (median of 10) |\n|---|---|---|")
    for k in range(2, len(sys.argv) - 1, 2):
        a, b = gray(sys.argv[k]), gray(sys.argv[k + 1])
        for name, preset in PRESETS:
            dis = cv2.DISOpticalFlow_create(preset)
            dis.calc(a, b, None)
            t = []
            for _ in range(10):
                t0 = time.perf_counter()
                dis.calc(a, b, None)
                t.append((time.perf_counter() - t0) * 1e3)
            print("| DIS %s | %dx%d | %.2f |" % (name, a.shape[1], a.shape[0], np.median(t)))


if __name__ == "__main__":
    main()
