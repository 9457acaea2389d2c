#!/usr/bin/env python3
"""peers_klt.py -- OpenCV's KLT (cv2.goodFeaturesToTrack +
cv2.calcOpticalFlowPyrLK) beside libflow's tracker, for the side-by-side
tables of docs/BENCHMARKS.md.  A benchmark, not a test.

  peers_klt.py FRAME_DIR [DATA_DIR]

Time: the frames bench_methods writes with FLOW_BENCH_FRAMES=FRAME_DIR
(frame-00.pgm .. frame-15.pgm, 1920x1080), tracked in the order the
benchmark uses (0 .. 15 .. 0 ..., 64 frames after the first) with the
tracker's defaults: 1000 features, quality 0.01, minimum distance 10, block
3, window 21x21, 3 levels (maxLevel 2), 30 iterations or a step below 0.01
px; after each frame the lost features are replaced by new corners away
from the tracked ones (goodFeaturesToTrack with a mask of discs), as the
tracker does.  Median wall ms per frame of tracking, of replacement and of
both, with OpenCV's threads (all cores by default).

Accuracy (DATA_DIR given): Yosemite yos02 .. yos16 tracked the same way;
the displacements yos09 -> yos10 of the features followed through it, on
the terrain mask, against the ground truth: median and 90th percentile."""
import os
import sys
import time

import cv2
import numpy as np

from peers_dis import read_flo

FEATURES, QUALITY, MIN_DIST, BLOCK = 1000, 0.01, 10, 3
LK = dict(winSize=(21, 21), maxLevel=2,
          criteria=(cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 30, 0.01))


def replace(frame, pts):
    """New corners for the free places, min_dist away from the tracked ones."""
    need = FEATURES - len(pts)
    if need <= 0:
        return pts
    mask = np.full(frame.shape, 255, np.uint8)
    for x, y in pts.reshape(-1, 2):
        cv2.circle(mask, (int(round(x)), int(round(y))), MIN_DIST, 0, -1)
    new = cv2.goodFeaturesToTrack(frame, need, QUALITY, MIN_DIST, mask=mask, blockSize=BLOCK)
    if new is None:
        return pts
    return np.concatenate([pts, new.astype(np.float32)]) if len(pts) else new.astype(np.float32)


def step(prev, frame, pts):
    nxt, st, _ = cv2.calcOpticalFlowPyrLK(prev, frame, pts, None, **LK)
    return nxt, st.reshape(-1) == 1


def timing(frame_dir):
    frames = [cv2.imread(os.path.join(frame_dir, "frame-%02d.pgm" % k), cv2.IMREAD_GRAYSCALE)
              for k in range(16)]
    order = [(m if m < 16 else 30 - m) for m in (i % 30 for i in range(65))]
    pts = replace(frames[order[0]], np.zeros((0, 1, 2), np.float32))
    t_track, t_rep = [], []
    for a, b in zip(order, order[1:]):
        t0 = time.perf_counter()
        nxt, ok = step(frames[a], frames[b], pts)
        t1 = time.perf_counter()
        pts = replace(frames[b], nxt[ok].reshape(-1, 1, 2))
        t2 = time.perf_counter()
        t_track.append(1e3 * (t1 - t0))
        t_rep.append(1e3 * (t2 - t1))
    both = np.median(np.array(t_track) + np.array(t_rep))
    print("| OpenCV %s KLT, %d threads | %dx%d | %d | %.2f | %.2f | %.2f | %.0f |" % (
        cv2.__version__, cv2.getNumThreads(), frames[0].shape[1], frames[0].shape[0], FEATURES,
        np.median(t_track), np.median(t_rep), both, 1e3 / both))


def yosemite(data):
    d = os.path.join(data, "yosemite-clouds")
    gt = read_flo(os.path.join(d, "yos09-yos10.flo"))
    mask = cv2.imread(os.path.join(d, "yos09-terrain-mask.png"), cv2.IMREAD_GRAYSCALE)
    frames = {k: cv2.imread(os.path.join(d, "yos%02d.png" % k), cv2.IMREAD_GRAYSCALE)
              for k in range(2, 17)}
    pts = replace(frames[2], np.zeros((0, 1, 2), np.float32))
    errors = []
    for k in range(3, 17):
        nxt, ok = step(frames[k - 1], frames[k], pts)
        if k == 10:  # pts are the positions in yos09, nxt in yos10
            for (x0, y0), (x1, y1), good in zip(pts.reshape(-1, 2), nxt.reshape(-1, 2), ok):
                xi = min(int(round(x0)), mask.shape[1] - 1)
                yi = min(int(round(y0)), mask.shape[0] - 1)
                if not good or mask[yi, xi] < 128:
                    continue
                u = cv2.getRectSubPix(np.ascontiguousarray(gt[:, :, 0]), (1, 1), (x0, y0))[0, 0]
                v = cv2.getRectSubPix(np.ascontiguousarray(gt[:, :, 1]), (1, 1), (x0, y0))[0, 0]
                errors.append(np.hypot(x1 - x0 - u, y1 - y0 - v))
        pts = replace(frames[k], nxt[ok].reshape(-1, 1, 2))
    e = np.sort(errors)
    print("OpenCV KLT yos09 -> yos10: %d terrain features, median error %.4f px, 90th "
          "percentile %.4f px" % (len(e), e[len(e) // 2], e[len(e) * 9 // 10]))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    timing(sys.argv[1])
    if len(sys.argv) > 2:
        yosemite(sys.argv[2])
