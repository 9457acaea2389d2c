/* gpu_arrays.c -- arrays in a GPU's memory handed in by the caller (CuPy,
 * PyTorch, Numba, flowplatform's own DeviceArray), read through one of the
 * two interfaces they expose:
 *   - DLPack: __dlpack_device__() -> (type, id) and __dlpack__(stream=1),
 *     which hands over a capsule holding the tensor, the producer's work
 *     ordered before CUDA's legacy default stream (1), which the context
 *     is then made to wait for;
 *   - __cuda_array_interface__ (version 2 or 3): a dict of shape, typestr,
 *     data = (address, read-only), strides in bytes (None: C order) and,
 *     in version 3, the stream the producer's work is queued on (none, or
 *     None: the caller has synchronised).
 * DLPack is preferred where an array has both: its handshake orders the
 * producer's work whatever stream it is on, where PyTorch's interface is
 * of version 2 and names no stream.
 * Each object's interfaces are asked once per call (fp_gpu_array_get).
 * Nothing here touches the GPU: the checks of where the memory lies and
 * the waits are the library's (context.c). */
#include "ext.h"
#include "dlpack.h"

#include <stdlib.h>
#include <string.h>

/* The stream __dlpack__ is asked to order the producer's work before:
 * CUDA's legacy default stream. */
#define LEGACY_STREAM 1

/* The DLPack device (type, id) of obj, or type 0 when obj has no
 * __dlpack_device__.  -1 with an exception. */
static int dlpack_device(PyObject *obj, int *type, int *id)
{
    *type = 0, *id = -1;
    if (!PyObject_HasAttrString(obj, "__dlpack_device__"))
        return 0;
    PyObject *dev = PyObject_CallMethod(obj, "__dlpack_device__", NULL);
    if (!dev)
        return -1;
    const int ok = PyArg_ParseTuple(dev, "ii", type, id);
    Py_DECREF(dev);
    if (!ok) {
        PyErr_Format(PyExc_TypeError, "%s.__dlpack_device__() did not return (type, id)",
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    return 0;
}

/* The dtype's name as numpy says it ("uint8", "float64") from its kind
 * (numpy's letters: u, i, f, c, b) and size, else the interface's own
 * text (`other`). */
static void dtype_name(fp_gpu_array *a, char kind, int bytes, const char *other)
{
    const char *family = kind == 'u' ? "uint" : kind == 'i' ? "int" : kind == 'f' ? "float"
                         : kind == 'c' ? "complex" : NULL;
    if (kind == 'b' && bytes == 1)
        snprintf(a->dtype, sizeof a->dtype, "bool");
    else if (family && bytes > 0)
        snprintf(a->dtype, sizeof a->dtype, "%s%d", family, 8 * bytes);
    else
        snprintf(a->dtype, sizeof a->dtype, "%s", other);
}

static int bad_interface(PyObject *obj, const char *what, const char *why)
{
    PyErr_Format(PyExc_TypeError, "%s (%s): its __cuda_array_interface__ %s", what,
                 Py_TYPE(obj)->tp_name, why);
    return -1;
}

/* A tuple of at most FP_GPU_NDIM ints into v; the count, or -1. */
static int int_tuple(PyObject *t, Py_ssize_t *v)
{
    if (!PyTuple_Check(t) || PyTuple_GET_SIZE(t) > FP_GPU_NDIM)
        return -1;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(t); i++) {
        v[i] = PyLong_AsSsize_t(PyTuple_GET_ITEM(t, i));
        if (v[i] == -1 && PyErr_Occurred()) {
            PyErr_Clear();
            return -1;
        }
    }
    return (int)PyTuple_GET_SIZE(t);
}

/* d: obj's __cuda_array_interface__. */
static int from_interface(PyObject *obj, const char *what, PyObject *d, fp_gpu_array *a)
{
    if (!PyDict_Check(d))
        return bad_interface(obj, what, "is not a dict");
    PyObject *shape = PyDict_GetItemString(d, "shape");
    PyObject *typestr = PyDict_GetItemString(d, "typestr");
    PyObject *data = PyDict_GetItemString(d, "data");
    PyObject *strides = PyDict_GetItemString(d, "strides");
    PyObject *mask = PyDict_GetItemString(d, "mask");
    PyObject *stream = PyDict_GetItemString(d, "stream");
    const char *ts = typestr && PyUnicode_Check(typestr) ? PyUnicode_AsUTF8(typestr) : NULL;
    if (!shape || (a->ndim = int_tuple(shape, a->shape)) < 0 || !ts || strlen(ts) < 3
        || !data || !PyTuple_Check(data) || PyTuple_GET_SIZE(data) != 2) {
        return bad_interface(obj, what,
                             "lacks a valid shape (at most 8 dimensions), typestr or data");
    }
    if (mask && mask != Py_None) {
        return bad_interface(obj, what, "has a mask: masked arrays are not taken");
    }
    const size_t address = PyLong_AsSize_t(PyTuple_GET_ITEM(data, 0));
    if (address == (size_t)-1 && PyErr_Occurred())
        return -1;
    a->data = (char *)address;
    a->readonly = PyObject_IsTrue(PyTuple_GET_ITEM(data, 1)) == 1;
    /* "<f4", "|u1": byte order, kind, bytes; one byte needs no order */
    const char order = ts[0], kind = ts[1];
    const int bytes = atoi(ts + 2);
    const int native = order == '|' || order == '=' || order == (PY_LITTLE_ENDIAN ? '<' : '>');
    dtype_name(a, native ? kind : '?', bytes, ts);
    const int itemsize = bytes > 0 ? bytes : 1;
    if (!strides || strides == Py_None) {
        Py_ssize_t step = itemsize;
        for (int i = a->ndim - 1; i >= 0; i--) {
            a->strides[i] = step;
            step *= a->shape[i];
        }
    } else if (int_tuple(strides, a->strides) != a->ndim) {
        return bad_interface(obj, what, "has strides that do not match its shape");
    }
    if (stream && stream != Py_None) {
        const long long s = PyLong_AsLongLong(stream);
        if (s == -1 && PyErr_Occurred())
            return -1;
        if (s == 0) /* the interface's version 3 forbids it: ambiguous */
            return bad_interface(obj, what, "names stream 0, which version 3 of the interface "
                                            "forbids");
        a->has_stream = 1;
        a->stream = (uintptr_t)s;
    }
    return 0;
}

static int from_dlpack(PyObject *obj, const char *what, int type, fp_gpu_array *a)
{
    if (type == FP_DL_CUDA_HOST) {
        PyErr_Format(PyExc_ValueError, "%s lies in page-locked host memory (DLPack kDLCUDAHost): "
                                       "give a numpy array or an array on the GPU", what);
        return -1;
    }
    PyObject *kw = Py_BuildValue("{si}", "stream", LEGACY_STREAM);
    PyObject *method = kw ? PyObject_GetAttrString(obj, "__dlpack__") : NULL;
    PyObject *empty = method ? PyTuple_New(0) : NULL;
    PyObject *cap = empty ? PyObject_Call(method, empty, kw) : NULL;
    Py_XDECREF(kw), Py_XDECREF(method), Py_XDECREF(empty);
    if (!cap)
        return -1;
    fp_dl_managed *m = PyCapsule_IsValid(cap, "dltensor") ? PyCapsule_GetPointer(cap, "dltensor")
                                                          : NULL;
    if (!m) {
        Py_DECREF(cap);
        PyErr_Format(PyExc_TypeError, "%s (%s): __dlpack__() did not return a \"dltensor\" "
                                      "capsule", what, Py_TYPE(obj)->tp_name);
        return -1;
    }
    /* the tensor is ours now: its deleter runs at release, not the capsule's */
    if (PyCapsule_SetName(cap, "used_dltensor") < 0) {
        Py_DECREF(cap);
        return -1;
    }
    a->capsule = cap;
    a->managed = m;
    const fp_dl_tensor *t = &m->dl_tensor;
    if (t->ndim < 0 || t->ndim > FP_GPU_NDIM) {
        PyErr_Format(PyExc_ValueError, "%s has %d dimensions", what, (int)t->ndim);
        return -1;
    }
    if (t->device.device_type != FP_DL_CUDA && t->device.device_type != FP_DL_CUDA_MANAGED) {
        PyErr_Format(PyExc_ValueError, "%s (%s): __dlpack__() gave a tensor of DLPack device "
                                       "type %d, not a CUDA device",
                     what, Py_TYPE(obj)->tp_name, (int)t->device.device_type);
        return -1;
    }
    a->ndim = t->ndim;
    a->data = (char *)t->data + t->byte_offset;
    const int bytes = t->dtype.bits / 8;
    char other[24];
    snprintf(other, sizeof other, "code%d:%d", t->dtype.code, t->dtype.bits);
    /* by DLDataTypeCode: int, uint, float, opaque, bfloat, complex, bool */
    static const char kinds[] = "iuf??cb";
    const int code = t->dtype.code;
    dtype_name(a, t->dtype.lanes != 1 || code > 6 ? '?' : kinds[code], bytes, other);
    Py_ssize_t step = bytes > 0 ? bytes : 1;
    for (int i = a->ndim - 1; i >= 0; i--) {
        a->shape[i] = (Py_ssize_t)t->shape[i];
        a->strides[i] = t->strides ? (Py_ssize_t)t->strides[i] * (bytes > 0 ? bytes : 1) : step;
        step *= a->shape[i];
    }
    a->has_stream = 1; /* ordered before the legacy default stream */
    a->stream = LEGACY_STREAM;
    return 0;
}

int fp_gpu_array_get(PyObject *obj, const char *what, fp_gpu_array *a)
{
    memset(a, 0, sizeof *a);
    if (PyArray_Check(obj))
        return 0;
    int type, id, rc;
    if (dlpack_device(obj, &type, &id) < 0)
        return -1;
    const int cuda = type == FP_DL_CUDA || type == FP_DL_CUDA_HOST || type == FP_DL_CUDA_MANAGED;
    if (cuda && PyObject_HasAttrString(obj, "__dlpack__")) {
        rc = from_dlpack(obj, what, type, a);
    } else {
        PyObject *d = PyObject_GetAttrString(obj, "__cuda_array_interface__");
        if (!d) {
            if (!PyErr_ExceptionMatches(PyExc_AttributeError))
                return -1;
            PyErr_Clear();
            if (!cuda)
                return 0;
            PyErr_Format(PyExc_TypeError, "%s (%s) names a CUDA device but has neither "
                                          "__dlpack__ nor __cuda_array_interface__",
                         what, Py_TYPE(obj)->tp_name);
            return -1;
        }
        rc = from_interface(obj, what, d, a);
        Py_DECREF(d);
    }
    if (rc < 0) {
        fp_gpu_array_release(a);
        return -1;
    }
    return 1;
}

void fp_gpu_array_release(fp_gpu_array *a)
{
    fp_dl_managed *m = (fp_dl_managed *)a->managed;
    a->managed = NULL;
    if (m && m->deleter)
        m->deleter(m);
    Py_CLEAR(a->capsule);
}

/* A shape or strides as Python prints them: "(480, 640, 3)". */
static PyObject *dims_text(const Py_ssize_t *v, int n)
{
    PyObject *t = PyTuple_New(n);
    for (int i = 0; t && i < n; i++)
        PyTuple_SET_ITEM(t, i, PyLong_FromSsize_t(v[i]));
    PyObject *s = t ? PyObject_Str(t) : NULL;
    Py_XDECREF(t);
    return s;
}

static int shape_error(const fp_gpu_array *a, const char *what, const char *expected)
{
    PyObject *shape = dims_text(a->shape, a->ndim);
    if (shape) {
        PyErr_Format(PyExc_ValueError, "%s has shape %U: expected %s", what, shape, expected);
        Py_DECREF(shape);
    }
    return -1;
}

/* Whether the elements lie in C order, rows packed (a dimension of one
 * element may have any stride). */
static int c_order(const fp_gpu_array *a, int itemsize)
{
    Py_ssize_t step = itemsize;
    for (int i = a->ndim - 1; i >= 0; i--) {
        if (a->shape[i] != 1 && a->strides[i] != step)
            return 0;
        step *= a->shape[i];
    }
    return 1;
}

int fp_gpu_frame_check(const fp_gpu_array *a, const char *what, int *w, int *h, int *c,
                       int *bytes)
{
    *bytes = strcmp(a->dtype, "uint8") == 0;
    if (!*bytes && strcmp(a->dtype, "float32") != 0) {
        PyErr_Format(PyExc_TypeError, "%s has dtype %s: expected uint8 or float32 (values "
                                      "0..255)", what, a->dtype);
        return -1;
    }
    *c = a->ndim == 2 ? 1 : a->ndim == 3 ? (int)a->shape[2] : 0;
    if (*c != 1 && *c != 3)
        return shape_error(a, what, "H x W or H x W x 1 (gray), or H x W x 3 (R, G, B)");
    if (a->shape[0] < 1 || a->shape[1] < 1 || a->shape[0] > FLOW_IMAGE_MAX_PIXELS / a->shape[1])
        return shape_error(a, what, "a frame of 1 to 2^28 pixels");
    if (!c_order(a, *bytes ? 1 : 4)) {
        PyObject *s = dims_text(a->strides, a->ndim);
        if (s) {
            PyErr_Format(PyExc_ValueError, "%s is not in C order on the GPU (strides %U bytes): "
                                           "GPU frames are read in place, never copied; pass "
                                           "cupy.ascontiguousarray(a) or tensor.contiguous()",
                         what, s);
            Py_DECREF(s);
        }
        return -1;
    }
    *h = (int)a->shape[0];
    *w = (int)a->shape[1];
    return 0;
}

int fp_gpu_flow_check(const fp_gpu_array *a, const char *what, int w, int h, float **u,
                      float **v)
{
    if (strcmp(a->dtype, "float32") != 0) {
        PyErr_Format(PyExc_TypeError, "%s has dtype %s: expected float32", what, a->dtype);
        return -1;
    }
    if (a->ndim != 3 || a->shape[0] != h || a->shape[1] != w || a->shape[2] != 2) {
        char expected[64];
        snprintf(expected, sizeof expected, "(%d, %d, 2), the frames' H x W and (u, v)", h, w);
        return shape_error(a, what, expected);
    }
    const Py_ssize_t plane = (Py_ssize_t)w * h * 4;
    const int rows_packed = (h == 1 || a->strides[0] == (Py_ssize_t)w * 4)
                            && (w == 1 || a->strides[1] == 4);
    if (!rows_packed || (a->strides[2] < plane && a->strides[2] > -plane)) {
        PyObject *s = dims_text(a->strides, a->ndim);
        if (s) {
            PyErr_Format(PyExc_ValueError,
                         "%s has strides %U bytes: expected u and v as two planes, (%zd, 4, "
                         "%zd) as flowplatform's DeviceArray and torch.empty(2, H, W)"
                         ".permute(1, 2, 0) lie", what, s, (Py_ssize_t)w * 4, plane);
            Py_DECREF(s);
        }
        return -1;
    }
    if (a->readonly) {
        PyErr_Format(PyExc_ValueError, "%s is read-only", what);
        return -1;
    }
    *u = (float *)a->data;
    *v = (float *)(a->data + a->strides[2]);
    return 0;
}
