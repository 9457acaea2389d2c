"""flowplatform -- dense optical flow with libflow, on numpy arrays.

    import flowplatform as fp
    flow = fp.compute(frame1, frame2)            # H x W x 2 float32: (u, v)
    picture = fp.flow_to_color(flow)             # H x W x 3 uint8
    arrows = fp.flow_to_vectors(flow, frame1)    # the same, arrows over the frame
    warped, known = fp.warp(frame2, flow)        # frame 2 warped back onto frame 1
    print(fp.error(flow, fp.read_flow("gt.flo")).aae)

Frames are uint8 or float32 arrays (values 0..255) of H x W (gray) or
H x W x 3 (R, G, B; OpenCV's B, G, R frames need frame[..., ::-1]).  Flows
are H x W x 2 float32 arrays of (u, v), u pointing right and v down, as
cv2.readOpticalFlow gives them; a vector with a component above 1e9 (1e10
as written) or NaN is unknown.  Failures of the library raise Error with its
message; unknown methods, parameters and values out of range ParameterError
(also a ValueError); wrong dtypes TypeError, wrong shapes ValueError.

docs/python.md is the reference.
"""
from collections import namedtuple as _namedtuple
from typing import TYPE_CHECKING as _TYPE_CHECKING
from typing import Iterable as _Iterable
from typing import Iterator as _Iterator
from typing import Optional as _Optional

try:
    import numpy as _numpy  # noqa: F401  (the extension imports it as it loads)
except ImportError as _missing:
    import sys as _sys
    raise ImportError(
        f"flowplatform needs numpy, which {_sys.executable} (Python {_sys.version.split()[0]}) "
        f"cannot import ({_missing}): install numpy for this interpreter, or run the one "
        "flowplatform was built for") from _missing

from ._flowplatform import (
    TRACK_LOST,
    TRACK_NEW,
    TRACK_TRACKED,
    Context,
    DeviceArray,
    Error,
    ParameterError,
    Spread,
    Tracker,
    Video,
    applies,
    color_legend,
    confidence_to_rgb,
    default_method,
    fb_check,
    flow_formats,
    flow_to_color,
    flow_to_vectors,
    has_cuda,
    has_opencv,
    methods,
    montage,
    occlusion_score,
    occlusion_to_rgb,
    photometric_error,
    read_flow,
    read_image,
    read_params,
    schema,
    sparsification,
    warp,
    write_flow,
    write_image,
)
from ._flowplatform import error as _error
from ._flowimages import flow_image_count, read_flow_images
from ._flowplatform import version as _version

if _TYPE_CHECKING:
    from numpy.typing import NDArray as _NDArray

    from ._flowplatform import Frame as _Frame
    from ._flowplatform import ParamValue as _ParamValue

__version__ = _version
__all__ = [
    "Context", "DeviceArray", "Error", "ErrorStats", "ParameterError", "Spread", "TRACK_LOST", "TRACK_NEW",
    "TRACK_TRACKED", "Tracker", "Video", "applies", "color_legend", "compute", "compute_both",
    "compute_many", "confidence_to_rgb", "default_method", "error",
    "fb_check", "flow_formats", "flow_image_count", "flow_to_color", "flow_to_vectors", "has_cuda",
    "has_opencv", "methods", "montage", "occlusion_score", "occlusion_to_rgb",
    "photometric_error", "read_flow",
    "read_flow_images", "read_image", "read_params", "schema", "sparsification", "warp",
    "write_flow", "write_image",
]


def compute(frame1: "_Frame", frame2: "_Frame", method: str = default_method,
            device: str = "auto", **params: "_ParamValue") -> "_NDArray":
    """The flow from frame1 to frame2 as an H x W x 2 float32 array of (u, v).

    method is one of methods(), device "auto" (CUDA when a GPU is usable,
    else the CPU), "cpu", "cuda" or "cuda:N", and params the method's
    parameters by name (schema(method) lists them), e.g.
    compute(f1, f2, "clg-nl", alpha=20, solver="fmg").  A sequence is
    faster through a Context, which keeps its buffers and device.
    """
    with Context(method, device, **params) as ctx:
        return ctx.compute(frame1, frame2)


def compute_both(frame1: "_Frame", frame2: "_Frame", method: str = default_method,
                 device: str = "auto", a: float = 0.01, b: float = 0.5,
                 **params: "_ParamValue") -> "dict[str, _NDArray] | dict[str, DeviceArray]":
    """Both directions in one call, as Context.compute_both: a dict of "flow"
    (frame1 to frame2) and "backward" (frame2 to frame1), H x W x 2 float32;
    "occlusion", H x W bool, True where the forward-backward test of
    Sundaram, Brox and Keutzer (ECCV 2010)
    |wf + wb(x + wf)|^2 > a (|wf|^2 + |wb(x + wf)|^2) + b fails; and
    "confidence", H x W float32 in [0, 1], higher where a vector is more
    likely right.  The backward flow is the method's flow of (frame2,
    frame1) computed alone; both come from the frames uploaded once.
    With both frames GPU arrays on a CUDA device, the four are
    DeviceArrays on the GPU, the occlusion mask float32 1/0 there.
    """
    with Context(method, device, **params) as ctx:
        return ctx.compute_both(frame1, frame2, a, b)


def compute_many(frames: "_Iterable[_Frame]", devices: str = "auto",
                 method: str = default_method,
                 **params: "_ParamValue") -> "_Iterator[_NDArray]":
    """The flows of a sequence, each pair's in order, computed on several devices.

    frames is any iterable of frames of one size (a list, a Video, a
    generator); devices a list such as "cuda:all", "cuda:0,1" or
    "cpu,cpu" (an entry may repeat a device: one queue each), or one device
    ("auto", "cpu", "cuda:N").  Yields the H x W x 2 flow of frames k ->
    k + 1 for k = 0, 1, ..., the same as Context.next() gives, reading
    frames ahead while the devices compute.  A Spread does the work.
    """
    with Spread(devices, method, **params) as spread:
        for frame in frames:
            if spread.queued == spread.depth:
                yield spread.collect()[1]
            spread.submit(frame)
        while spread.queued:
            yield spread.collect()[1]


_MEASURES = ("px1 px3 px5 fl epe_noc epe_occ scored_noc scored_occ fl_noc fl_occ fl_bg fl_fg "
             "s0_10 s10_40 s40 d0_10 d10_60 d60_140 invalid")


class ErrorStats(_namedtuple("ErrorStats", "aae aae_std aee aee_std over1 over3 max_ee "
                             "scored total outside_mask unknown_gt unknown_est " + _MEASURES)):
    """The figures of `flow-tool error`, in the order of its CSV columns.

    aae, aae_std: average angular error and its standard deviation, degrees;
    aee, aee_std: average endpoint error and its standard deviation, pixels;
    over1, over3: the fraction (0..1) of scored pixels with an endpoint
    error over 1 px, over 3 px; max_ee: the largest endpoint error;
    scored, total, outside_mask, unknown_gt, unknown_est, invalid: pixel
    counts (total = scored + the four excluded); density: scored / (scored +
    unknown_est).  Standard deviations divide by N.
    px1, px3, px5: % of scored pixels with an endpoint error over 1, 3, 5 px;
    fl: KITTI's Fl, % with an endpoint error over 3 px and over 5% of |gt|;
    epe_noc, epe_occ, scored_noc, scored_occ, fl_noc, fl_occ: the mean
    endpoint error, count and Fl of the non-occluded and occluded pixels
    (given occlusions or noc); fl_bg, fl_fg: Fl of the background and the
    foreground (given objmap); s0_10, s10_40, s40: the mean endpoint error
    where |gt| is in [0, 10), [10, 40), [40, inf) px; d0_10, d10_60,
    d60_140: where the Euclidean distance of a non-occluded pixel to the
    nearest occluded one is in [0, 10), [10, 60), [60, 140) px (given
    occlusions).  A measure that is not defined (no such pixel, or the map
    it needs not given) is None.  docs/EVALUATION.md defines each.
    """
    __slots__ = ()

    @property
    def density(self) -> float:
        return self.scored / (self.scored + self.unknown_est)


def error(est: "_NDArray", gt: "_NDArray", mask: "_Optional[_NDArray]" = None,
          invalid: "_Optional[_NDArray]" = None, occlusions: "_Optional[_NDArray]" = None,
          noc: "_Optional[_NDArray]" = None, objmap: "_Optional[_NDArray]" = None) -> ErrorStats:
    """Scores the flow est against the ground truth gt (H x W x 2 each).

    mask: None (every pixel) or an H x W bool or integer array, nonzero =
    scored; invalid: the same, nonzero = excluded (Sintel's invalid/);
    occlusions: the same, nonzero = occluded (Sintel's occlusions/); noc:
    KITTI's flow_noc (H x W x 2) when gt is its flow_occ, a pixel known in
    gt but unknown in noc being occluded (give occlusions or noc, not both);
    objmap: nonzero = foreground (KITTI 2015's obj_map).  Pixels with
    unknown ground truth are excluded, and so are those the estimate marks
    unknown (counted in unknown_est); a NaN or infinite estimate raises
    Error, and so does nothing left to score (ValueError).  Returns an
    ErrorStats.
    """
    return ErrorStats(**_error(est, gt, mask, invalid, occlusions, noc, objmap))
