/* module.c -- the extension module flowplatform._flowplatform: its function
 * table, its exceptions, and the mapping of libflow's failures onto them.
 * The package flowplatform (python/flowplatform/__init__.py) re-exports
 * what is here and adds compute() and the ErrorStats tuple. */
#define FLOWPLATFORM_IMPORTS_NUMPY
#include "ext.h"

#include <string.h>

PyObject *fp_error;
PyObject *fp_parameter_error;

PyObject *fp_raise_message(PyObject *type, flow_status s, PyObject *message)
{
    if (!message)
        return NULL;
    PyObject *e = PyObject_CallOneArg(type, message);
    Py_DECREF(message);
    if (!e)
        return NULL;
    PyObject *status = PyUnicode_FromString(flow_status_str(s));
    if (status && PyObject_SetAttrString(e, "status", status) == 0)
        PyErr_SetObject(type, e);
    Py_XDECREF(status);
    Py_DECREF(e);
    return NULL;
}

PyObject *fp_raise_as(PyObject *type, flow_status s)
{
    const char *detail = flow_last_error();
    if (!detail || !*detail)
        detail = flow_status_str(s);
    return fp_raise_message(type, s,
                            PyUnicode_DecodeUTF8(detail, (Py_ssize_t)strlen(detail),
                                                 "backslashreplace"));
}

const char *fp_text(PyObject *str, const char *what)
{
    Py_ssize_t n;
    const char *text = PyUnicode_AsUTF8AndSize(str, &n);
    if (text && strlen(text) != (size_t)n) {
        fp_raise_message(fp_parameter_error, FLOW_ERR_INVALID,
                         PyUnicode_FromFormat("%s: %R has a NUL character", what, str));
        return NULL;
    }
    return text;
}

PyObject *fp_raise(flow_status s)
{
    return fp_raise_as(fp_error, s);
}

static int add_bool(PyObject *m, const char *name, int value)
{
    return PyModule_AddObjectRef(m, name, value ? Py_True : Py_False);
}

static PyMethodDef functions[] = {
    {"methods", fp_methods, METH_NOARGS,
     "methods() -> list of str\n\nThe methods of the library, in the order of its registry."},
    {"schema", fp_schema, METH_VARARGS,
     "schema(method) -> dict\n\n"
     "The method's name, title, whether it is the default (is_default) and its\n"
     "parameters (params): a list of dicts with name, type ('real', 'int',\n"
     "'bool' or 'choice'), default, min, max, min_open, max_open, odd, choices,\n"
     "help and when (the setting under which the parameter has an effect, in\n"
     "words, or None)."},
    {"applies", (PyCFunction)(void (*)(void))fp_applies, METH_VARARGS | METH_KEYWORDS,
     "applies(method, **params) -> list of str\n\n"
     "The names of the method's parameters that have an effect under these\n"
     "values (the others' defaults), in the schema's order: the others are\n"
     "those a Context would refuse to be given.  Values out of range raise\n"
     "ParameterError."},
    {"read_params", fp_read_params, METH_VARARGS,
     "read_params(path) -> (method, dict)\n\n"
     "Reads a .params file (flow-compute -p's): the method (the default one\n"
     "when the file names none) and every parameter's value.  A malformed\n"
     "file raises ParameterError naming file:line."},
    {"read_flow", fp_read_flow, METH_VARARGS,
     "read_flow(path) -> ndarray\n\n"
     "Reads a flow file in any format of flow_formats() (from the\n"
     "extension) into an H x W x 2 float32 array of (u, v).  Unknown\n"
     "vectors read as they are stored (.F markers and KITTI invalid pixels\n"
     "as 1e10)."},
    {"write_flow", fp_write_flow, METH_VARARGS,
     "write_flow(path, flow)\n\n"
     "Writes an H x W x 2 float array of (u, v) in the format of the\n"
     "extension (flow_formats()), through a temporary file: a failed write\n"
     "leaves no file.  KITTI .png rounds to 1/64 px and refuses a component\n"
     "outside -512 .. 511.984375 (Error naming the pixel)."},
    {"flow_formats", fp_flow_formats, METH_NOARGS,
     "flow_formats() -> list of (extension, name, description)\n\n"
     "The flow file formats, as `flow-tool formats` lists them; the extension\n"
     "has no dot and is matched in any letter case."},
    {"read_image", fp_read_image, METH_VARARGS,
     "read_image(path) -> ndarray\n\n"
     "Reads an image: H x W (gray) or H x W x 3 (R, G, B) float32 on the\n"
     "0..255 scale, as the library computes on (16-bit files scaled)."},
    {"write_image", fp_write_image, METH_VARARGS,
     "write_image(path, image)\n\n"
     "Writes an H x W or H x W x 3 (R, G, B) uint8 or float32 (0..255) image:\n"
     ".png, .pgm, .ppm (and with OpenCV whatever it writes)."},
    {"error", (PyCFunction)(void (*)(void))fp_error_stats, METH_VARARGS | METH_KEYWORDS,
     "error(est, gt, mask=None, invalid=None, occlusions=None, noc=None, objmap=None) -> dict\n\n"
     "The figures of `flow-tool error` (see flowplatform.error)."},
    {"sparsification", (PyCFunction)(void (*)(void))fp_sparsification,
     METH_VARARGS | METH_KEYWORDS,
     "sparsification(est, gt, confidence, mask=None, invalid=None, steps=100) -> dict\n\n"
     "The sparsification of the endpoint error by a confidence map and AUSE,\n"
     "as `flow-tool error --confidence` (see flowplatform.sparsification)."},
    {"occlusion_score", (PyCFunction)(void (*)(void))fp_occlusion_score,
     METH_VARARGS | METH_KEYWORDS,
     "occlusion_score(estimate, truth, keep=None) -> dict\n\n"
     "Precision, recall and F1 of an occlusion estimate (see\n"
     "flowplatform.occlusion_score)."},
    {"occlusion_to_rgb", (PyCFunction)(void (*)(void))fp_occlusion_to_rgb,
     METH_VARARGS | METH_KEYWORDS,
     "occlusion_to_rgb(frame, mask) -> ndarray\n\n"
     "An occlusion mask over the frame as an H x W x 3 uint8 image, as\n"
     "`flow-tool occlusion` draws it: the frame (H x W or H x W x 3) in grey at\n"
     "half brightness, the pixels where mask (H x W bool or integer) is set red.\n"
     "A panel for montage()."},
    {"confidence_to_rgb", (PyCFunction)(void (*)(void))fp_confidence_to_rgb,
     METH_VARARGS | METH_KEYWORDS,
     "confidence_to_rgb(confidence, colour=False, key=True) -> ndarray\n\n"
     "A confidence map (H x W, values in [0, 1]) as an H x W x 3 uint8 image, as\n"
     "`flow-tool confidence` draws it: grey, black 0 to white 1, or with colour\n"
     "the error maps' \"hot\" ramp; with key its key in the top-right corner\n"
     "(left out where it does not fit).  A panel for montage()."},
    {"flow_to_color", (PyCFunction)(void (*)(void))fp_flow_to_color,
     METH_VARARGS | METH_KEYWORDS,
     "flow_to_color(flow, max=None) -> ndarray\n\n"
     "The Middlebury colour coding of an H x W x 2 flow as an H x W x 3 uint8\n"
     "R, G, B image, as `flow-tool color` writes it: the hue is the direction,\n"
     "the saturation the length divided by max (default: the largest known\n"
     "length); unknown vectors are black."},
    {"color_legend", fp_color_legend, METH_VARARGS,
     "color_legend(size=256) -> ndarray\n\n"
     "The key of flow_to_color: a size x size x 3 uint8 picture (size 32..4096)\n"
     "of the colour wheel, the colour of every vector of length up to max\n"
     "inside the disc, as `flow-tool legend` draws it."},
    {"flow_to_vectors", (PyCFunction)(void (*)(void))fp_flow_to_vectors,
     METH_VARARGS | METH_KEYWORDS,
     "flow_to_vectors(flow, background=None, step=0, scale=None, max=None) -> ndarray\n\n"
     "A vector (quiver) plot of an H x W x 2 flow as an H x W x 3 uint8 image,\n"
     "as `flow-tool vectors` draws it: black arrows on white, or yellow arrows\n"
     "outlined in black over background (a frame, H x W or H x W x 3).  One\n"
     "arrow every step pixels (0: about 18 across the smaller side); scale:\n"
     "arrow length per pixel of motion (None: the longest vector, or max,\n"
     "drawn 0.9 step long).  Unknown vectors get no arrow."},
    {"montage", (PyCFunction)(void (*)(void))fp_montage, METH_VARARGS | METH_KEYWORDS,
     "montage(panels, columns=0, title=None) -> ndarray\n\n"
     "Pictures side by side, as `flow-tool montage` lays them out: panels is a\n"
     "list (1..64) of images (H x W or H x W x 3, uint8 or float32, any sizes)\n"
     "or of (image, label) pairs; columns 0 lays out up to 4 in a row, else\n"
     "ceil(n / 2) columns.  Labels above the panels, the title above all, on\n"
     "white; returns an H x W x 3 uint8 image."},
    {"warp", (PyCFunction)(void (*)(void))fp_warp, METH_VARARGS | METH_KEYWORDS,
     "warp(frame2, flow, fill=0.0) -> (warped, known)\n\n"
     "The second frame warped back onto the first along flow (frame 1 ->\n"
     "frame 2), as `flow-tool warp`: warped(x) = frame2(x + flow(x)), bilinear,\n"
     "float32 of frame2's shape; where the flow is unknown or x + flow(x)\n"
     "leaves the frame, fill, and known (an H x W bool array) False."},
    {"photometric_error", (PyCFunction)(void (*)(void))fp_photometric_error,
     METH_VARARGS | METH_KEYWORDS,
     "photometric_error(frame1, frame2, flow) -> (error, mean)\n\n"
     "|frame1 - frame2 warped back along flow|, the mean over the channels, on\n"
     "the frames' 0..255 scale: an H x W float32 array, NaN where warp() leaves\n"
     "the pixel unknown, and its mean over the known pixels."},
    {"fb_check", (PyCFunction)(void (*)(void))fp_fb_check, METH_VARARGS | METH_KEYWORDS,
     "fb_check(forward, backward, threshold=1.0) -> (checked, stats)\n\n"
     "The forward-backward check of `flow-tool fb-check`: forward (frame 1 ->\n"
     "frame 2) with every vector that backward (frame 2 -> frame 1) does not\n"
     "bring back within threshold pixels marked unknown (1e10), and the counts:\n"
     "total, kept, unknown_fwd, outside, unknown_bwd, inconsistent, density."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "flowplatform._flowplatform",
    .m_doc = "libflow for Python: the C extension under the package flowplatform.",
    .m_size = -1,
    .m_methods = functions,
};

PyMODINIT_FUNC PyInit__flowplatform(void)
{
    import_array();
    if (PyType_Ready(&fp_context_type) < 0 || PyType_Ready(&fp_spread_type) < 0
        || PyType_Ready(&fp_video_type) < 0
        || PyType_Ready(&fp_tracker_type) < 0 || PyType_Ready(&fp_device_array_type) < 0
        || PyType_Ready(&fp_device_handle_type) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (!m)
        return NULL;
    fp_error = PyErr_NewExceptionWithDoc(
        "flowplatform.Error",
        "A failure reported by libflow; str() is the library's message and the\n"
        "attribute status the name of its status (\"input/output error\", ...).",
        PyExc_RuntimeError, NULL);
    PyObject *bases = fp_error ? PyTuple_Pack(2, fp_error, PyExc_ValueError) : NULL;
    fp_parameter_error = bases ? PyErr_NewExceptionWithDoc(
                                     "flowplatform.ParameterError",
                                     "An unknown method or parameter, or a parameter value "
                                     "out of range.",
                                     bases, NULL)
                               : NULL;
    Py_XDECREF(bases);
    if (!fp_parameter_error || PyModule_AddObjectRef(m, "Error", fp_error) < 0
        || PyModule_AddObjectRef(m, "ParameterError", fp_parameter_error) < 0
        || PyModule_AddObjectRef(m, "Context", (PyObject *)&fp_context_type) < 0
        || PyModule_AddObjectRef(m, "Spread", (PyObject *)&fp_spread_type) < 0
        || PyModule_AddObjectRef(m, "Video", (PyObject *)&fp_video_type) < 0
        || PyModule_AddObjectRef(m, "Tracker", (PyObject *)&fp_tracker_type) < 0
        || PyModule_AddObjectRef(m, "DeviceArray", (PyObject *)&fp_device_array_type) < 0
        || PyModule_AddIntConstant(m, "TRACK_TRACKED", FLOW_TRACK_TRACKED) < 0
        || PyModule_AddIntConstant(m, "TRACK_LOST", FLOW_TRACK_LOST) < 0
        || PyModule_AddIntConstant(m, "TRACK_NEW", FLOW_TRACK_NEW) < 0
        || PyModule_AddStringConstant(m, "version", flow_version()) < 0
        || PyModule_AddStringConstant(m, "default_method", flow_method_default()) < 0
        || add_bool(m, "has_cuda", flow_device_has_cuda()) < 0
        || add_bool(m, "has_opencv", flow_image_has_opencv()) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
