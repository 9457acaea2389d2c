"""Flow written as 8-bit images, read back as numpy arrays for a data loader.

flow-compute --flow-images DIR (and scripts/flow-corpus, a directory per
video) writes the flow of each pair as two gray images, x (u) and y (v),
numbered from 1 as denseflow numbers them, each sample

    level = clamp(round(255 (v + B) / (2 B)), 0, 255)

for a bound B in pixels (20 unless --flow-bound said otherwise); a level l
stands for l 2B/255 - B, so a component within [-B, B] comes back within
B/255 px, and JPEG adds its own loss.  docs/flow-compute.md, "Flow for
video datasets".
"""
import os
from typing import Optional, Sequence, Tuple

import numpy as np

from ._flowplatform import read_image

FLOW_IMAGE_NAMES = ("flow_x_%05d.jpg", "flow_y_%05d.jpg")
FLOW_IMAGE_BOUND = 20.0


def flow_image_count(directory: str, names: Tuple[str, str] = FLOW_IMAGE_NAMES) -> int:
    """The number of flows in directory: the x images numbered 1, 2, ...
    without a gap, each with its y image (an error otherwise)."""
    n = 0
    while os.path.exists(os.path.join(directory, names[0] % (n + 1))):
        n += 1
        y = os.path.join(directory, names[1] % n)
        if not os.path.exists(y):
            raise FileNotFoundError(f"{y}: the y image of flow {n} is missing")
    return n


def _level_image(path: str) -> np.ndarray:
    img = read_image(path)
    if img.ndim != 2:
        raise ValueError(f"{path}: {img.shape[2]} channels: a flow image is gray")
    return img.astype(np.uint8)


def read_flow_images(directory: str, indices: Optional[Sequence[int]] = None,
                     bound: float = FLOW_IMAGE_BOUND,
                     names: Tuple[str, str] = FLOW_IMAGE_NAMES,
                     levels: bool = False) -> np.ndarray:
    """The flows of directory as an N x H x W x 2 array of (u, v).

    indices: the flows' numbers (from 1, as in the names), all of them
    when None; bound: B, pixels; names: the x and y name patterns;
    levels: True gives the stored uint8 levels instead of float32 pixels.
    A missing image raises FileNotFoundError, images of another size
    ValueError.
    """
    if not bound > 0:
        raise ValueError(f"bound {bound}: must be above 0 (pixels)")
    if indices is None:
        indices = range(1, flow_image_count(directory, names) + 1)
    out = None
    for k, i in enumerate(indices):
        pair = []
        for c in range(2):
            path = os.path.join(directory, names[c] % i)
            if not os.path.exists(path):
                raise FileNotFoundError(f"{path}: no such flow image")
            pair.append(_level_image(path))
        if out is None:
            out = np.empty((len(indices),) + pair[0].shape + (2,), np.uint8)
        for c in range(2):
            if pair[c].shape != out.shape[1:3]:
                raise ValueError(f"{os.path.join(directory, names[c] % i)}: "
                                 f"{pair[c].shape[1]}x{pair[c].shape[0]}, the first image "
                                 f"{out.shape[2]}x{out.shape[1]}")
            out[k, ..., c] = pair[c]
    if out is None:
        raise FileNotFoundError(f"{directory}: no flow image ({names[0] % 1})")
    if levels:
        return out
    return (out.astype(np.float32) * np.float32(2.0 * bound / 255.0) - np.float32(bound))
