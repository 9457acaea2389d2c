/* video.c -- flowplatform.Video: the frames of a video file or a camera
 * through the library's reader (flow/image.h): .y4m natively in every
 * build, other formats and cameras (/dev/videoN) when it is built with
 * OpenCV.  Frames come out as read_image() gives images: float32 H x W or
 * H x W x 3 (R, G, B) on the 0..255 scale.
 *
 * The library's frame buffer is kept from frame to frame; each read()
 * returns a new array.  Reads run with the GIL released; `busy` keeps a
 * second thread out meanwhile, as in a Context. */
#include "ext.h"

typedef struct fp_video {
    PyObject_HEAD
    flow_video *video; /* NULL once closed */
    flow_image frame;  /* the library's buffer, reused */
    PyObject *source;  /* the path (str) or the camera's index (int), for repr */
    int busy;
} fp_video;

static void close_video(fp_video *self)
{
    if (self->video)
        flow_video_close(self->video);
    self->video = NULL;
    flow_image_free(&self->frame);
}

static int video_usable(const fp_video *self)
{
    if (!self->video) {
        PyErr_SetString(PyExc_ValueError, "the Video is closed");
        return -1;
    }
    if (self->busy) {
        PyErr_SetString(PyExc_RuntimeError, "the Video is reading in another thread");
        return -1;
    }
    return 0;
}

static int video_init(fp_video *self, PyObject *args, PyObject *kw)
{
    static char *keywords[] = {"source", NULL};
    PyObject *source;
    if (self->busy) {
        PyErr_SetString(PyExc_RuntimeError, "the Video is reading in another thread");
        return -1;
    }
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O:Video", keywords, &source))
        return -1;
    close_video(self);
    Py_CLEAR(self->source);
    flow_status s;
    if (PyLong_Check(source)) {
        const long index = PyLong_AsLong(source);
        if (index == -1 && PyErr_Occurred())
            return -1;
        if (index < 0 || index > 255) {
            PyErr_Format(PyExc_ValueError, "camera %ld: expected an index 0..255 (/dev/videoN)",
                         index);
            return -1;
        }
        Py_BEGIN_ALLOW_THREADS
        s = flow_video_open_camera((int)index, &self->video);
        Py_END_ALLOW_THREADS
    } else {
        PyObject *path;
        if (!PyUnicode_FSConverter(source, &path))
            return -1;
        Py_BEGIN_ALLOW_THREADS
        s = flow_video_open(PyBytes_AS_STRING(path), &self->video);
        Py_END_ALLOW_THREADS
        Py_DECREF(path);
    }
    if (s != FLOW_OK) {
        self->video = NULL;
        fp_raise(s);
        return -1;
    }
    Py_INCREF(source);
    self->source = source;
    return 0;
}

/* The next frame as a new array, or None at the end of the stream. */
static PyObject *video_read(fp_video *self, PyObject *noargs)
{
    if (video_usable(self) < 0)
        return NULL;
    flow_status s;
    int got = 0;
    self->busy = 1;
    Py_BEGIN_ALLOW_THREADS
    s = flow_video_read(self->video, &self->frame, &got);
    Py_END_ALLOW_THREADS
    self->busy = 0;
    if (s != FLOW_OK)
        return fp_raise(s);
    if (!got)
        Py_RETURN_NONE;
    return fp_image_to_array(&self->frame, 0);
}

static PyObject *video_next(fp_video *self)
{
    PyObject *frame = video_read(self, NULL);
    if (frame == Py_None) {
        Py_DECREF(frame);
        return NULL; /* StopIteration */
    }
    return frame;
}

static PyObject *video_close(fp_video *self, PyObject *noargs)
{
    if (self->busy) {
        PyErr_SetString(PyExc_RuntimeError, "the Video is reading in another thread");
        return NULL;
    }
    close_video(self);
    Py_RETURN_NONE;
}

static PyObject *video_enter(fp_video *self, PyObject *noargs)
{
    if (video_usable(self) < 0)
        return NULL;
    Py_INCREF(self);
    return (PyObject *)self;
}

static PyObject *video_exit(fp_video *self, PyObject *args)
{
    return video_close(self, NULL);
}

static void video_dealloc(fp_video *self)
{
    close_video(self);
    Py_CLEAR(self->source);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *video_repr(fp_video *self)
{
    if (!self->video)
        return PyUnicode_FromString("<flowplatform.Video (closed)>");
    return PyUnicode_FromFormat("<flowplatform.Video %R>", self->source);
}

static PyObject *get_fps(fp_video *self, void *closure)
{
    if (!self->video) {
        PyErr_SetString(PyExc_ValueError, "the Video is closed");
        return NULL;
    }
    return PyFloat_FromDouble(flow_video_fps(self->video));
}

static PyObject *get_closed(fp_video *self, void *closure)
{
    return PyBool_FromLong(!self->video);
}

static PyGetSetDef getset[] = {
    {"fps", (getter)get_fps, NULL, "Frames per second the container announces (0.0: unknown).",
     NULL},
    {"closed", (getter)get_closed, NULL, "Whether close() was called.", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyMethodDef methods[] = {
    {"read", (PyCFunction)video_read, METH_NOARGS,
     "read() -> ndarray or None\n\n"
     "The next frame (float32 H x W or H x W x 3, 0..255), or None at the end\n"
     "of the stream."},
    {"close", (PyCFunction)video_close, METH_NOARGS,
     "close()\n\nCloses the file or camera now (idempotent)."},
    {"__enter__", (PyCFunction)video_enter, METH_NOARGS, NULL},
    {"__exit__", (PyCFunction)video_exit, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL}};

PyTypeObject fp_video_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "flowplatform.Video",
    .tp_doc = "Video(source)\n\n"
              "The frames of a video: source is a path (.y4m in every build, other\n"
              "formats when flowplatform.has_opencv) or an int N, the camera\n"
              "/dev/videoN (with OpenCV).  Iterating gives the frames, as read() does,\n"
              "until the end.  A failure to open or read raises Error with the\n"
              "library's message.",
    .tp_basicsize = sizeof(fp_video),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)video_init,
    .tp_dealloc = (destructor)video_dealloc,
    .tp_repr = (reprfunc)video_repr,
    .tp_iter = PyObject_SelfIter,
    .tp_iternext = (iternextfunc)video_next,
    .tp_methods = methods,
    .tp_getset = getset,
};
