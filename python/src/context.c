/* context.c -- flowplatform.Context: one method with its parameters on one
 * device, and the buffers of a frame size kept from call to call.
 *
 * A Context owns a libflow device, a flow_params and, once a frame has
 * given the size, a flow_context with its output field and host buffers.
 * Every pair goes through the library's submit/collect: the first frame is
 * submitted alone (it becomes the kept frame), the second with the output
 * field, and the collect waits for the flow.  next() submits one frame at a
 * time, so a sequence uploads each frame once.  uint8 frames cross as bytes
 * (flow_context_submit8); a C-contiguous one is handed over in place.
 *
 * Frames may also be arrays in the GPU's memory (CuPy, PyTorch, Numba:
 * gpu_arrays.c) on a CUDA Context: they are handed to the library in place
 * (flow_context_submit_device), after the context's queue has been made to
 * wait for the stream the array's interface names; the flow may go to the
 * GPU's memory too (out="device": a DeviceArray, or the caller's array),
 * copied there on the device, and compute_both of GPU frames leaves its
 * four results there.  docs/python.md, "GPU arrays".
 *
 * The library's work runs with the GIL released, so that Contexts used
 * from several threads compute at the same time (each flow_context has a
 * queue of its own on its device); `busy` keeps a second thread from
 * entering the same Context meanwhile (a flow_context serves one thread at
 * a time). */
#include "ext.h"

#include <string.h>

typedef struct fp_context {
    PyObject_HEAD
    PyObject *handle;            /* owns the device (DeviceArrays hold it too) */
    flow_device *device;         /* the handle's */
    flow_params *params;
    flow_context *ctx;           /* NULL until a frame gives the size */
    int width, height, channels; /* ctx's frames */
    int kept;                    /* ctx keeps a frame: next() computes from it */
    int busy;                    /* a call runs with the GIL released */
    int slot;                    /* the host buffer the next frame is converted into */
    flow_field out;              /* the flow as the library writes it (pinned) */
    flow_image frame[2];         /* float frames, planar, as the library takes them */
    flow_image8 bytes[2];        /* uint8 frames that were not packed */
} fp_context;

/* Frees ctx and the buffers of its size (not the device and parameters). */
static void drop_buffers(fp_context *self)
{
    flow_context_destroy(self->ctx);
    self->ctx = NULL;
    if (self->out.u) {
        flow_device_unpin(self->device, self->out.u);
        flow_device_unpin(self->device, self->out.v);
    }
    flow_field_free(&self->out);
    for (int i = 0; i < 2; i++) {
        flow_image_free(&self->frame[i]);
        flow_image8_free(&self->bytes[i]);
    }
    self->width = self->height = self->channels = 0;
    self->kept = 0;
}

static void close_all(fp_context *self)
{
    drop_buffers(self);
    flow_params_destroy(self->params);
    self->params = NULL;
    self->device = NULL;
    Py_CLEAR(self->handle);
}

/* The context and output of frames of w x h x c, made anew when the size
 * changed.  Runs without the GIL. */
static flow_status prepare(fp_context *self, int w, int h, int c)
{
    if (self->ctx && w == self->width && h == self->height && c == self->channels)
        return FLOW_OK;
    drop_buffers(self);
    flow_status s = flow_context_create(self->device, w, h, c, self->params, &self->ctx);
    if (s == FLOW_OK)
        s = flow_field_alloc(&self->out, w, h);
    if (s != FLOW_OK) {
        drop_buffers(self);
        return s;
    }
    /* the output crosses the bus every frame: page-locked, when the device
     * can, it downloads at full speed (an ordinary buffer works as well) */
    const size_t bytes = (size_t)w * h * sizeof(float);
    if (flow_device_pin(self->device, self->out.u, bytes) == FLOW_OK)
        flow_device_pin(self->device, self->out.v, bytes);
    self->width = w, self->height = h, self->channels = c;
    return FLOW_OK;
}

/* A frame handed to compute, compute_both or next: a numpy array, or an
 * array in the GPU's memory. */
typedef struct frame_in {
    int on_gpu;       /* 1: `gpu` holds it, 0: `host` */
    fp_frame host;
    fp_gpu_array gpu;
    int width, height, channels, bytes;
} frame_in;

/* -1 with ValueError, naming `what` (a GPU array, out="device"), unless
 * the Context computes on CUDA. */
static int cuda_context(const fp_context *self, const char *what)
{
    if (strcmp(flow_device_kind(self->device), "cuda") == 0)
        return 0;
    PyErr_Format(PyExc_ValueError, "%s: GPU arrays need a CUDA Context (device=\"cuda\"), and "
                                   "this Context's device is %s",
                 what, flow_device_name(self->device));
    return -1;
}

/* -1 with ValueError unless the array lies in the memory of the Context's
 * GPU: the library's check, in its words ("frame1 lies on cuda:1, the
 * device is cuda:0 (...)", "... lies in host memory ..."), made before
 * anything is queued. */
static int on_context_gpu(const fp_context *self, const fp_gpu_array *a, const char *what)
{
    const flow_status s = flow_device_check_pointer(self->device, a->data, what);
    if (s != FLOW_OK) {
        fp_raise_as(PyExc_ValueError, s);
        return -1;
    }
    return 0;
}

static void frame_release(frame_in *f)
{
    fp_frame_release(&f->host);
    fp_gpu_array_release(&f->gpu);
}

/* obj as a frame; 0, or -1 with an exception. */
static int frame_get(const fp_context *self, PyObject *obj, const char *what, frame_in *f)
{
    memset(f, 0, sizeof *f);
    const int on_gpu = fp_gpu_array_get(obj, what, &f->gpu);
    if (on_gpu < 0)
        return -1;
    if (!on_gpu) {
        if (!PyArray_Check(obj)) {
            PyErr_Format(PyExc_TypeError, "%s must be an array in a GPU's memory "
                                          "(__cuda_array_interface__ or DLPack: CuPy, PyTorch) "
                                          "or a numpy array, not %s",
                         what, Py_TYPE(obj)->tp_name);
            return -1;
        }
        if (fp_frame_get(obj, what, &f->host) < 0)
            return -1;
        f->width = f->host.width, f->height = f->host.height, f->channels = f->host.channels;
        f->bytes = f->host.bytes;
        return 0;
    }
    f->on_gpu = 1;
    char where[64];
    snprintf(where, sizeof where, "%s is a GPU array", what);
    if (fp_gpu_frame_check(&f->gpu, what, &f->width, &f->height, &f->channels, &f->bytes) < 0
        || cuda_context(self, where) < 0 || on_context_gpu(self, &f->gpu, what) < 0) {
        frame_release(f);
        return -1;
    }
    return 0;
}

/* Where a flow goes: the Context's host field (a numpy array is made of
 * it), or the GPU's memory: a new DeviceArray or the caller's array. */
typedef struct flow_out {
    int on_gpu;
    PyObject *array;  /* what is returned when on_gpu (a reference) */
    fp_gpu_array given;
    flow_field field; /* u, v in the GPU's memory */
} flow_out;

static void out_release(flow_out *o)
{
    Py_CLEAR(o->array);
    fp_gpu_array_release(&o->given);
}

/* The out= argument (NULL or None: where the frames are, on the GPU when
 * both are) for a w x h flow; 0, or -1 with an exception. */
static int out_get(fp_context *self, PyObject *spec, int frames_on_gpu, int w, int h,
                   flow_out *o)
{
    memset(o, 0, sizeof *o);
    o->field.width = w, o->field.height = h;
    if (!spec || spec == Py_None) {
        o->on_gpu = frames_on_gpu;
    } else if (PyUnicode_Check(spec) && PyUnicode_CompareWithASCIIString(spec, "host") == 0) {
        return 0;
    } else if (PyUnicode_Check(spec) && PyUnicode_CompareWithASCIIString(spec, "device") == 0) {
        if (cuda_context(self, "out=\"device\"") < 0)
            return -1;
        o->on_gpu = 1;
    } else {
        const int on_gpu = PyUnicode_Check(spec) ? 0 : fp_gpu_array_get(spec, "out", &o->given);
        if (on_gpu < 0)
            return -1;
        if (!on_gpu) {
            PyErr_Format(PyExc_TypeError, "out must be None, \"host\", \"device\" or an array "
                                          "in the GPU's memory, not %R", spec);
            return -1;
        }
        if (fp_gpu_flow_check(&o->given, "out", w, h, &o->field.u, &o->field.v) < 0
            || cuda_context(self, "out is a GPU array") < 0
            || on_context_gpu(self, &o->given, "out") < 0) {
            out_release(o);
            return -1;
        }
        o->on_gpu = 1;
        Py_INCREF(spec);
        o->array = spec;
        return 0;
    }
    if (o->on_gpu) {
        o->array = fp_device_array_new_flow(self->handle, w, h, &o->field.u, &o->field.v);
        if (!o->array)
            return -1;
    }
    return 0;
}

/* The context's queue waits for the streams that the GPU arrays name (f2
 * and o may be NULL), and the flow goes where o says.  Runs without the
 * GIL. */
static flow_status gpu_order(fp_context *self, const frame_in *f1, const frame_in *f2,
                             const flow_out *o)
{
    const fp_gpu_array *arrays[] = { &f1->gpu, f2 ? &f2->gpu : NULL, o ? &o->given : NULL };
    uintptr_t waited = 0;
    for (int i = 0; i < 3; i++)
        if (arrays[i] && arrays[i]->has_stream && arrays[i]->stream != waited) {
            const flow_status s = flow_context_after_stream(self->ctx, arrays[i]->stream);
            if (s != FLOW_OK)
                return s;
            waited = arrays[i]->stream;
        }
    return flow_context_set_device_output(self->ctx, o && o->on_gpu);
}

/* Submits frame f (of the context's size) with `out` (NULL: f only becomes
 * the kept frame): a GPU array in place, packed bytes as they are, other
 * numpy frames converted into a host buffer of their own.  Runs without
 * the GIL. */
static flow_status submit(fp_context *self, const frame_in *in, flow_field *out)
{
    if (in->on_gpu) {
        const flow_device_frame d = { in->gpu.data, in->width, in->height, in->channels,
                                      in->bytes };
        return flow_context_submit_device(self->ctx, &d, out);
    }
    const fp_frame *f = &in->host;
    const int k = self->slot;
    self->slot ^= 1;
    if (fp_frame_packed8(f)) {
        flow_image8 img = {f->width, f->height, f->channels, PyArray_DATA(f->array)};
        return flow_context_submit8(self->ctx, &img, out);
    }
    if (f->bytes) {
        flow_image8 *img = &self->bytes[k];
        if (!img->data) {
            const flow_status s = flow_image8_alloc(img, f->width, f->height, f->channels);
            if (s != FLOW_OK)
                return s;
        }
        fp_frame_to_bytes(f, img);
        return flow_context_submit8(self->ctx, img, out);
    }
    flow_image *img = &self->frame[k];
    if (!img->data) {
        const flow_status s = flow_image_alloc(img, f->width, f->height, f->channels);
        if (s != FLOW_OK)
            return s;
    }
    fp_frame_to_float(f, img);
    return flow_context_submit(self->ctx, img, out);
}

/* 0 when the Context can run a call now; -1 with an exception when it is
 * closed or another thread is in it. */
static int usable(const fp_context *self)
{
    if (!self->device) {
        PyErr_SetString(PyExc_ValueError, "the Context is closed");
        return -1;
    }
    if (self->busy) {
        PyErr_SetString(PyExc_RuntimeError,
                        "the Context is computing in another thread (use one Context per thread)");
        return -1;
    }
    return 0;
}

static PyObject *size_error(const char *what, const frame_in *f, const char *other,
                            int w, int h, int c, const char *hint)
{
    PyErr_Format(PyExc_ValueError,
                 "%s is %d x %d with %d channel%s but %s %d x %d with %d channel%s%s", what,
                 f->width, f->height, f->channels, f->channels == 1 ? "" : "s", other, w, h, c,
                 c == 1 ? "" : "s", hint);
    return NULL;
}

/* frame1 and frame2 of compute and compute_both, of one size; -1 with an
 * exception (neither kept). */
static int frames_get(const fp_context *self, PyObject *o1, PyObject *o2, frame_in *f1,
                      frame_in *f2)
{
    if (frame_get(self, o1, "frame1", f1) < 0)
        return -1;
    if (frame_get(self, o2, "frame2", f2) < 0) {
        frame_release(f1);
        return -1;
    }
    if (f1->width != f2->width || f1->height != f2->height || f1->channels != f2->channels) {
        size_error("frame1", f1, "frame2 is", f2->width, f2->height, f2->channels, "");
        frame_release(f1);
        frame_release(f2);
        return -1;
    }
    return 0;
}

/* The confidence of an initial flow: an H x W float array (any float or
 * integer type, values in [0, 1]) as a C-contiguous float32 copy; NULL
 * with an exception. */
static PyArrayObject *confidence_array(PyObject *obj, int width, int height)
{
    PyArrayObject *c = (PyArrayObject *)PyArray_FROMANY(obj, NPY_FLOAT32, 2, 2,
                                                        NPY_ARRAY_IN_ARRAY | NPY_ARRAY_FORCECAST);
    if (!c)
        return NULL;
    if (PyArray_DIM(c, 0) != height || PyArray_DIM(c, 1) != width) {
        PyErr_Format(PyExc_ValueError, "confidence is %d x %d but the frames %d x %d",
                     (int)PyArray_DIM(c, 1), (int)PyArray_DIM(c, 0), width, height);
        Py_DECREF(c);
        return NULL;
    }
    return c;
}

static PyObject *ctx_compute(fp_context *self, PyObject *args, PyObject *kw)
{
    static char *keywords[] = {"frame1", "frame2", "init", "confidence", "out", NULL};
    PyObject *o1, *o2, *oinit = Py_None, *oconf = Py_None, *oout = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|OO$O:compute", keywords, &o1, &o2, &oinit,
                                     &oconf, &oout)
        || usable(self) < 0)
        return NULL;
    if (oinit == Py_None && oconf != Py_None) {
        PyErr_SetString(PyExc_ValueError, "confidence applies to init: give init too");
        return NULL;
    }
    frame_in f1, f2;
    if (frames_get(self, o1, o2, &f1, &f2) < 0)
        return NULL;
    PyObject *result = NULL;
    flow_field init = {0};
    PyArrayObject *conf = NULL;
    flow_out out = {0};
    if (out_get(self, oout, f1.on_gpu && f2.on_gpu, f1.width, f1.height, &out) < 0)
        goto done;
    if (oinit != Py_None && fp_field_from_array(oinit, "init", &init) < 0)
        goto done;
    if (oconf != Py_None && !(conf = confidence_array(oconf, f1.width, f1.height)))
        goto done;
    flow_status s;
    self->busy = 1;
    Py_BEGIN_ALLOW_THREADS
    s = prepare(self, f1.width, f1.height, f1.channels);
    if (s == FLOW_OK)
        s = gpu_order(self, &f1, &f2, &out);
    /* the initial flow applies to this pair alone */
    if (s == FLOW_OK && (init.u || flow_context_takes_init(self->ctx)))
        s = flow_context_set_init(self->ctx, init.u ? &init : NULL,
                                  conf ? (const float *)PyArray_DATA(conf) : NULL);
    if (s == FLOW_OK)
        s = submit(self, &f1, NULL);
    if (s == FLOW_OK)
        s = submit(self, &f2, out.on_gpu ? &out.field : &self->out);
    if (s == FLOW_OK)
        s = flow_context_collect(self->ctx, NULL, NULL);
    Py_END_ALLOW_THREADS
    self->busy = 0;
    self->kept = s == FLOW_OK;
    if (s != FLOW_OK)
        result = fp_raise(s);
    else if (out.on_gpu)
        result = Py_NewRef(out.array);
    else
        result = fp_field_to_array(&self->out);
done:
    flow_field_free(&init);
    Py_XDECREF(conf);
    out_release(&out);
    frame_release(&f1);
    frame_release(&f2);
    return result;
}

/* A plane of floats as an H x W array of `type` (NPY_FLOAT32, or NPY_BOOL:
 * nonzero -> True). */
static PyObject *plane_to_array(const float *p, int width, int height, int type)
{
    npy_intp dims[2] = {height, width};
    PyObject *out = PyArray_SimpleNew(2, dims, type);
    if (!out)
        return NULL;
    const size_t n = (size_t)width * height;
    if (type == NPY_BOOL) {
        npy_bool *b = PyArray_DATA((PyArrayObject *)out);
        for (size_t i = 0; i < n; i++)
            b[i] = p[i] != 0.0f;
    } else {
        memcpy(PyArray_DATA((PyArrayObject *)out), p, sizeof(float) * n);
    }
    return out;
}

/* compute_both(frame1, frame2, a=0.01, b=0.5): both directions in one call
 * (flow_context_set_backward): a dict of "flow" and "backward" (H x W x 2
 * float32), "occlusion" (H x W, True where the forward-backward test
 * |wf + wb|^2 > a (|wf|^2 + |wb|^2) + b fails) and "confidence" (H x W
 * float32 in [0, 1]).  Numpy arrays, occlusion bool; when both frames are
 * GPU arrays, DeviceArrays written on the device
 * (flow_context_request_output_device), occlusion float32 1 or 0 as the
 * library leaves it.  Starts a new sequence, as compute does. */
static PyObject *ctx_compute_both(fp_context *self, PyObject *args, PyObject *kw)
{
    static char *keywords[] = {"frame1", "frame2", "a", "b", NULL};
    static const char *const names[] = {"backward_u", "backward_v", "occlusion", "confidence"};
    PyObject *o1, *o2;
    double a = FLOW_OCCLUSION_A, b = FLOW_OCCLUSION_B;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|dd:compute_both", keywords, &o1, &o2, &a, &b)
        || usable(self) < 0)
        return NULL;
    frame_in f1, f2;
    if (frames_get(self, o1, o2, &f1, &f2) < 0)
        return NULL;
    const int w = f1.width, h = f1.height, on_gpu = f1.on_gpu && f2.on_gpu;
    PyObject *result = NULL;
    flow_out out = {0};                   /* the forward flow, on the GPU */
    PyObject *planes_gpu[3] = {NULL};     /* backward, occlusion, confidence there */
    flow_field back = {w, h, NULL, NULL}; /* the backward flow, where it goes */
    float *occ = NULL, *conf = NULL;
    if (on_gpu) {
        if (out_get(self, NULL, 1, w, h, &out) < 0
            || !(planes_gpu[0] = fp_device_array_new_flow(self->handle, w, h, &back.u, &back.v))
            || !(planes_gpu[1] = fp_device_array_new_plane(self->handle, w, h, &occ))
            || !(planes_gpu[2] = fp_device_array_new_plane(self->handle, w, h, &conf)))
            goto done;
    } else if (flow_field_alloc(&back, w, h) != FLOW_OK
               || !(occ = malloc(sizeof *occ * w * h)) || !(conf = malloc(sizeof *conf * w * h))) {
        PyErr_NoMemory();
        goto done;
    }
    float *dst[] = {back.u, back.v, occ, conf};
    flow_status (*request)(flow_context *, const char *, float *) =
        on_gpu ? flow_context_request_output_device : flow_context_request_output;
    flow_status s;
    self->busy = 1;
    Py_BEGIN_ALLOW_THREADS
    s = prepare(self, w, h, f1.channels);
    if (s == FLOW_OK)
        s = gpu_order(self, &f1, &f2, on_gpu ? &out : NULL);
    if (s == FLOW_OK && flow_context_takes_init(self->ctx))
        s = flow_context_set_init(self->ctx, NULL, NULL);
    if (s == FLOW_OK)
        s = flow_context_set_backward(self->ctx, 1, a, b);
    for (int k = 0; k < 4 && s == FLOW_OK; k++)
        s = request(self->ctx, names[k], dst[k]);
    if (s == FLOW_OK)
        s = submit(self, &f1, NULL);
    if (s == FLOW_OK)
        s = submit(self, &f2, on_gpu ? &out.field : &self->out);
    if (s == FLOW_OK)
        s = flow_context_collect(self->ctx, NULL, NULL);
    /* compute and next go on computing one direction (and the requests,
     * the DeviceArrays' memory among them, are dropped) */
    if (self->ctx) {
        const flow_status off = flow_context_set_backward(self->ctx, 0, 0, 0);
        s = s == FLOW_OK ? off : s;
    }
    Py_END_ALLOW_THREADS
    self->busy = 0;
    self->kept = s == FLOW_OK;
    if (s != FLOW_OK) {
        result = fp_raise(s);
    } else if (on_gpu) {
        result = Py_BuildValue("{sOsOsOsO}", "flow", out.array, "backward", planes_gpu[0],
                               "occlusion", planes_gpu[1], "confidence", planes_gpu[2]);
    } else {
        PyObject *flow = fp_field_to_array(&self->out), *bwd = fp_field_to_array(&back);
        PyObject *o = plane_to_array(occ, w, h, NPY_BOOL);
        PyObject *c = plane_to_array(conf, w, h, NPY_FLOAT32);
        if (flow && bwd && o && c)
            result = Py_BuildValue("{sOsOsOsO}", "flow", flow, "backward", bwd, "occlusion", o,
                                   "confidence", c);
        Py_XDECREF(flow), Py_XDECREF(bwd), Py_XDECREF(o), Py_XDECREF(c);
    }
done:
    if (!on_gpu) {
        flow_field_free(&back);
        free(occ);
        free(conf);
    }
    for (int k = 0; k < 3; k++)
        Py_XDECREF(planes_gpu[k]);
    out_release(&out);
    frame_release(&f1);
    frame_release(&f2);
    return result;
}

static PyObject *ctx_next(fp_context *self, PyObject *args, PyObject *kw)
{
    static char *keywords[] = {"frame", "out", NULL};
    PyObject *arg, *oout = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|$O:next", keywords, &arg, &oout)
        || usable(self) < 0)
        return NULL;
    frame_in f;
    if (frame_get(self, arg, "frame", &f) < 0)
        return NULL;
    const int first = !self->kept;
    if (!first && (f.width != self->width || f.height != self->height
                   || f.channels != self->channels)) {
        size_error("frame", &f, "the sequence's frames are", self->width, self->height,
                   self->channels, " (reset() starts a new sequence)");
        frame_release(&f);
        return NULL;
    }
    flow_out out = {0};
    if (!first && out_get(self, oout, f.on_gpu, f.width, f.height, &out) < 0) {
        frame_release(&f);
        return NULL;
    }
    flow_status s;
    self->busy = 1;
    Py_BEGIN_ALLOW_THREADS
    if (first) {
        s = prepare(self, f.width, f.height, f.channels);
        if (s == FLOW_OK)
            s = gpu_order(self, &f, NULL, NULL);
        if (s == FLOW_OK)
            s = submit(self, &f, NULL);
        /* nothing is collected after a first frame: wait for its upload
         * here, so that the caller's array is free again on return */
        if (s == FLOW_OK)
            s = flow_device_synchronize(self->device);
    } else {
        s = gpu_order(self, &f, NULL, &out);
        if (s == FLOW_OK)
            s = submit(self, &f, out.on_gpu ? &out.field : &self->out);
        if (s == FLOW_OK)
            s = flow_context_collect(self->ctx, NULL, NULL);
    }
    Py_END_ALLOW_THREADS
    self->busy = 0;
    self->kept = s == FLOW_OK;
    frame_release(&f);
    PyObject *result;
    if (s != FLOW_OK)
        result = fp_raise(s);
    else if (first)
        result = Py_NewRef(Py_None);
    else if (out.on_gpu)
        result = Py_NewRef(out.array);
    else
        result = fp_field_to_array(&self->out);
    out_release(&out);
    return result;
}

/* write_params(path, comment=None): the parameters as a .params file that
 * flow-compute -p reads; after a computation, as the context ran them (the
 * level counts that the frame size cut short reduced), as flow-compute
 * writes them beside a flow. */
static PyObject *ctx_write_params(fp_context *self, PyObject *args, PyObject *kw)
{
    static char *keywords[] = {"path", "comment", NULL};
    PyObject *path;
    const char *comment = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&|z:write_params", keywords,
                                     PyUnicode_FSConverter, &path, &comment))
        return NULL;
    if (usable(self) < 0) {
        Py_DECREF(path);
        return NULL;
    }
    const flow_params *p = self->ctx ? flow_context_params(self->ctx) : self->params;
    flow_status s;
    self->busy = 1;
    Py_BEGIN_ALLOW_THREADS
    s = flow_params_write(PyBytes_AS_STRING(path), p, comment);
    Py_END_ALLOW_THREADS
    self->busy = 0;
    Py_DECREF(path);
    if (s != FLOW_OK)
        return fp_raise(s);
    Py_RETURN_NONE;
}

static PyObject *ctx_reset(fp_context *self, PyObject *noargs)
{
    if (usable(self) < 0)
        return NULL;
    self->kept = 0;
    Py_RETURN_NONE;
}

static PyObject *ctx_close(fp_context *self, PyObject *noargs)
{
    if (self->busy) {
        PyErr_SetString(PyExc_RuntimeError, "the Context is computing in another thread");
        return NULL;
    }
    close_all(self);
    Py_RETURN_NONE;
}

static PyObject *ctx_enter(fp_context *self, PyObject *noargs)
{
    if (usable(self) < 0)
        return NULL;
    Py_INCREF(self);
    return (PyObject *)self;
}

static PyObject *ctx_exit(fp_context *self, PyObject *args)
{
    return ctx_close(self, NULL);
}

/* Takes the keyword `key` out of kw into *value (a new reference), refusing
 * it when a positional argument gave it already. */
static int take_keyword(PyObject *kw, const char *key, PyObject **value)
{
    PyObject *v = PyDict_GetItemString(kw, key);
    if (!v)
        return 0;
    if (*value) {
        PyErr_Format(PyExc_TypeError, "Context() got multiple values for argument '%s'", key);
        return -1;
    }
    Py_INCREF(v);
    *value = v;
    return PyDict_DelItemString(kw, key);
}

/* A str argument (or None, giving NULL, when none_ok). */
static int text_of(PyObject *obj, const char *name, int none_ok, const char **out)
{
    if (none_ok && (!obj || obj == Py_None)) {
        *out = NULL;
        return 0;
    }
    if (!PyUnicode_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "Context(): %s must be a str, not %s", name,
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    *out = fp_text(obj, name);
    return *out ? 0 : -1;
}

static int ctx_init(fp_context *self, PyObject *args, PyObject *kw)
{
    if (self->busy) {
        PyErr_SetString(PyExc_RuntimeError, "the Context is computing in another thread");
        return -1;
    }
    close_all(self);
    PyObject *method = NULL, *device = NULL, *auto_spec = PyUnicode_FromString("auto");
    PyObject *params = kw ? PyDict_Copy(kw) : PyDict_New();
    int rc = -1;
    const char *m, *spec;
    if (!auto_spec || !params || !PyArg_UnpackTuple(args, "Context", 0, 2, &method, &device))
        goto done;
    Py_XINCREF(method);
    Py_XINCREF(device);
    if (take_keyword(params, "method", &method) < 0 || take_keyword(params, "device", &device) < 0
        || text_of(method, "method", 1, &m) < 0
        || text_of(device ? device : auto_spec, "device", 0, &spec) < 0)
        goto done;
    self->params = fp_params_from_kwargs(m, params, 0);
    if (!self->params)
        goto done;
    flow_status s;
    flow_device *d = NULL;
    Py_BEGIN_ALLOW_THREADS
    s = flow_device_open(spec, &d);
    Py_END_ALLOW_THREADS
    if (s != FLOW_OK) {
        fp_raise_as(s == FLOW_ERR_INVALID ? fp_parameter_error : fp_error, s);
    } else if ((self->handle = fp_device_handle_new(d))) {
        self->device = d;
        rc = 0;
    }
done:
    if (rc < 0)
        close_all(self);
    Py_XDECREF(method);
    Py_XDECREF(device);
    Py_XDECREF(auto_spec);
    Py_XDECREF(params);
    return rc;
}

static void ctx_dealloc(fp_context *self)
{
    close_all(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *ctx_repr(fp_context *self)
{
    if (!self->device)
        return PyUnicode_FromString("<flowplatform.Context (closed)>");
    return PyUnicode_FromFormat("<flowplatform.Context %s on %s>", flow_params_method(self->params),
                                flow_device_name(self->device));
}

/* ---- attributes ------------------------------------------------------------ */

static int open_or_raise(const fp_context *self)
{
    if (self->device)
        return 0;
    PyErr_SetString(PyExc_ValueError, "the Context is closed");
    return -1;
}

static PyObject *get_method(fp_context *self, void *closure)
{
    return open_or_raise(self) < 0 ? NULL : PyUnicode_FromString(flow_params_method(self->params));
}

static PyObject *get_device(fp_context *self, void *closure)
{
    return open_or_raise(self) < 0 ? NULL : PyUnicode_FromString(flow_device_name(self->device));
}

static PyObject *get_device_kind(fp_context *self, void *closure)
{
    return open_or_raise(self) < 0 ? NULL : PyUnicode_FromString(flow_device_kind(self->device));
}

static PyObject *get_notice(fp_context *self, void *closure)
{
    return open_or_raise(self) < 0 ? NULL
                                   : PyUnicode_FromString(flow_device_notice(self->device));
}

static PyObject *get_params(fp_context *self, void *closure)
{
    return open_or_raise(self) < 0 ? NULL : fp_params_to_dict(self->params);
}

static PyObject *get_frame_shape(fp_context *self, void *closure)
{
    if (!self->ctx)
        Py_RETURN_NONE;
    return Py_BuildValue("(iii)", self->height, self->width, self->channels);
}

static PyObject *get_closed(fp_context *self, void *closure)
{
    return PyBool_FromLong(!self->device);
}

static PyGetSetDef getset[] = {
    {"method", (getter)get_method, NULL, "The method's name.", NULL},
    {"device", (getter)get_device, NULL,
     "The device's name: \"CPU (16 threads)\", \"NVIDIA H100 80GB HBM3 (cuda:0, sm_90)\", ...",
     NULL},
    {"device_kind", (getter)get_device_kind, NULL, "\"cpu\" or \"cuda\".", NULL},
    {"notice", (getter)get_notice, NULL,
     "Empty, or why device=\"auto\" fell back to the CPU.", NULL},
    {"params", (getter)get_params, NULL,
     "Every parameter of the method with its value: {name: float, int, bool or str}.", NULL},
    {"frame_shape", (getter)get_frame_shape, NULL,
     "(height, width, channels) of the frames the buffers are for, or None before the first.",
     NULL},
    {"closed", (getter)get_closed, NULL, "Whether close() was called.", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyMethodDef methods[] = {
    {"compute", (PyCFunction)(void (*)(void))ctx_compute, METH_VARARGS | METH_KEYWORDS,
     "compute(frame1, frame2, init=None, confidence=None, *, out=None)\n"
     "    -> ndarray or DeviceArray\n\n"
     "The flow from frame1 to frame2 as an H x W x 2 float32 array of (u, v).\n"
     "Frames: uint8 or float32 (0..255), H x W (gray) or H x W x 3 (R, G, B),\n"
     "both of one shape.  A next() after it continues from frame2.\n"
     "init (H x W x 2, a vector at every pixel): a flow of this pair that the\n"
     "method refines instead of starting from nothing (the methods that take\n"
     "one: robust, at its finest level); confidence (H x W in [0, 1]): how far\n"
     "to trust it at each pixel, the method's own flow making up the rest.\n"
     "On a CUDA Context the frames may be arrays in the GPU's memory (CuPy,\n"
     "PyTorch, Numba: __cuda_array_interface__ or DLPack, C order), read in\n"
     "place.  out: None (a DeviceArray when both frames are GPU arrays, else a\n"
     "numpy array), \"host\", \"device\" (a new DeviceArray), or an H x W x 2\n"
     "float32 GPU array whose u and v are planes (strides (4W, 4, 4HW)),\n"
     "written and returned.  docs/python.md, \"GPU arrays\"."},
    {"compute_both", (PyCFunction)(void (*)(void))ctx_compute_both, METH_VARARGS | METH_KEYWORDS,
     "compute_both(frame1, frame2, a=0.01, b=0.5) -> dict: both directions in one call: "
     "\"flow\" and \"backward\" (H x W x 2 float32), \"occlusion\" (H x W bool, True where "
     "the forward-backward test |wf + wb(x+wf)|^2 > a (|wf|^2 + |wb|^2) + b fails; Sundaram, "
     "Brox, Keutzer 2010) and \"confidence\" (H x W float32 in [0, 1]); starts a new "
     "sequence.  The frames may be GPU arrays as for compute: when both are, the four are "
     "DeviceArrays, complete on return, occlusion float32 (1.0 where the test fails, else "
     "0.0).  docs/python.md, \"GPU arrays\"."},
    {"next", (PyCFunction)(void (*)(void))ctx_next, METH_VARARGS | METH_KEYWORDS,
     "next(frame, *, out=None) -> ndarray, DeviceArray or None\n\n"
     "The flow from the previous frame of the sequence to this one; None for\n"
     "the first frame (after construction, reset() or an error).  Each frame\n"
     "is uploaded once.  Frames of a sequence share one shape.  A frame may\n"
     "be a GPU array and out says where the flow goes, as for compute (None:\n"
     "a DeviceArray when this frame is a GPU array)."},
    {"write_params", (PyCFunction)(void (*)(void))ctx_write_params, METH_VARARGS | METH_KEYWORDS,
     "write_params(path, comment=None)\n\n"
     "Writes the method and every parameter as a .params file that\n"
     "`flow-compute -p` reads, after the lines of comment as '#' lines; after a\n"
     "computation, the values as it ran (level counts that the frame size cut\n"
     "short reduced), as flow-compute writes them.  Whole or nothing."},
    {"reset", (PyCFunction)ctx_reset, METH_NOARGS,
     "reset()\n\nStarts a new sequence: the next next() returns None."},
    {"close", (PyCFunction)ctx_close, METH_NOARGS,
     "close()\n\nFrees the buffers and the device now (idempotent)."},
    {"__enter__", (PyCFunction)ctx_enter, METH_NOARGS, NULL},
    {"__exit__", (PyCFunction)ctx_exit, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL}};

PyTypeObject fp_context_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "flowplatform.Context",
    .tp_doc = "Context(method=\"robust\", device=\"auto\", **params)\n\n"
              "A method with its parameters on a device (\"auto\", \"cpu\", \"cuda\",\n"
              "\"cuda:N\"), keeping its buffers from frame to frame.  params are the\n"
              "method's parameters by name (flowplatform.schema(method)); a value out\n"
              "of range, or without effect under the others, raises ParameterError.\n"
              "The buffers follow the frames' size: a pair or a first frame of a new\n"
              "size makes them anew.",
    .tp_basicsize = sizeof(fp_context),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)ctx_init,
    .tp_dealloc = (destructor)ctx_dealloc,
    .tp_repr = (reprfunc)ctx_repr,
    .tp_methods = methods,
    .tp_getset = getset,
};
