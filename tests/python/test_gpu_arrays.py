"""test_gpu_arrays.py -- GPU arrays in and out of Context.compute,
Context.next and Context.compute_both (docs/python.md, "GPU arrays"): CuPy
arrays and PyTorch CUDA tensors, read through __cuda_array_interface__ and
DLPack, give the flow of the numpy path bit for bit on the same device, and
compute_both's four results, left on the GPU as DeviceArrays, those of the
numpy frames bit for bit; DeviceArray reads back into CuPy and PyTorch in
place through both interfaces; wrong devices, dtypes, shapes and layouts
are refused with a clear error; each object's interfaces are asked once per
call.

The tests that compute need a CUDA Context and CuPy or PyTorch with a GPU
(skipped otherwise, saying which is missing); the checks of the interfaces
themselves run everywhere, on objects that describe memory they never let
the library read."""
import sys

import numpy as np
import pytest

import flowplatform as fp

METHODS = ["robust", "dis", "clg-nl", "hs"]


class Cupy:
    """CuPy as the tests use it."""

    def __init__(self):
        import cupy
        self.m = cupy

    def to(self, a):
        return self.m.asarray(a)

    def host(self, a):
        return self.m.asnumpy(a)

    def via_interface(self, d):
        return self.m.asarray(d)

    def via_dlpack(self, d):
        return self.m.from_dlpack(d)

    def ptr(self, a):
        return a.data.ptr

    def byte_strides(self, a):
        return tuple(a.strides)

    def planes(self, h, w):
        return self.m.empty((2, h, w), self.m.float32).transpose(1, 2, 0)

    def on_stream(self):
        return self.m.cuda.Stream(non_blocking=True)

    def synchronize(self):
        self.m.cuda.runtime.deviceSynchronize()


class Torch:
    """PyTorch's CUDA tensors as the tests use them."""

    def __init__(self):
        import torch
        self.m = torch

    def to(self, a):
        return self.m.from_numpy(np.ascontiguousarray(a)).cuda()

    def host(self, a):
        return a.cpu().numpy()

    def via_interface(self, d):
        return self.m.as_tensor(d, device="cuda")

    def via_dlpack(self, d):
        return self.m.utils.dlpack.from_dlpack(d)

    def ptr(self, a):
        return a.data_ptr()

    def byte_strides(self, a):
        return tuple(s * a.element_size() for s in a.stride())

    def planes(self, h, w):
        return self.m.empty((2, h, w), dtype=self.m.float32, device="cuda").permute(1, 2, 0)

    def on_stream(self):
        return self.m.cuda.stream(self.m.cuda.Stream())

    def synchronize(self):
        self.m.cuda.synchronize()


@pytest.fixture(scope="session", params=["cupy", "torch"])
def lib(request, cuda):
    name = request.param
    try:
        __import__(name)
    except ImportError as e:
        pytest.skip(f"{name} is not importable by {sys.executable}: {e}")
    if name == "cupy":
        import cupy
        try:
            if cupy.cuda.runtime.getDeviceCount() < 1:
                pytest.skip("cupy sees no GPU")
        except cupy.cuda.runtime.CUDARuntimeError as e:
            pytest.skip(f"cupy cannot use the GPU: {e}")
        return Cupy()
    import torch
    if not torch.cuda.is_available():
        pytest.skip("torch.cuda.is_available() is False")
    return Torch()


def same_bits(a, b):
    a, b = np.asarray(a), np.asarray(b)  # byte for byte: any dtype, any width
    return a.shape == b.shape and a.dtype == b.dtype and np.array_equal(
        np.ascontiguousarray(a).view(np.uint8), np.ascontiguousarray(b).view(np.uint8))


def frames_of(seq, kind):
    """The first two frames of seq as float32, uint8, or uint8 colour."""
    f1, f2 = seq.frames[:2]
    if kind == "uint8":
        return f1.astype(np.uint8), f2.astype(np.uint8)
    return f1, f2


# ---- on the GPU ------------------------------------------------------------------


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("kind", ["float32", "uint8"])
def test_device_frames_give_the_numpy_flow(lib, translation, method, kind):
    f1, f2 = frames_of(translation, kind)
    with fp.Context(method, "cuda") as ctx:
        expected = ctx.compute(f1, f2)
        d = ctx.compute(lib.to(f1), lib.to(f2))
        assert isinstance(d, fp.DeviceArray)
        assert d.shape == expected.shape and d.dtype == np.float32
        assert same_bits(lib.host(lib.via_dlpack(d)), expected)
        # the flow as a numpy array, and the numpy frames' flow on the GPU
        assert same_bits(ctx.compute(lib.to(f1), lib.to(f2), out="host"), expected)
        assert same_bits(lib.host(lib.via_interface(ctx.compute(f1, f2, out="device"))),
                         expected)


@pytest.mark.parametrize("kind", ["float32", "uint8"])
def test_colour_device_frames(lib, rotation_rgb, kind):
    f1, f2 = frames_of(rotation_rgb, kind)
    with fp.Context("clg-nl", "cuda") as ctx:
        expected = ctx.compute(f1, f2)
        assert same_bits(lib.host(lib.via_dlpack(ctx.compute(lib.to(f1), lib.to(f2)))),
                         expected)


def test_next_with_device_frames(lib, translation):
    frames = translation.frames[:4]
    with fp.Context("robust", "cuda") as ctx:
        expected = [ctx.next(f) for f in frames]
        ctx.reset()
        got = [ctx.next(lib.to(f)) for f in frames]
        assert got[0] is None
        for g, e in zip(got[1:], expected[1:]):
            assert isinstance(g, fp.DeviceArray)
            assert same_bits(lib.host(lib.via_interface(g)), e)
        ctx.reset()
        ctx.next(lib.to(frames[0]))
        assert same_bits(ctx.next(lib.to(frames[1]), out="host"), expected[1])


def both_as_numpy(lib, got, read):
    """compute_both's DeviceArrays read into numpy through `read` (one of
    the library's interfaces), occlusion as it is on the device."""
    return {k: lib.host(read(d)) for k, d in got.items()}


@pytest.mark.parametrize("method", ["dis", "robust", "hs"])
@pytest.mark.parametrize("kind", ["float32", "uint8"])
@pytest.mark.parametrize("odd", [False, True])
def test_compute_both_with_device_frames(lib, translation, method, kind, odd):
    f1, f2 = frames_of(translation, kind)
    if odd:  # 95 x 71: rows of the planes, packed, that are not 16-byte aligned
        f1, f2 = (np.ascontiguousarray(f[:71, :95]) for f in (f1, f2))
    h, w = f1.shape
    with fp.Context(method, "cuda") as ctx:
        expected = ctx.compute_both(f1, f2)
        assert expected["occlusion"].any() and not expected["occlusion"].all()
        got = ctx.compute_both(lib.to(f1), lib.to(f2))
        assert set(got) == set(expected)
        for k, d in got.items():
            assert isinstance(d, fp.DeviceArray), k
            assert d.device == "cuda:0" and d.dtype == np.float32, k
        assert got["flow"].shape == got["backward"].shape == (h, w, 2)
        assert got["occlusion"].shape == got["confidence"].shape == (h, w)
        assert got["occlusion"].strides == (4 * w, 4) and got["occlusion"].nbytes == 4 * w * h
        for read in (lib.via_dlpack, lib.via_interface):
            host = both_as_numpy(lib, got, read)
            for k in ("flow", "backward", "confidence"):
                assert same_bits(host[k], expected[k]), k
            # on the device the mask is float32: 1.0 where the test fails, else 0.0
            assert same_bits(host["occlusion"], expected["occlusion"].astype(np.float32))
        # the context goes on with one direction, on the host and on the GPU
        flow = ctx.compute(f1, f2)
        assert same_bits(flow, expected["flow"])
        assert same_bits(lib.host(lib.via_dlpack(ctx.compute(lib.to(f1), lib.to(f2)))),
                         expected["flow"])
        # and computes both again, numpy frames giving numpy arrays
        again = ctx.compute_both(f1, f2)
        assert all(isinstance(again[k], np.ndarray) and same_bits(again[k], expected[k])
                   for k in expected)


def test_compute_both_mixed_frames_give_numpy(lib, translation):
    f1, f2 = translation.frames[:2]
    with fp.Context("dis", "cuda") as ctx:
        expected = ctx.compute_both(f1, f2)
        for pair in ((lib.to(f1), f2), (f1, lib.to(f2))):
            got = ctx.compute_both(*pair)
            for k in expected:
                assert isinstance(got[k], np.ndarray) and same_bits(got[k], expected[k]), k


def test_compute_both_device_arrays_outlive_the_context(lib, translation):
    f1, f2 = translation.frames[:2]
    with fp.Context("dis", "cuda") as ctx:
        expected = ctx.compute_both(f1, f2)
        got = ctx.compute_both(lib.to(f1), lib.to(f2))
        ptrs = {d.ptr for d in got.values()}
    assert len(ptrs) == 4  # four arrays of their own
    conf = got["confidence"]
    assert repr(conf) == "<flowplatform.DeviceArray (%d, %d) float32 on cuda:0>" % conf.shape
    cai = conf.__cuda_array_interface__
    assert cai["shape"] == conf.shape and cai["strides"] == conf.strides
    assert cai["data"] == (conf.ptr, False)
    for read in (lib.via_interface, lib.via_dlpack):
        a = read(conf)
        assert lib.ptr(a) == conf.ptr and lib.byte_strides(a) == conf.strides
    a = lib.via_dlpack(conf)
    del got, conf
    assert same_bits(lib.host(a), expected["confidence"])


def test_compute_both_frames_written_on_a_stream_of_the_callers(lib, translation):
    f1, f2 = translation.frames[:2]
    with fp.Context("robust", "cuda") as ctx:
        expected = ctx.compute_both(f1, f2)
        with lib.on_stream():
            a1, a2 = lib.to(f1) * 1, lib.to(f2) * 1
            got = ctx.compute_both(a1, a2)
        for k in ("flow", "backward", "confidence"):
            assert same_bits(lib.host(lib.via_dlpack(got[k])), expected[k]), k


def test_device_array_round_trip(lib, translation):
    f1, f2 = translation.frames[:2]
    h, w = f1.shape
    with fp.Context("dis", "cuda") as ctx:
        expected = ctx.compute(f1, f2)
        d = ctx.compute(lib.to(f1), lib.to(f2))
    # the Context is closed: the array keeps its device
    assert d.device == "cuda:0" and d.__dlpack_device__() == (2, 0)
    assert d.strides == (4 * w, 4, 4 * w * h) and d.nbytes == 8 * w * h
    cai = d.__cuda_array_interface__
    assert cai["shape"] == (h, w, 2) and cai["typestr"] == "<f4" and cai["version"] == 3
    assert cai["data"] == (d.ptr, False) and cai["strides"] == d.strides
    for read in (lib.via_interface, lib.via_dlpack):
        a = read(d)
        assert lib.ptr(a) == d.ptr  # shared in place, no copy
        assert lib.byte_strides(a) == d.strides
        assert same_bits(lib.host(a), expected)
    # the consumer keeps the memory alive after the DeviceArray is gone
    a = lib.via_dlpack(d)
    del d
    assert same_bits(lib.host(a), expected)


def test_out_array_is_written(lib, translation):
    f1, f2 = translation.frames[:2]
    h, w = f1.shape
    with fp.Context("robust", "cuda") as ctx:
        expected = ctx.compute(f1, f2)
        out = lib.planes(h, w)
        assert ctx.compute(lib.to(f1), lib.to(f2), out=out) is out
        assert same_bits(lib.host(out), expected)
        out2 = lib.planes(h, w)
        assert ctx.compute(f1, f2, out=out2) is out2
        assert same_bits(lib.host(out2), expected)


class InterfaceOnly:
    """An array seen through __cuda_array_interface__ alone."""

    def __init__(self, a):
        self.a = a
        self.__cuda_array_interface__ = a.__cuda_array_interface__


class DlpackOnly:
    """An array seen through DLPack alone; records the streams asked for."""

    def __init__(self, a):
        self.a, self.streams = a, []

    def __dlpack_device__(self):
        return self.a.__dlpack_device__()

    def __dlpack__(self, stream=None, **kw):
        self.streams.append(stream)
        return self.a.__dlpack__(stream=stream)


def test_each_interface_alone(lib, translation):
    f1, f2 = translation.frames[:2]
    with fp.Context("hs", "cuda") as ctx:
        expected = ctx.compute(f1, f2)
        a1, a2 = lib.to(f1), lib.to(f2)
        # PyTorch's interface (version 2) names no stream: the caller synchronises
        lib.synchronize()
        got = ctx.compute(InterfaceOnly(a1), InterfaceOnly(a2))
        assert same_bits(lib.host(lib.via_dlpack(got)), expected)
        d1, d2 = DlpackOnly(a1), DlpackOnly(a2)
        got = ctx.compute(d1, d2)
        assert d1.streams == [1] and d2.streams == [1]  # ordered before the legacy stream
        assert same_bits(lib.host(lib.via_dlpack(got)), expected)


def test_frames_written_on_a_stream_of_the_callers(lib, translation):
    f1, f2 = translation.frames[:2]
    with fp.Context("robust", "cuda") as ctx:
        expected = ctx.compute(f1, f2)
        with lib.on_stream():
            # written on a stream of the caller's, the Context waits for it
            a1, a2 = lib.to(f1) * 1, lib.to(f2) * 1
            got = ctx.compute(a1, a2)
        assert same_bits(lib.host(lib.via_dlpack(got)), expected)


def test_device_frame_errors(lib, translation):
    f1, f2 = translation.frames[:2]
    h, w = f1.shape
    with fp.Context("hs", "cuda") as ctx:
        a1, a2 = lib.to(f1), lib.to(f2)
        with pytest.raises(TypeError, match="frame1 has dtype float64"):
            ctx.compute(lib.to(f1.astype(np.float64)), a2)
        with pytest.raises(TypeError, match="frame2 has dtype int16"):
            ctx.compute(a1, lib.to(f2.astype(np.int16)))
        with pytest.raises(ValueError, match=r"frame1 has shape \(%d, %d, 2\)" % (h, w)):
            ctx.compute(lib.to(np.zeros((h, w, 2), np.float32)), a2)
        with pytest.raises(ValueError, match="frame1 is not in C order"):
            ctx.compute(lib.to(np.zeros((h, 2 * w), np.float32))[:, ::2], a2)
        with pytest.raises(ValueError, match="frame1 is not in C order"):
            ctx.compute(a1[:, 1:], a2)
        bad = f2.copy()
        bad[4, 3] = np.nan
        with pytest.raises(fp.Error, match=r"non-finite value \(nan\) at pixel \(3, 4\)") as e:
            ctx.compute(a1, lib.to(bad))
        with pytest.raises(fp.Error) as host:
            ctx.compute(f1, bad)
        assert str(e.value) == str(host.value)
        with pytest.raises(TypeError, match="out has dtype float64"):
            ctx.compute(a1, a2, out=lib.to(np.zeros((h, w, 2))))
        with pytest.raises(ValueError, match=r"out has shape \(%d, %d, 2\)" % (h, w - 1)):
            ctx.compute(a1, a2, out=lib.planes(h, w - 1))
        with pytest.raises(ValueError, match="out has strides .* two planes"):
            ctx.compute(a1, a2, out=lib.to(np.zeros((h, w, 2), np.float32)))
        # the Context still computes after the refusals
        assert same_bits(lib.host(lib.via_dlpack(ctx.compute(a1, a2))), ctx.compute(f1, f2))


def test_another_gpu_is_refused(cuda, translation):
    cupy = pytest.importorskip("cupy")
    if cupy.cuda.runtime.getDeviceCount() < 2:
        pytest.skip("one GPU: no other device to refuse")
    f1, f2 = translation.frames[:2]
    with cupy.cuda.Device(1):
        a1 = cupy.asarray(f1)
    with fp.Context("hs", "cuda:0") as ctx:
        # the library's check and words (flow_device_check_pointer)
        with pytest.raises(ValueError, match="frame1 lies on cuda:1, the device is cuda:0"):
            ctx.compute(a1, cupy.asarray(f2))
        with pytest.raises(ValueError, match="frame1 lies on cuda:1, the device is cuda:0"):
            ctx.compute(InterfaceOnly(a1), cupy.asarray(f2))
        with pytest.raises(ValueError, match="frame2 lies on cuda:1, the device is cuda:0"):
            ctx.compute_both(cupy.asarray(f1), a1)


def test_host_memory_behind_an_interface_is_refused(cuda, translation):
    f1, f2 = translation.frames[:2]
    with fp.Context("hs", "cuda") as ctx:
        with pytest.raises(ValueError, match="frame1 lies in host memory"):
            ctx.compute(Described(f1), f2)


# ---- everywhere: the interfaces' checks --------------------------------------------


class Described:
    """A __cuda_array_interface__ describing a numpy array's memory (never
    read: every test here is refused before the library reads a frame)."""

    def __init__(self, a, typestr=None, shape=None, strides=None, stream=None):
        self.a = a
        self.__cuda_array_interface__ = {
            "shape": shape or a.shape, "typestr": typestr or a.dtype.str,
            "data": (a.ctypes.data, False), "version": 3, "strides": strides,
            "stream": stream}


def test_interface_checks_on_any_context():
    f = np.zeros((12, 16), np.float32)
    with fp.Context("hs", "cpu") as ctx:
        with pytest.raises(TypeError, match="frame1 has dtype float64: expected uint8 or "
                                            "float32"):
            ctx.compute(Described(np.zeros((12, 16))), f)
        with pytest.raises(ValueError, match=r"frame2 has shape \(12, 16, 2\)"):
            ctx.compute(f, Described(np.zeros((12, 16, 2), np.float32)))
        with pytest.raises(ValueError, match=r"frame1 is not in C order on the GPU \(strides "
                                             r"\(128, 8\) bytes\)"):
            ctx.compute(Described(f, shape=(12, 16), strides=(128, 8)), f)
        with pytest.raises(TypeError, match="stream 0"):
            ctx.compute(Described(f, stream=0), f)
        with pytest.raises(ValueError, match="frame1 is a GPU array: GPU arrays need a CUDA "
                                             "Context"):
            ctx.compute(Described(f), f)
        with pytest.raises(ValueError, match="out=\"device\": GPU arrays need a CUDA Context"):
            ctx.compute(f, f, out="device")
        with pytest.raises(ValueError, match="out has strides .* two planes"):
            ctx.compute(f, f, out=Described(np.zeros((12, 16, 2), np.float32)))
        with pytest.raises(TypeError, match="out must be None, \"host\", \"device\""):
            ctx.compute(f, f, out="gpu")
        with pytest.raises(TypeError, match="frame1 must be an array in a GPU's memory .* or "
                                            "a numpy array, not list"):
            ctx.compute([[0.0]], f)
        # the numpy path is untouched, out="host" included
        assert ctx.compute(f, f, out="host").shape == (12, 16, 2)


class Counted:
    """A __cuda_array_interface__ (a property, as CuPy's and Numba's are)
    that counts how often it is read."""

    def __init__(self, a):
        self.described, self.reads = Described(a), 0

    @property
    def __cuda_array_interface__(self):
        self.reads += 1
        return self.described.__cuda_array_interface__


def test_interfaces_asked_once_per_call():
    f = np.zeros((12, 16), np.float32)
    with fp.Context("hs", "cpu") as ctx:
        for call in (ctx.compute, ctx.compute_both):
            x = Counted(f)
            with pytest.raises(ValueError, match="frame1 is a GPU array: GPU arrays need a CUDA "
                                                 "Context"):
                call(x, f)
            assert x.reads == 1
        x = Counted(np.zeros((12, 16, 2), np.float32))
        with pytest.raises(ValueError, match="out has strides .* two planes"):
            ctx.compute(f, f, out=x)
        assert x.reads == 1
        x = Counted(f)
        with pytest.raises(ValueError, match="frame is a GPU array: GPU arrays need a CUDA "
                                             "Context"):
            ctx.next(x)
        assert x.reads == 1


def test_compute_both_interface_checks_on_any_context():
    f = np.zeros((12, 16), np.float32)
    with fp.Context("hs", "cpu") as ctx:
        with pytest.raises(TypeError, match="frame2 has dtype float64: expected uint8 or "
                                            "float32"):
            ctx.compute_both(f, Described(np.zeros((12, 16))))
        with pytest.raises(ValueError, match=r"frame1 is not in C order on the GPU"):
            ctx.compute_both(Described(f, shape=(12, 16), strides=(128, 8)), f)
        with pytest.raises(ValueError, match="frame2 is a GPU array: GPU arrays need a CUDA "
                                             "Context"):
            ctx.compute_both(f, Described(f))
        with pytest.raises(TypeError, match="frame1 must be an array in a GPU's memory .* or "
                                            "a numpy array, not list"):
            ctx.compute_both([[0.0]], f)
        # numpy frames give numpy arrays, the mask bool
        r = ctx.compute_both(f, f)
        assert all(isinstance(v, np.ndarray) for v in r.values())
        assert r["occlusion"].dtype == np.bool_ and r["confidence"].dtype == np.float32


class CpuDlpack:
    """Claims a CUDA device but hands over a numpy array's CPU tensor."""

    def __init__(self, a):
        self.a, self.streams, self.device_asked = a, [], 0

    def __dlpack_device__(self):
        self.device_asked += 1
        return (2, 0)

    def __dlpack__(self, stream=None):
        self.streams.append(stream)
        return self.a.__dlpack__()


def test_dlpack_tensor_checked_and_released():
    a = np.zeros((12, 16), np.float32)
    if not hasattr(a, "__dlpack__"):
        pytest.skip(f"numpy {np.__version__} has no __dlpack__")
    x = CpuDlpack(a)
    refs = sys.getrefcount(a)
    with fp.Context("hs", "cpu") as ctx:
        with pytest.raises(ValueError, match="gave a tensor of DLPack device type 1, not a "
                                             "CUDA device"):
            ctx.compute(x, a)
    assert x.streams == [1] and x.device_asked == 1  # each interface asked once
    # the capsule's tensor was deleted: numpy holds no reference for it any more
    assert sys.getrefcount(a) == refs
