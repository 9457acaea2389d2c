#!/usr/bin/env python3
"""peers_tvl1.py -- the project's tvl1 beside OpenCV's DualTVL1
(cv2.optflow.DualTVL1OpticalFlow_create(), its defaults, which tvl1's are) on
the pairs with ground truth, for the table of docs/BENCHMARKS.md.  A
benchmark, not a test.

  peers_tvl1.py DATA_DIR [FLOW_COMPUTE] [--all]

Yosemite (terrain mask), the four Middlebury pairs and, with --all, the
Sintel pairs (their `invalid` pixels left out) and the KITTI 2012 pairs
(their valid pixels): AAE in degrees and AEE in px of both sides on the
8-bit gray frames (the project: flow-compute -m tvl1 on the luminance), and
the wall time of each side for one pair (flow-compute: the whole command;
OpenCV: calc() on all the threads it uses)."""
import os
import subprocess
import sys
import tempfile
import time

import cv2
import numpy as np


def read_flo(path):
    with open(path, "rb") as f:
        _, w, h = np.frombuffer(f.read(12), dtype="<f4,<i4,<i4")[0]
        return np.frombuffer(f.read(), dtype="<f4").reshape(h, w, 2).astype(np.float64)


def read_kitti(path):
    g = cv2.imread(path, cv2.IMREAD_UNCHANGED)[:, :, ::-1].astype(np.float64)
    return np.dstack([(g[:, :, 0] - 2 ** 15) / 64, (g[:, :, 1] - 2 ** 15) / 64]), g[:, :, 2] > 0


def errors(f, g, mask):
    ok = mask & (np.abs(g) < 1e9).all(2)
    epe = np.hypot(*(f - g).transpose(2, 0, 1))[ok]
    c = (1 + (f * g).sum(2)) / np.sqrt(1 + (f * f).sum(2)) / np.sqrt(1 + (g * g).sum(2))
    return np.degrees(np.arccos(np.clip(c, -1, 1)))[ok].mean(), epe.mean()


def pairs(everything):
    mb, si = "middlebury/%s/", "sintel/training/"
    out = [("Yosemite (terrain)", "yosemite-clouds/yos09.png", "yosemite-clouds/yos10.png",
            "yosemite-clouds/yos09-yos10.flo", "yosemite-clouds/yos09-terrain-mask.png")]
    out += [("Middlebury " + n, mb % n + "frame10.png", mb % n + "frame11.png",
             mb % n + "flow10.flo", None) for n in ("RubberWhale", "Dimetrodon", "Grove2", "Urban2")]
    if not everything:
        return out
    for scene, kind, k in (("alley_1", "clean", 2), ("alley_1", "final", 2), ("cave_2", "clean", 2),
                           ("cave_2", "final", 2), ("bandage_1", "final", 35),
                           ("ambush_4", "final", 4)):
        frame = si + "%s/%s/frame_%04d.png"
        out.append(("Sintel %s %s" % (scene, kind), frame % (kind, scene, k),
                    frame % (kind, scene, k + 1), si + "flow/%s/frame_%04d.flo" % (scene, k),
                    "!" + si + "invalid/%s/frame_%04d.png" % (scene, k)))
    for n in ("000157", "000045"):
        kt = "kitti2012/training/"
        out.append(("KITTI 2012 " + n, kt + "colored_0/%s_10.png" % n,
                    kt + "colored_0/%s_11.png" % n, "kitti:" + kt + "flow_noc/%s_10.png" % n, None))
    return out


def main(argv):
    args = [a for a in argv[1:] if a != "--all"]
    if not args:
        sys.exit("usage: peers_tvl1.py DATA_DIR [FLOW_COMPUTE] [--all]")
    data = args[0]
    fc = args[1] if len(args) > 1 else "build/bin/flow-compute"
    opencv = cv2.optflow.DualTVL1OpticalFlow_create()
    print("| pair | tvl1 AAE / AEE | s | OpenCV DualTVL1 AAE / AEE | s |")
    print("|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "flow.flo")
        for name, a, b, gt, mask in pairs("--all" in argv):
            a, b = os.path.join(data, a), os.path.join(data, b)
            if gt.startswith("kitti:"):
                g, valid = read_kitti(os.path.join(data, gt[6:]))
            else:
                g = read_flo(os.path.join(data, gt))
                valid = np.ones(g.shape[:2], bool)
                if mask and mask[0] == "!":
                    valid = cv2.imread(os.path.join(data, mask[1:]), 0) == 0
                elif mask:
                    valid = cv2.imread(os.path.join(data, mask), 0) > 0
            t = time.time()
            subprocess.run([fc, "-q", "-m", "tvl1", a, b, "-o", out], check=True)
            ours_s = time.time() - t
            ours = errors(read_flo(out), g, valid)
            i1, i2 = cv2.imread(a, cv2.IMREAD_GRAYSCALE), cv2.imread(b, cv2.IMREAD_GRAYSCALE)
            t = time.time()
            theirs = errors(opencv.calc(i1, i2, None).astype(np.float64), g, valid)
            theirs_s = time.time() - t
            print("| %s | %.2f / %.3f | %.1f | %.2f / %.3f | %.1f |"
                  % (name, ours[0], ours[1], ours_s, theirs[0], theirs[1], theirs_s), flush=True)


if __name__ == "__main__":
    main(sys.argv)
