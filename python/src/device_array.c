/* device_array.c -- flowplatform.DeviceArray: a flow or a plane that stays
 * in the GPU's memory (Context.compute(..., out="device"), compute_both of
 * GPU frames), handed on without a host copy through both interfaces that
 * CuPy, PyTorch and Numba read: __cuda_array_interface__ (version 3) and
 * DLPack (__dlpack__, __dlpack_device__).  A flow is an H x W x 2 float32
 * array like the numpy flows, laid out as the library writes a flow: the
 * plane u, then the plane v (strides 4 W, 4 and 4 H W bytes); a plane (an
 * occlusion mask, a confidence) is H x W float32, rows packed.  Its
 * contents are complete when it is handed out, so it names no stream to
 * wait for.
 *
 * The memory belongs to the Context's device, which the array keeps open
 * through a device handle (the Context holds one too): a Context closed
 * while its arrays live closes its device when the last of them goes. */
#include "ext.h"
#include "dlpack.h"

/* ---- the device handle: a flow_device closed by its last reference -------- */

typedef struct fp_device_handle {
    PyObject_HEAD
    flow_device *device;
} fp_device_handle;

/* Closing a CUDA device waits for it: without the GIL, as a DeviceArray's
 * free. */
static void handle_dealloc(fp_device_handle *self)
{
    flow_device *d = self->device;
    Py_BEGIN_ALLOW_THREADS
    flow_device_close(d);
    Py_END_ALLOW_THREADS
    Py_TYPE(self)->tp_free((PyObject *)self);
}

PyTypeObject fp_device_handle_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "flowplatform._DeviceHandle",
    .tp_doc = "An open device, closed when the last Context or DeviceArray on it goes.",
    .tp_basicsize = sizeof(fp_device_handle),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_dealloc = (destructor)handle_dealloc,
};

PyObject *fp_device_handle_new(flow_device *d)
{
    fp_device_handle *h = PyObject_New(fp_device_handle, &fp_device_handle_type);
    if (!h) {
        flow_device_close(d);
        return NULL;
    }
    h->device = d;
    return (PyObject *)h;
}

flow_device *fp_device_handle_get(PyObject *h)
{
    return ((fp_device_handle *)h)->device;
}

/* ---- DeviceArray ------------------------------------------------------------ */

typedef struct fp_device_array {
    PyObject_HEAD
    PyObject *handle; /* the device's */
    float *data;      /* the planes, one after the other */
    int width, height;
    int planes;       /* 2: a flow (u, then v), H x W x 2; 1: H x W */
} fp_device_array;

/* A new array of `planes` planes of width x height floats; NULL with an
 * exception. */
static fp_device_array *array_new(PyObject *handle, int width, int height, int planes)
{
    flow_device *d = fp_device_handle_get(handle);
    void *p = NULL;
    const flow_status s = flow_device_alloc(d, (size_t)planes * width * height * sizeof(float),
                                            &p);
    if (s != FLOW_OK) {
        fp_raise(s);
        return NULL;
    }
    fp_device_array *a = PyObject_New(fp_device_array, &fp_device_array_type);
    if (!a) {
        flow_device_free(d, p);
        return NULL;
    }
    Py_INCREF(handle);
    a->handle = handle;
    a->data = p;
    a->width = width, a->height = height;
    a->planes = planes;
    return a;
}

PyObject *fp_device_array_new_flow(PyObject *handle, int width, int height, float **u,
                                   float **v)
{
    fp_device_array *a = array_new(handle, width, height, 2);
    if (a) {
        *u = a->data;
        *v = a->data + (size_t)width * height;
    }
    return (PyObject *)a;
}

PyObject *fp_device_array_new_plane(PyObject *handle, int width, int height, float **p)
{
    fp_device_array *a = array_new(handle, width, height, 1);
    if (a)
        *p = a->data;
    return (PyObject *)a;
}

/* cudaFree waits for the device: other threads run meanwhile (nothing
 * else can reach the array any more). */
static void array_dealloc(fp_device_array *self)
{
    flow_device *d = fp_device_handle_get(self->handle);
    float *data = self->data;
    Py_BEGIN_ALLOW_THREADS
    flow_device_free(d, data);
    Py_END_ALLOW_THREADS
    Py_DECREF(self->handle);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int gpu_of(const fp_device_array *self)
{
    return flow_device_index(fp_device_handle_get(self->handle));
}

static PyObject *get_shape(fp_device_array *self, void *closure)
{
    if (self->planes == 1)
        return Py_BuildValue("(ii)", self->height, self->width);
    return Py_BuildValue("(iii)", self->height, self->width, 2);
}

static PyObject *get_strides(fp_device_array *self, void *closure)
{
    if (self->planes == 1)
        return Py_BuildValue("(nn)", (Py_ssize_t)self->width * 4, (Py_ssize_t)4);
    return Py_BuildValue("(nnn)", (Py_ssize_t)self->width * 4, (Py_ssize_t)4,
                         (Py_ssize_t)self->width * self->height * 4);
}

static PyObject *get_dtype(fp_device_array *self, void *closure)
{
    return (PyObject *)PyArray_DescrFromType(NPY_FLOAT32);
}

static PyObject *get_device(fp_device_array *self, void *closure)
{
    return PyUnicode_FromFormat("cuda:%d", gpu_of(self));
}

static PyObject *get_ptr(fp_device_array *self, void *closure)
{
    return PyLong_FromVoidPtr(self->data);
}

static PyObject *get_nbytes(fp_device_array *self, void *closure)
{
    return PyLong_FromSize_t((size_t)self->width * self->height * self->planes * sizeof(float));
}

static PyObject *get_interface(fp_device_array *self, void *closure)
{
    return Py_BuildValue("{sNsssNsNsisO}", "shape", get_shape(self, NULL), "typestr",
                         PY_LITTLE_ENDIAN ? "<f4" : ">f4", "data",
                         Py_BuildValue("(NO)", PyLong_FromVoidPtr(self->data), Py_False),
                         "strides", get_strides(self, NULL), "version", 3, "stream", Py_None);
}

/* ---- DLPack ------------------------------------------------------------------- */

/* A tensor handed out, with the storage of its shape and strides; the
 * array stays alive (manager_ctx holds a reference) until the consumer
 * calls the deleter. */
typedef struct export_legacy {
    fp_dl_managed m;
    int64_t shape[3], strides[3];
} export_legacy;

typedef struct export_versioned {
    fp_dl_managed_versioned m;
    int64_t shape[3], strides[3];
} export_versioned;

static void describe(fp_device_array *self, fp_dl_tensor *t, int64_t *shape, int64_t *strides)
{
    const int64_t w = self->width, h = self->height;
    shape[0] = h, shape[1] = w, shape[2] = 2;
    strides[0] = w, strides[1] = 1, strides[2] = w * h; /* elements */
    t->data = self->data;
    t->device.device_type = FP_DL_CUDA;
    t->device.device_id = gpu_of(self);
    t->ndim = self->planes == 1 ? 2 : 3;
    t->dtype.code = FP_DL_FLOAT;
    t->dtype.bits = 32;
    t->dtype.lanes = 1;
    t->shape = shape;
    t->strides = strides;
    t->byte_offset = 0;
}

/* The deleters may run on a thread of the consumer's without the GIL. */
static void drop_owner(void *owner)
{
    PyGILState_STATE g = PyGILState_Ensure();
    Py_DECREF((PyObject *)owner);
    PyGILState_Release(g);
}

static void delete_legacy(fp_dl_managed *m)
{
    drop_owner(m->manager_ctx);
    PyMem_RawFree(m);
}

static void delete_versioned(fp_dl_managed_versioned *m)
{
    drop_owner(m->manager_ctx);
    PyMem_RawFree(m);
}

/* A capsule never consumed frees its tensor; a consumed one was renamed
 * "used_..." and its consumer calls the deleter. */
static void capsule_legacy(PyObject *cap)
{
    if (PyCapsule_IsValid(cap, "dltensor")) {
        fp_dl_managed *m = PyCapsule_GetPointer(cap, "dltensor");
        m->deleter(m);
    }
}

static void capsule_versioned(PyObject *cap)
{
    if (PyCapsule_IsValid(cap, "dltensor_versioned")) {
        fp_dl_managed_versioned *m = PyCapsule_GetPointer(cap, "dltensor_versioned");
        m->deleter(m);
    }
}

static PyObject *export_capsule(fp_device_array *self, int versioned)
{
    PyObject *cap;
    if (versioned) {
        export_versioned *e = PyMem_RawCalloc(1, sizeof *e);
        if (!e)
            return PyErr_NoMemory();
        e->m.version.major = 1;
        e->m.version.minor = 0;
        e->m.manager_ctx = self;
        e->m.deleter = delete_versioned;
        describe(self, &e->m.dl_tensor, e->shape, e->strides);
        Py_INCREF(self);
        cap = PyCapsule_New(&e->m, "dltensor_versioned", capsule_versioned);
        if (!cap)
            delete_versioned(&e->m);
    } else {
        export_legacy *e = PyMem_RawCalloc(1, sizeof *e);
        if (!e)
            return PyErr_NoMemory();
        e->m.manager_ctx = self;
        e->m.deleter = delete_legacy;
        describe(self, &e->m.dl_tensor, e->shape, e->strides);
        Py_INCREF(self);
        cap = PyCapsule_New(&e->m, "dltensor", capsule_legacy);
        if (!cap)
            delete_legacy(&e->m);
    }
    return cap;
}

/* __dlpack__(*, stream=None, max_version=None, dl_device=None, copy=None):
 * the array's contents are complete, so no stream has anything to wait
 * for; a versioned capsule when max_version is 1.0 or later. */
static PyObject *array_dlpack(fp_device_array *self, PyObject *args, PyObject *kw)
{
    static char *keywords[] = {"stream", "max_version", "dl_device", "copy", NULL};
    PyObject *stream = Py_None, *max_version = Py_None, *dl_device = Py_None, *copy = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|$OOOO:__dlpack__", keywords, &stream,
                                     &max_version, &dl_device, &copy))
        return NULL;
    if (stream != Py_None && !PyLong_Check(stream)) {
        PyErr_SetString(PyExc_TypeError, "__dlpack__: stream must be an int or None");
        return NULL;
    }
    if (copy != Py_None && PyObject_IsTrue(copy) == 1) {
        PyErr_SetString(PyExc_BufferError, "DeviceArray.__dlpack__: copy=True is not supported "
                                           "(the array is shared in place)");
        return NULL;
    }
    if (dl_device != Py_None) {
        int type = 0, id = -1;
        if (!PyArg_ParseTuple(dl_device, "ii", &type, &id))
            return NULL;
        if (type != FP_DL_CUDA || id != gpu_of(self)) {
            PyErr_Format(PyExc_BufferError, "DeviceArray.__dlpack__: the array lies on (%d, %d) "
                                            "and is not copied to (%d, %d)",
                         FP_DL_CUDA, gpu_of(self), type, id);
            return NULL;
        }
    }
    int major = 0;
    if (max_version != Py_None) {
        int minor = 0;
        if (!PyArg_ParseTuple(max_version, "ii", &major, &minor))
            return NULL;
    }
    return export_capsule(self, major >= 1);
}

static PyObject *array_dlpack_device(fp_device_array *self, PyObject *noargs)
{
    return Py_BuildValue("(ii)", FP_DL_CUDA, gpu_of(self));
}

static PyObject *array_repr(fp_device_array *self)
{
    PyObject *shape = get_shape(self, NULL);
    PyObject *r = shape ? PyUnicode_FromFormat("<flowplatform.DeviceArray %R float32 on cuda:%d>",
                                               shape, gpu_of(self))
                        : NULL;
    Py_XDECREF(shape);
    return r;
}

static PyMethodDef array_methods[] = {
    {"__dlpack__", (PyCFunction)(void (*)(void))array_dlpack, METH_VARARGS | METH_KEYWORDS,
     "__dlpack__(*, stream=None, max_version=None, dl_device=None, copy=None)\n\n"
     "A DLPack capsule of the array, shared in place (torch.from_dlpack,\n"
     "cupy.from_dlpack)."},
    {"__dlpack_device__", (PyCFunction)array_dlpack_device, METH_NOARGS,
     "__dlpack_device__() -> (2, N): kDLCUDA and the GPU's number."},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef array_getset[] = {
    {"__cuda_array_interface__", (getter)get_interface, NULL,
     "The CUDA Array Interface (version 3) of the array.", NULL},
    {"shape", (getter)get_shape, NULL, "(H, W, 2) for a flow, (H, W) for a plane.", NULL},
    {"strides", (getter)get_strides, NULL,
     "Bytes per step along each axis: (4 W, 4, 4 H W) for a flow, (4 W, 4) for a plane.", NULL},
    {"dtype", (getter)get_dtype, NULL, "numpy.float32", NULL},
    {"device", (getter)get_device, NULL, "\"cuda:N\": the GPU whose memory holds the array.",
     NULL},
    {"ptr", (getter)get_ptr, NULL, "The address of element (0, 0) in the GPU's memory.", NULL},
    {"nbytes", (getter)get_nbytes, NULL, "8 H W for a flow, 4 H W for a plane.", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

PyTypeObject fp_device_array_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "flowplatform.DeviceArray",
    .tp_doc = "A flow or a plane in the GPU's memory, as Context.compute(...,\n"
              "out=\"device\") and Context.compute_both of GPU frames return them: a flow\n"
              "is H x W x 2 float32, (u, v), the plane u then the plane v (strides\n"
              "(4 W, 4, 4 H W) bytes); a plane (occlusion, confidence) H x W float32\n"
              "(strides (4 W, 4)).  Read it in place with torch.from_dlpack(a),\n"
              "cupy.from_dlpack(a) or cupy.asarray(a) (__cuda_array_interface__); its\n"
              "contents are complete when the call returns it.",
    .tp_basicsize = sizeof(fp_device_array),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_dealloc = (destructor)array_dealloc,
    .tp_repr = (reprfunc)array_repr,
    .tp_methods = array_methods,
    .tp_getset = array_getset,
};
