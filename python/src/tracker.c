/* tracker.c -- flowplatform.Tracker: KLT feature tracking (flow/track.h),
 * as flow-track runs it.  One tracker per sequence: the first frame
 * selects features, each later frame follows them (and, with replace,
 * selects new ones where features were lost).  The library's tracker is
 * made for the size of the first frame; frames go through with the GIL
 * released, `busy` keeping a second thread out meanwhile. */
#include "ext.h"

#include <string.h>

typedef struct fp_tracker {
    PyObject_HEAD
    flow_device *device;
    flow_tracker *tracker; /* made at the first frame */
    flow_track_params params;
    int busy, closed;
} fp_tracker;

static void close_tracker(fp_tracker *self)
{
    flow_tracker_destroy(self->tracker);
    self->tracker = NULL;
    if (self->device)
        flow_device_close(self->device);
    self->device = NULL;
    self->closed = 1;
}

static int usable(const fp_tracker *self)
{
    if (self->busy) {
        PyErr_SetString(PyExc_RuntimeError, "the Tracker is tracking in another thread");
        return -1;
    }
    if (self->closed || !self->device) {
        PyErr_SetString(PyExc_ValueError, "the Tracker is closed");
        return -1;
    }
    return 0;
}

static int tracker_init(fp_tracker *self, PyObject *args, PyObject *kw)
{
    static char *keywords[] = {"device", "features", "quality", "min_distance", "block",
                               "harris", "harris_k", "window", "levels", "iterations",
                               "epsilon", "affine", "min_eigen", "max_error", "fb_check",
                               "replace", NULL};
    if (self->busy) {
        PyErr_SetString(PyExc_RuntimeError, "the Tracker is tracking in another thread");
        return -1;
    }
    const char *spec = "auto";
    flow_track_params p;
    flow_track_defaults(&p);
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|s$iddipdiiidpddpp:Tracker", keywords, &spec,
                                     &p.features, &p.quality, &p.min_distance, &p.block,
                                     &p.harris, &p.harris_k, &p.window, &p.levels,
                                     &p.iterations, &p.epsilon, &p.affine, &p.min_eigen,
                                     &p.max_error, &p.fb_check, &p.replace))
        return -1;
    close_tracker(self);
    if (flow_track_params_check(&p) != FLOW_OK) {
        fp_raise_as(fp_parameter_error, FLOW_ERR_INVALID);
        return -1;
    }
    self->params = p;
    flow_status s;
    Py_BEGIN_ALLOW_THREADS
    s = flow_device_open(spec, &self->device);
    Py_END_ALLOW_THREADS
    if (s != FLOW_OK) {
        self->device = NULL;
        fp_raise_as(s == FLOW_ERR_INVALID ? fp_parameter_error : fp_error, s);
        return -1;
    }
    self->closed = 0;
    return 0;
}

static void tracker_dealloc(fp_tracker *self)
{
    close_tracker(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* The points as a dict of arrays: id (int64), x, y, error (float32), state
 * (int8: TRACKED, LOST or NEW). */
static PyObject *points_dict(const flow_track_point *pt, int n)
{
    npy_intp dims[1] = {n};
    PyObject *id = PyArray_SimpleNew(1, dims, NPY_INT64);
    PyObject *x = PyArray_SimpleNew(1, dims, NPY_FLOAT32);
    PyObject *y = PyArray_SimpleNew(1, dims, NPY_FLOAT32);
    PyObject *state = PyArray_SimpleNew(1, dims, NPY_INT8);
    PyObject *error = PyArray_SimpleNew(1, dims, NPY_FLOAT32);
    if (!id || !x || !y || !state || !error) {
        Py_XDECREF(id), Py_XDECREF(x), Py_XDECREF(y), Py_XDECREF(state), Py_XDECREF(error);
        return NULL;
    }
    for (int i = 0; i < n; i++) {
        ((npy_int64 *)PyArray_DATA((PyArrayObject *)id))[i] = pt[i].id;
        ((float *)PyArray_DATA((PyArrayObject *)x))[i] = pt[i].x;
        ((float *)PyArray_DATA((PyArrayObject *)y))[i] = pt[i].y;
        ((npy_int8 *)PyArray_DATA((PyArrayObject *)state))[i] = (npy_int8)pt[i].state;
        ((float *)PyArray_DATA((PyArrayObject *)error))[i] = pt[i].error;
    }
    return Py_BuildValue("{s:N, s:N, s:N, s:N, s:N}", "id", id, "x", x, "y", y, "state", state,
                         "error", error);
}

static PyObject *tracker_next(fp_tracker *self, PyObject *args)
{
    PyObject *frame_obj;
    if (!PyArg_ParseTuple(args, "O:next", &frame_obj) || usable(self) < 0)
        return NULL;
    flow_image frame;
    if (fp_image_from_array(frame_obj, "frame", &frame) < 0)
        return NULL;
    self->busy = 1;
    flow_status s = FLOW_OK;
    Py_BEGIN_ALLOW_THREADS
    if (!self->tracker)
        s = flow_tracker_create(self->device, frame.width, frame.height, &self->params,
                                &self->tracker);
    if (s == FLOW_OK)
        s = flow_tracker_next(self->tracker, &frame);
    Py_END_ALLOW_THREADS
    self->busy = 0;
    flow_image_free(&frame);
    if (s != FLOW_OK) {
        if (s == FLOW_ERR_SIZE || s == FLOW_ERR_INVALID)
            return fp_raise_message(PyExc_ValueError, s,
                                    PyUnicode_FromString(flow_last_error()));
        return fp_raise(s);
    }
    int n = 0;
    const flow_track_point *pt = flow_tracker_points(self->tracker, &n);
    return points_dict(pt, n);
}

static PyObject *tracker_close(fp_tracker *self, PyObject *noargs)
{
    if (self->busy) {
        PyErr_SetString(PyExc_RuntimeError, "the Tracker is tracking in another thread");
        return NULL;
    }
    close_tracker(self);
    Py_RETURN_NONE;
}

static PyObject *tracker_enter(fp_tracker *self, PyObject *noargs)
{
    if (usable(self) < 0)
        return NULL;
    Py_INCREF(self);
    return (PyObject *)self;
}

static PyObject *tracker_exit(fp_tracker *self, PyObject *args)
{
    return tracker_close(self, NULL);
}

static PyObject *get_alive(fp_tracker *self, void *closure)
{
    if (usable(self) < 0)
        return NULL;
    return PyLong_FromLong(self->tracker ? flow_tracker_alive(self->tracker) : 0);
}

static PyObject *get_losses(fp_tracker *self, void *closure)
{
    if (usable(self) < 0)
        return NULL;
    flow_track_losses l = {0, 0, 0, 0};
    if (self->tracker)
        l = flow_tracker_losses(self->tracker);
    return Py_BuildValue("{s:i, s:i, s:i, s:i}", "texture", l.texture, "outside", l.outside,
                         "residual", l.residual, "fb", l.fb);
}

static PyObject *get_device(fp_tracker *self, void *closure)
{
    if (usable(self) < 0)
        return NULL;
    return PyUnicode_FromString(flow_device_name(self->device));
}

static PyObject *get_closed(fp_tracker *self, void *closure)
{
    return PyBool_FromLong(self->closed || !self->device);
}

static PyMethodDef methods[] = {
    {"next", (PyCFunction)tracker_next, METH_VARARGS,
     "next(frame) -> dict\n\n"
     "Tracks into the next frame (uint8 or float32, H x W or H x W x 3; every\n"
     "frame of the first one's size): the first call selects features, later\n"
     "ones follow them.  Returns the rows of this frame as arrays of one\n"
     "length: id (int64, never reused), x, y (float32 pixels, (0, 0) the\n"
     "centre of the top-left pixel), state (int8: TRACK_TRACKED, TRACK_LOST or\n"
     "TRACK_NEW) and error (float32: the residual, grey levels; NaN for a\n"
     "feature lost without an attempt), as flow-track's tracks file has them."},
    {"close", (PyCFunction)tracker_close, METH_NOARGS,
     "close()\n\nFrees the tracker and its device (also at the end of a with block)."},
    {"__enter__", (PyCFunction)tracker_enter, METH_NOARGS, NULL},
    {"__exit__", (PyCFunction)tracker_exit, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef getset[] = {
    {"alive", (getter)get_alive, NULL, "Features alive after the last frame (tracked + new).",
     NULL},
    {"losses", (getter)get_losses, NULL,
     "The losses of the last frame by reason: texture, outside, residual, fb.", NULL},
    {"device", (getter)get_device, NULL, "The device's name.", NULL},
    {"closed", (getter)get_closed, NULL, "Whether close() was called.", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

PyTypeObject fp_tracker_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "flowplatform.Tracker",
    .tp_doc = "Tracker(device='auto', *, features=1000, quality=0.01, min_distance=10,\n"
              "        block=3, harris=False, harris_k=0.04, window=21, levels=3,\n"
              "        iterations=30, epsilon=0.01, affine=True, min_eigen=0.1,\n"
              "        max_error=0, fb_check=0, replace=True)\n\n"
              "KLT feature tracking (Shi-Tomasi selection, pyramidal Lucas-Kanade), as\n"
              "flow-track runs it, with its options as keywords (flow-track --help says\n"
              "what each does).  Values out of range raise ParameterError.",
    .tp_basicsize = sizeof(fp_tracker),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)tracker_init,
    .tp_dealloc = (destructor)tracker_dealloc,
    .tp_methods = methods,
    .tp_getset = getset,
};
