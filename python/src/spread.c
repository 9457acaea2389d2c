/* spread.c -- flowplatform.Spread: the flows of a sequence (or of separate
 * pairs) computed on the devices of a list at once, through libflow's
 * flow_spread (flow/spread.h), and handed back in the order submitted.
 *
 * The devices open with the Spread; the flow_spread (a context per entry
 * of the list, a library thread each) is made for the size of the first
 * frame.  Each frame is copied into a host buffer of the Spread's own, by
 * frame number, enough for every frame the library may still read (two per
 * flow queued, when each is a pair of its own, and the kept frame), and
 * each flow computed into a field of its own (by pair number), so that the
 * caller's arrays are free when submit returns.
 * collect() waits with the GIL released. */
#include "ext.h"

#include <string.h>

#define FRAME_SLOTS(depth) (2 * (depth) + 1)

typedef struct fp_spread {
    PyObject_HEAD
    flow_device *devices[FLOW_SPREAD_DEVICES_MAX];
    int ndevices;
    flow_params *params;
    flow_spread *sp;             /* NULL until a frame gives the size */
    int width, height, channels; /* sp's frames */
    int depth;
    long frames, pairs;          /* submitted: frames, and flows */
    flow_image *frame;           /* FRAME_SLOTS(depth) buffers, by frame number */
    flow_image8 *bytes;
    flow_field *out;             /* depth fields, by pair number */
    int busy;                    /* a call runs with the GIL released */
} fp_spread;

static void drop_spread(fp_spread *self)
{
    flow_spread_destroy(self->sp);
    self->sp = NULL;
    for (int i = 0; self->frame && i < FRAME_SLOTS(self->depth); i++) {
        flow_image_free(&self->frame[i]);
        flow_image8_free(&self->bytes[i]);
    }
    for (int i = 0; self->out && i < self->depth; i++)
        flow_field_free(&self->out[i]);
    PyMem_RawFree(self->frame);
    PyMem_RawFree(self->bytes);
    PyMem_RawFree(self->out);
    self->frame = NULL, self->bytes = NULL, self->out = NULL;
    self->frames = self->pairs = 0;
}

static void close_all(fp_spread *self)
{
    drop_spread(self);
    flow_params_destroy(self->params);
    self->params = NULL;
    flow_devices_close(self->devices, self->ndevices);
    self->ndevices = 0;
}

static int usable(const fp_spread *self)
{
    if (!self->ndevices) {
        PyErr_SetString(PyExc_ValueError, "the Spread is closed");
        return -1;
    }
    if (self->busy) {
        PyErr_SetString(PyExc_RuntimeError,
                        "the Spread is in use by another thread (use one Spread per thread)");
        return -1;
    }
    return 0;
}

/* The flow_spread and its buffers for frames like f (on the first frame).
 * Runs without the GIL. */
static flow_status prepare(fp_spread *self, const fp_frame *f)
{
    if (self->sp)
        return FLOW_OK;
    const int depth = flow_spread_depth_of(self->ndevices);
    self->frame = PyMem_RawCalloc((size_t)FRAME_SLOTS(depth), sizeof *self->frame);
    self->bytes = PyMem_RawCalloc((size_t)FRAME_SLOTS(depth), sizeof *self->bytes);
    self->out = PyMem_RawCalloc((size_t)depth, sizeof *self->out);
    self->depth = depth;
    flow_status s = self->frame && self->bytes && self->out ? FLOW_OK : FLOW_ERR_NOMEM;
    for (int i = 0; s == FLOW_OK && i < depth; i++)
        s = flow_field_alloc(&self->out[i], f->width, f->height);
    if (s == FLOW_OK)
        s = flow_spread_create(self->devices, self->ndevices, f->width, f->height, f->channels,
                               self->params, &self->sp);
    if (s != FLOW_OK) {
        drop_spread(self);
        return s;
    }
    self->width = f->width, self->height = f->height, self->channels = f->channels;
    return FLOW_OK;
}

/* Frame f into the buffer of its number, then into the spread (out: the
 * field of the next pair, or NULL for a first frame).  Runs without the
 * GIL. */
static flow_status submit(fp_spread *self, const fp_frame *f, int pair)
{
    const long k = self->frames % FRAME_SLOTS(self->depth);
    flow_field *out = pair ? &self->out[self->pairs % self->depth] : NULL;
    flow_status s;
    if (f->bytes) {
        flow_image8 *img = &self->bytes[k];
        if (!img->data && (s = flow_image8_alloc(img, f->width, f->height, f->channels)))
            return s;
        fp_frame_to_bytes(f, img);
        s = flow_spread_submit8(self->sp, img, out);
    } else {
        flow_image *img = &self->frame[k];
        if (!img->data && (s = flow_image_alloc(img, f->width, f->height, f->channels)))
            return s;
        fp_frame_to_float(f, img);
        s = flow_spread_submit(self->sp, img, out);
    }
    if (s == FLOW_OK) {
        self->frames++;
        self->pairs += pair;
    }
    return s;
}

/* The checks before a frame goes in: the sequence's size, and room. */
static int acceptable(fp_spread *self, const fp_frame *f, const char *what, int pair)
{
    if (self->sp && (f->width != self->width || f->height != self->height
                     || f->channels != self->channels)) {
        PyErr_Format(PyExc_ValueError,
                     "%s is %d x %d with %d channel%s but the Spread's frames %d x %d with %d "
                     "channel%s", what, f->width, f->height, f->channels,
                     f->channels == 1 ? "" : "s", self->width, self->height, self->channels,
                     self->channels == 1 ? "" : "s");
        return -1;
    }
    if (pair && self->sp && flow_spread_queued(self->sp) == self->depth) {
        PyErr_Format(PyExc_RuntimeError, "%d flows queued already: collect() one first",
                     self->depth);
        return -1;
    }
    return 0;
}

static PyObject *sp_submit(fp_spread *self, PyObject *arg)
{
    if (usable(self) < 0)
        return NULL;
    fp_frame f;
    if (fp_frame_get(arg, "frame", &f) < 0)
        return NULL;
    if (acceptable(self, &f, "frame", self->frames > 0) < 0) {
        fp_frame_release(&f);
        return NULL;
    }
    flow_status s;
    self->busy = 1;
    Py_BEGIN_ALLOW_THREADS
    s = prepare(self, &f);
    if (s == FLOW_OK)
        s = submit(self, &f, self->frames > 0);
    Py_END_ALLOW_THREADS
    self->busy = 0;
    fp_frame_release(&f);
    if (s != FLOW_OK)
        return fp_raise(s);
    Py_RETURN_NONE;
}

static PyObject *sp_submit_pair(fp_spread *self, PyObject *args)
{
    PyObject *o1, *o2;
    if (!PyArg_ParseTuple(args, "OO:submit_pair", &o1, &o2) || usable(self) < 0)
        return NULL;
    fp_frame f1, f2;
    if (fp_frame_get(o1, "frame1", &f1) < 0)
        return NULL;
    if (fp_frame_get(o2, "frame2", &f2) < 0) {
        fp_frame_release(&f1);
        return NULL;
    }
    PyObject *result = NULL;
    if (f1.width != f2.width || f1.height != f2.height || f1.channels != f2.channels)
        PyErr_Format(PyExc_ValueError, "frame1 is %d x %d with %d channel%s but frame2 is %d x "
                     "%d with %d channel%s", f1.width, f1.height, f1.channels,
                     f1.channels == 1 ? "" : "s", f2.width, f2.height, f2.channels,
                     f2.channels == 1 ? "" : "s");
    else if (acceptable(self, &f1, "frame1", 1) == 0) {
        flow_status s;
        self->busy = 1;
        Py_BEGIN_ALLOW_THREADS
        s = prepare(self, &f1);
        if (s == FLOW_OK)
            s = submit(self, &f1, 0);
        if (s == FLOW_OK)
            s = submit(self, &f2, 1);
        Py_END_ALLOW_THREADS
        self->busy = 0;
        result = s == FLOW_OK ? Py_NewRef(Py_None) : fp_raise(s);
    }
    fp_frame_release(&f1);
    fp_frame_release(&f2);
    return result;
}

static PyObject *sp_collect(fp_spread *self, PyObject *noargs)
{
    if (usable(self) < 0)
        return NULL;
    if (!self->sp || flow_spread_queued(self->sp) == 0) {
        PyErr_SetString(PyExc_RuntimeError, "no flow queued: submit() frames first");
        return NULL;
    }
    flow_spread_flow f;
    flow_status s;
    self->busy = 1;
    Py_BEGIN_ALLOW_THREADS
    s = flow_spread_collect(self->sp, &f);
    Py_END_ALLOW_THREADS
    self->busy = 0;
    if (s != FLOW_OK) {
        /* the pair and the device, before the library's message */
        PyObject *message = PyUnicode_FromFormat(
            "pair %ld on device %d (%s): %s", f.index, f.device,
            flow_device_name(self->devices[f.device]), flow_last_error());
        /* the spread is spent: the next frame starts a new one */
        drop_spread(self);
        return fp_raise_message(fp_error, s, message);
    }
    PyObject *flow = fp_field_to_array(f.field);
    if (!flow)
        return NULL;
    return Py_BuildValue("(lNi)", f.index, flow, f.device);
}

static PyObject *sp_stats(fp_spread *self, PyObject *noargs)
{
    if (usable(self) < 0)
        return NULL;
    PyObject *list = PyList_New(self->ndevices);
    for (int i = 0; list && i < self->ndevices; i++) {
        long flows = 0;
        double ms = 0;
        if (self->sp)
            flow_spread_stats(self->sp, i, &flows, &ms);
        PyObject *item = Py_BuildValue("(ld)", flows, ms);
        if (!item) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, i, item);
    }
    return list;
}

static PyObject *sp_close(fp_spread *self, PyObject *noargs)
{
    if (self->busy) {
        PyErr_SetString(PyExc_RuntimeError, "the Spread is in use by another thread");
        return NULL;
    }
    Py_BEGIN_ALLOW_THREADS
    close_all(self);
    Py_END_ALLOW_THREADS
    Py_RETURN_NONE;
}

static PyObject *sp_enter(fp_spread *self, PyObject *noargs)
{
    return Py_NewRef((PyObject *)self);
}

static PyObject *sp_exit(fp_spread *self, PyObject *args)
{
    PyObject *r = sp_close(self, NULL);
    Py_XDECREF(r);
    return r ? Py_NewRef(Py_False) : NULL;
}

static int sp_init(fp_spread *self, PyObject *args, PyObject *kw)
{
    if (self->busy) {
        PyErr_SetString(PyExc_RuntimeError, "the Spread is in use by another thread");
        return -1;
    }
    close_all(self);
    const char *devices, *method = NULL;
    PyObject *params = kw ? PyDict_Copy(kw) : PyDict_New();
    if (!params)
        return -1;
    PyObject *m = PyDict_GetItemString(params, "method"); /* borrowed */
    if (!PyArg_ParseTuple(args, "s|s:Spread", &devices, &method)
        || (m && method)) {
        if (m && method)
            PyErr_SetString(PyExc_TypeError, "Spread(): method given twice");
        Py_DECREF(params);
        return -1;
    }
    if (m) {
        if (!PyUnicode_Check(m) || !(method = fp_text(m, "method"))) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_TypeError, "Spread(): method must be a str");
            Py_DECREF(params);
            return -1;
        }
        Py_INCREF(m); /* method points into it */
        PyDict_DelItemString(params, "method");
    }
    self->params = fp_params_from_kwargs(method, params, 0);
    Py_XDECREF(m);
    Py_DECREF(params);
    if (!self->params)
        return -1;
    flow_status s;
    int n = 0;
    Py_BEGIN_ALLOW_THREADS
    s = flow_devices_open(devices, self->devices, FLOW_SPREAD_DEVICES_MAX, &n);
    Py_END_ALLOW_THREADS
    if (s != FLOW_OK) {
        close_all(self);
        fp_raise_as(s == FLOW_ERR_INVALID ? fp_parameter_error : fp_error, s);
        return -1;
    }
    self->ndevices = n;
    return 0;
}

static void sp_dealloc(fp_spread *self)
{
    close_all(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *sp_repr(fp_spread *self)
{
    if (!self->ndevices)
        return PyUnicode_FromString("<flowplatform.Spread (closed)>");
    return PyUnicode_FromFormat("<flowplatform.Spread %s on %d device entries>",
                                flow_params_method(self->params), self->ndevices);
}

static PyObject *get_devices(fp_spread *self, void *closure)
{
    if (usable(self) < 0)
        return NULL;
    PyObject *list = PyList_New(self->ndevices);
    for (int i = 0; list && i < self->ndevices; i++) {
        PyObject *name = PyUnicode_FromString(flow_device_name(self->devices[i]));
        if (!name) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, i, name);
    }
    return list;
}

static PyObject *get_depth(fp_spread *self, void *closure)
{
    return usable(self) < 0 ? NULL : PyLong_FromLong(flow_spread_depth_of(self->ndevices));
}

static PyObject *get_queued(fp_spread *self, void *closure)
{
    return PyLong_FromLong(self->sp ? flow_spread_queued(self->sp) : 0);
}

static PyObject *get_method(fp_spread *self, void *closure)
{
    return usable(self) < 0 ? NULL : PyUnicode_FromString(flow_params_method(self->params));
}

static PyGetSetDef getset[] = {
    {"devices", (getter)get_devices, NULL,
     "The device of each entry of the list, by name (an entry may repeat a device).", NULL},
    {"depth", (getter)get_depth, NULL, "The most flows queued at once.", NULL},
    {"queued", (getter)get_queued, NULL, "The flows submitted and not collected.", NULL},
    {"method", (getter)get_method, NULL, "The method's name.", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyMethodDef methods[] = {
    {"submit", (PyCFunction)sp_submit, METH_O,
     "submit(frame)\n\nThe next frame of the sequence: the first only starts it, each later\n"
     "one queues the flow from the frame before it.  Raises RuntimeError when\n"
     "depth flows are queued (collect() one first)."},
    {"submit_pair", (PyCFunction)sp_submit_pair, METH_VARARGS,
     "submit_pair(frame1, frame2)\n\nQueues the flow from frame1 to frame2, a pair on its own "
     "(what\nContext.compute gives); frame2 then continues the sequence."},
    {"collect", (PyCFunction)sp_collect, METH_NOARGS,
     "collect() -> (index, flow, device)\n\nWaits for the oldest flow queued: its number in "
     "the order submitted\n(from 0), the H x W x 2 float32 flow and the entry of the list "
     "that\ncomputed it.  A failure on any device raises Error naming the pair,\nthe device "
     "and the library's message, once the flows before it were\ncollected; the flows queued "
     "are dropped and the next frame starts anew."},
    {"stats", (PyCFunction)sp_stats, METH_NOARGS,
     "stats() -> [(flows, device_ms), ...]\n\nPer entry of the list: the flows it computed "
     "and their device time\nin milliseconds."},
    {"close", (PyCFunction)sp_close, METH_NOARGS,
     "close()\n\nWaits for the work in flight, drops the flows not collected and frees\n"
     "the contexts and devices (idempotent)."},
    {"__enter__", (PyCFunction)sp_enter, METH_NOARGS, NULL},
    {"__exit__", (PyCFunction)sp_exit, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL}};

PyTypeObject fp_spread_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "flowplatform.Spread",
    .tp_doc = "Spread(devices, method=\"robust\", **params)\n\n"
              "A method with its parameters on the devices of a list (\"cpu\",\n"
              "\"cuda:all\", \"cuda:0,1\", \"cpu,cpu\": an entry may repeat a device,\n"
              "each entry computing on a queue of its own), the pairs of a sequence\n"
              "dealt out to them and their flows collected in order.  The frames'\n"
              "size is fixed by the first frame.  flowplatform.compute_many() is the\n"
              "generator over it.",
    .tp_basicsize = sizeof(fp_spread),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)sp_init,
    .tp_dealloc = (destructor)sp_dealloc,
    .tp_repr = (reprfunc)sp_repr,
    .tp_methods = methods,
    .tp_getset = getset,
};
