/* arrays.c -- numpy arrays to and from libflow's images and flow fields.
 *
 * numpy holds a colour frame as H x W x 3 with the channels of a pixel
 * together, libflow's float images are planar (channel after channel) and
 * its flow fields two planes u and v; a frame may come with any strides (a
 * slice, a transposed view).  The copies here walk the array's own strides,
 * so no intermediate contiguous copy is made, and they call nothing of
 * Python: the callers run them with the GIL released. */
#include "ext.h"

#include <math.h>
#include <string.h>

/* The largest frame accepted, as for image files. */
#define MAX_PIXELS FLOW_IMAGE_MAX_PIXELS

/* Checks the two leading dimensions as a frame size, naming `what`. */
static int size_ok(PyArrayObject *a, const char *what)
{
    const npy_intp h = PyArray_DIM(a, 0), w = PyArray_DIM(a, 1);
    if (h < 1 || w < 1) {
        PyErr_Format(PyExc_ValueError, "%s is empty (%zd x %zd)", what, (Py_ssize_t)h,
                     (Py_ssize_t)w);
        return 0;
    }
    if (h > MAX_PIXELS / w) {
        PyErr_Format(PyExc_ValueError, "%s is %zd x %zd: more than 2^28 pixels", what,
                     (Py_ssize_t)h, (Py_ssize_t)w);
        return 0;
    }
    return 1;
}

/* A description of an array's shape for messages: "(4, 5, 2)". */
static PyObject *shape_of(PyArrayObject *a)
{
    PyObject *shape = PyObject_GetAttrString((PyObject *)a, "shape");
    PyObject *text = shape ? PyObject_Str(shape) : NULL;
    Py_XDECREF(shape);
    return text;
}

static int bad_shape(PyArrayObject *a, const char *what, const char *expected)
{
    PyObject *shape = shape_of(a);
    if (shape) {
        PyErr_Format(PyExc_ValueError, "%s has shape %U: expected %s", what, shape, expected);
        Py_DECREF(shape);
    }
    return -1;
}

static int not_array(PyObject *obj, const char *what)
{
    PyErr_Format(PyExc_TypeError, "%s must be a numpy array, not %s", what, Py_TYPE(obj)->tp_name);
    return -1;
}

/* a as an aligned array in the machine's byte order of dtype `type`
 * (a copy only where needed, cast when `cast`), or NULL with an exception. */
static PyArrayObject *native(PyArrayObject *a, int type, int cast)
{
    PyArray_Descr *d = PyArray_DescrFromType(type); /* stolen below */
    const int flags = NPY_ARRAY_ALIGNED | NPY_ARRAY_NOTSWAPPED | (cast ? NPY_ARRAY_FORCECAST : 0);
    return (PyArrayObject *)PyArray_FromArray(a, d, flags);
}

int fp_frame_get(PyObject *obj, const char *what, fp_frame *f)
{
    memset(f, 0, sizeof *f);
    if (!PyArray_Check(obj))
        return not_array(obj, what);
    PyArrayObject *a = (PyArrayObject *)obj;
    const int type = PyArray_TYPE(a);
    if (type != NPY_UINT8 && type != NPY_FLOAT32) {
        PyErr_Format(PyExc_TypeError,
                     "%s has dtype %S: expected uint8 or float32 (values 0..255; convert "
                     "with .astype(numpy.float32))",
                     what, (PyObject *)PyArray_DESCR(a));
        return -1;
    }
    const int nd = PyArray_NDIM(a);
    const int channels = nd == 2 ? 1 : nd == 3 ? (int)PyArray_DIM(a, 2) : 0;
    if (channels != 1 && channels != 3)
        return bad_shape(a, what, "H x W or H x W x 1 (gray), or H x W x 3 (R, G, B)");
    if (!size_ok(a, what))
        return -1;
    f->array = native(a, type, 0);
    if (!f->array)
        return -1;
    f->height = (int)PyArray_DIM(a, 0);
    f->width = (int)PyArray_DIM(a, 1);
    f->channels = channels;
    f->bytes = type == NPY_UINT8;
    return 0;
}

void fp_frame_release(fp_frame *f)
{
    Py_CLEAR(f->array);
}

int fp_frame_packed8(const fp_frame *f)
{
    return f->bytes && PyArray_IS_C_CONTIGUOUS(f->array);
}

/* The address of sample c of pixel (x, y) (c is 0 in a 2-D array). */
static const char *sample(const fp_frame *f, int x, int y, int c)
{
    const npy_intp *s = PyArray_STRIDES(f->array);
    const char *p = (const char *)PyArray_DATA(f->array) + y * s[0] + x * s[1];
    return PyArray_NDIM(f->array) == 2 ? p : p + c * s[2];
}

void fp_frame_to_float(const fp_frame *f, flow_image *img)
{
    const size_t plane = (size_t)f->width * f->height;
    for (int c = 0; c < f->channels; c++)
        for (int y = 0; y < f->height; y++) {
            float *row = img->data + c * plane + (size_t)y * f->width;
            for (int x = 0; x < f->width; x++) {
                const char *p = sample(f, x, y, c);
                row[x] = f->bytes ? (float)*(const unsigned char *)p : *(const float *)p;
            }
        }
}

void fp_frame_to_bytes(const fp_frame *f, flow_image8 *img)
{
    for (int y = 0; y < f->height; y++)
        for (int x = 0; x < f->width; x++)
            for (int c = 0; c < f->channels; c++)
                img->data[((size_t)y * f->width + x) * f->channels + c] =
                    *(const unsigned char *)sample(f, x, y, c);
}

int fp_field_from_array(PyObject *obj, const char *what, flow_field *f)
{
    if (!PyArray_Check(obj))
        return not_array(obj, what);
    PyArrayObject *a = (PyArrayObject *)obj;
    if (!PyArray_ISFLOAT(a)) {
        PyErr_Format(PyExc_TypeError, "%s has dtype %S: expected float32 or float64", what,
                     (PyObject *)PyArray_DESCR(a));
        return -1;
    }
    if (PyArray_NDIM(a) != 3 || PyArray_DIM(a, 2) != 2)
        return bad_shape(a, what, "H x W x 2 (u, v)");
    if (!size_ok(a, what))
        return -1;
    PyArrayObject *c = (PyArrayObject *)PyArray_FromArray(
        a, PyArray_DescrFromType(NPY_FLOAT32), NPY_ARRAY_IN_ARRAY | NPY_ARRAY_FORCECAST);
    if (!c)
        return -1;
    const int h = (int)PyArray_DIM(c, 0), w = (int)PyArray_DIM(c, 1);
    const flow_status s = flow_field_alloc(f, w, h);
    if (s != FLOW_OK) {
        Py_DECREF(c);
        fp_raise(s);
        return -1;
    }
    const float *uv = PyArray_DATA(c);
    for (size_t i = 0; i < (size_t)w * h; i++) {
        f->u[i] = uv[2 * i];
        f->v[i] = uv[2 * i + 1];
    }
    Py_DECREF(c);
    return 0;
}

PyObject *fp_field_to_array(const flow_field *f)
{
    npy_intp dims[3] = {f->height, f->width, 2};
    PyObject *out = PyArray_SimpleNew(3, dims, NPY_FLOAT32);
    if (!out)
        return NULL;
    float *uv = PyArray_DATA((PyArrayObject *)out);
    for (size_t i = 0; i < (size_t)f->width * f->height; i++) {
        uv[2 * i] = f->u[i];
        uv[2 * i + 1] = f->v[i];
    }
    return out;
}

PyObject *fp_image_to_array(const flow_image *img, int as_bytes)
{
    npy_intp dims[3] = {img->height, img->width, img->channels};
    PyObject *out =
        PyArray_SimpleNew(img->channels == 1 ? 2 : 3, dims, as_bytes ? NPY_UINT8 : NPY_FLOAT32);
    if (!out)
        return NULL;
    const size_t plane = (size_t)img->width * img->height;
    const int nc = img->channels;
    unsigned char *b = PyArray_DATA((PyArrayObject *)out);
    float *fl = PyArray_DATA((PyArrayObject *)out);
    for (int c = 0; c < nc; c++)
        for (size_t i = 0; i < plane; i++) {
            const float v = img->data[c * plane + i];
            if (as_bytes)
                b[i * nc + c] = (unsigned char)(v <= 0.0f ? 0 : v >= 255.0f ? 255 : lrintf(v));
            else
                fl[i * nc + c] = v;
        }
    return out;
}

int fp_mask_from_array(PyObject *obj, const char *what, int width, int height,
                       unsigned char **mask)
{
    if (!PyArray_Check(obj))
        return not_array(obj, what);
    PyArrayObject *a = (PyArrayObject *)obj;
    if (!PyArray_ISBOOL(a) && !PyArray_ISINTEGER(a)) {
        PyErr_Format(PyExc_TypeError, "%s has dtype %S: expected bool or an integer type", what,
                     (PyObject *)PyArray_DESCR(a));
        return -1;
    }
    if (PyArray_NDIM(a) != 2 || PyArray_DIM(a, 0) != height || PyArray_DIM(a, 1) != width) {
        char expected[64];
        snprintf(expected, sizeof expected, "(%d, %d), the flow's H x W", height, width);
        return bad_shape(a, what, expected);
    }
    /* a cast to bool is nonzero -> True, stored as the bytes 0 and 1 */
    PyArrayObject *c = (PyArrayObject *)PyArray_FromArray(a, PyArray_DescrFromType(NPY_BOOL),
                                                          NPY_ARRAY_CARRAY_RO | NPY_ARRAY_FORCECAST);
    if (!c)
        return -1;
    const size_t n = (size_t)width * height;
    *mask = PyMem_Malloc(n);
    if (!*mask) {
        Py_DECREF(c);
        PyErr_NoMemory();
        return -1;
    }
    memcpy(*mask, PyArray_DATA(c), n);
    Py_DECREF(c);
    return 0;
}
