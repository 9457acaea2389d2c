/* opencv_shim.cpp -- the one C++ file of the project: images through
 * OpenCV's imgcodecs and video through its videoio, behind the C interface
 * of io/opencv_shim.h.
 *
 * Every entry point catches every C++ exception and turns it into a status
 * and a flow_last_error() message naming the file, so that no exception
 * crosses into C.  Images arrive as OpenCV's interleaved B, G, R and leave
 * as libflow's planar R, G, B floats on the 0..255 scale.  OpenCV's own
 * logging is silenced on first use (the library never prints) unless the
 * user set OPENCV_LOG_LEVEL, and so is what imread writes to std::cerr
 * itself (FFmpeg's logging too, unless OPENCV_FFMPEG_LOGLEVEL is set).
 * (libjpeg's warnings, which OpenCV leaves on stderr, are out of reach.) */
#include "io/image_formats.h"
#include "io/opencv_shim.h"
#include "base/fail.h"
#include "flow/atomic_file.h"

#include <opencv2/core.hpp>
#include <opencv2/core/utils/logger.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/videoio.hpp>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <strings.h>
#include <exception>
#include <iostream>
#include <memory>
#include <new>
#include <string>
#include <vector>

struct flow_video {
    cv::VideoCapture cap;
    std::string name; /* the path or camera, for messages */
    long frames = 0;  /* frames read so far */
    cv::Mat frame;    /* decoded frame, reused */
};

struct flow_video_writer {
    cv::VideoWriter out;
    std::string path, tmp;
    bool builtin = false; /* OpenCV's own AVI writer, not a backend's */
    int width = 0, height = 0, channels = 0;
    long frames = 0;
    cv::Mat bgr; /* the frame being written, reused */
};

/* The failure of one entry point: every exception becomes `status` (or
 * FLOW_ERR_NOMEM) with a message naming `name` and what was being done. */
#define SHIM_CATCH(status, name, doing)                                                      \
    catch (const cv::Exception &e)                                                           \
    {                                                                                        \
        return flow_fail(status, "%s: OpenCV failed while %s: %s", name, doing,              \
                         e.err.c_str());                                                     \
    }                                                                                        \
    catch (const std::bad_alloc &)                                                           \
    {                                                                                        \
        return flow_fail(FLOW_ERR_NOMEM, "%s: out of memory while %s", name, doing);         \
    }                                                                                        \
    catch (const std::exception &e)                                                          \
    {                                                                                        \
        return flow_fail(status, "%s: error while %s: %s", name, doing, e.what());           \
    }                                                                                        \
    catch (...)                                                                              \
    {                                                                                        \
        return flow_fail(status, "%s: unknown C++ exception while %s", name, doing);         \
    }

namespace {

/* Whether this thread is inside an OpenCV call of the shim that may write
 * to std::cerr (set by cerr_silenced). */
thread_local bool in_opencv = false;

/* imread writes some failures to std::cerr itself ("imread_('x.bmp'):
 * can't read header: ..."), past OpenCV's logger, before returning the
 * empty image the shim turns into a status.  std::cerr gets this buffer:
 * what a thread writes while in_opencv is dropped, everything else goes
 * on to the original buffer, so a program's own std::cerr output is
 * untouched. */
class cerr_filter : public std::streambuf
{
  public:
    explicit cerr_filter(std::streambuf *next) : next_(next) {}

  protected:
    int overflow(int c) override
    {
        if (in_opencv || traits_type::eq_int_type(c, traits_type::eof()))
            return traits_type::not_eof(c);
        return next_->sputc(traits_type::to_char_type(c));
    }
    std::streamsize xsputn(const char *s, std::streamsize n) override
    {
        return in_opencv ? n : next_->sputn(s, n);
    }
    int sync() override { return in_opencv ? 0 : next_->pubsync(); }

  private:
    std::streambuf *next_;
};

/* Marks the calling thread in_opencv for the lifetime of the object. */
struct cerr_silenced {
    cerr_silenced() { in_opencv = true; }
    ~cerr_silenced() { in_opencv = false; }
    cerr_silenced(const cerr_silenced &) = delete;
    cerr_silenced &operator=(const cerr_silenced &) = delete;
};

void quiet_opencv()
{
    static const bool done = [] {
        if (!std::getenv("OPENCV_LOG_LEVEL")) {
            cv::utils::logging::setLogLevel(cv::utils::logging::LOG_LEVEL_SILENT);
            /* never destroyed: std::cerr is flushed after static objects are */
            std::cerr.rdbuf(new cerr_filter(std::cerr.rdbuf()));
        }
        /* FFmpeg's messages ("Invalid PNG signature", ...) go straight to
         * stderr; OpenCV's FFmpeg backend reads this variable when it
         * starts (-8 is AV_LOG_QUIET).  A value the user set is kept. */
        setenv("OPENCV_FFMPEG_LOGLEVEL", "-8", 0);
        return true;
    }();
    (void)done;
}

template <typename T>
void planar_from(const cv::Mat &m, int out_channels, float scale, flow_image *img)
{
    const int w = m.cols, in_channels = m.channels();
    const size_t plane = (size_t)w * m.rows;
    for (int y = 0; y < m.rows; y++) {
        const T *row = m.ptr<T>(y);
        for (int x = 0; x < w; x++)
            for (int c = 0; c < out_channels; c++) {
                /* B, G, R[, A] in; R, G, B out */
                const int src = out_channels == 3 ? 2 - c : 0;
                img->data[c * plane + (size_t)y * w + x] =
                    (float)row[(size_t)x * in_channels + src] * scale;
            }
    }
}

/* m into img: allocated when img->data is NULL, else m must have img's size
 * (frame > 0 names the video frame in that message). */
flow_status image_from_mat(const cv::Mat &m, const char *name, double full16, long frame,
                           flow_image *img)
{
    const int ch = m.channels();
    if (ch != 1 && ch != 3 && ch != 4)
        return flow_fail(FLOW_ERR_FORMAT, "%s: decodes to %d channels (expected 1, 3 or 4)",
                         name, ch);
    const int out_ch = ch == 1 ? 1 : 3; /* alpha is dropped */
    float scale;
    switch (m.depth()) {
    case CV_8U: scale = 1.0f; break;
    case CV_16U: scale = (float)(255.0 / full16); break;
    case CV_32F:
    case CV_64F: scale = 255.0f; break;
    default:
        return flow_fail(FLOW_ERR_UNSUPPORTED,
                         "%s: samples of OpenCV depth %d (signed or 32-bit integers) are not "
                         "supported (expected 8- or 16-bit unsigned, or float)",
                         name, m.depth());
    }
    if (img->data) {
        if (img->width != m.cols || img->height != m.rows || img->channels != out_ch)
            return flow_fail(FLOW_ERR_SIZE,
                             "%s: frame %ld is %dx%d with %d channels, the stream started with "
                             "%dx%d and %d",
                             name, frame, m.cols, m.rows, out_ch, img->width, img->height,
                             img->channels);
    } else {
        FLOW_TRY(flow_io_alloc(name, img, m.cols, m.rows, out_ch));
    }
    switch (m.depth()) {
    case CV_8U: planar_from<unsigned char>(m, out_ch, scale, img); break;
    case CV_16U: planar_from<unsigned short>(m, out_ch, scale, img); break;
    case CV_32F: planar_from<float>(m, out_ch, scale, img); break;
    default: planar_from<double>(m, out_ch, scale, img); break;
    }
    return FLOW_OK;
}

/* img as 8-bit interleaved B, G, R (or gray) into m; gray is replicated to
 * three channels when `channels` is 3. */
void mat_from_image(const flow_image *img, int channels, cv::Mat &m)
{
    const int w = img->width, h = img->height;
    const size_t plane = (size_t)w * h;
    m.create(h, w, CV_8UC(channels));
    for (int y = 0; y < h; y++) {
        unsigned char *row = m.ptr<unsigned char>(y);
        for (int x = 0; x < w; x++)
            for (int c = 0; c < channels; c++) {
                const int src = img->channels == 3 ? 2 - c : 0;
                row[(size_t)x * channels + c] =
                    flow_quantize_u8(img->data[src * plane + (size_t)y * w + x]);
            }
    }
}

/* The same as float B, G, R (or gray) on 0..1, unrounded, for the formats
 * that store floats. */
void float_mat_from_image(const flow_image *img, cv::Mat &m)
{
    const int w = img->width, h = img->height, ch = img->channels;
    const size_t plane = (size_t)w * h;
    m.create(h, w, CV_32FC(ch));
    for (int y = 0; y < h; y++) {
        float *row = m.ptr<float>(y);
        for (int x = 0; x < w; x++)
            for (int c = 0; c < ch; c++) {
                const int src = ch == 3 ? 2 - c : 0;
                row[(size_t)x * ch + c] = img->data[src * plane + (size_t)y * w + x] / 255.0f;
            }
    }
}

/* Whether path names a format that stores float samples (PFM, OpenEXR,
 * Radiance HDR): written as value/255, which image_from_mat scales back. */
bool float_format(const char *path)
{
    const char *slash = std::strrchr(path, '/');
    const char *dot = std::strrchr(slash ? slash + 1 : path, '.');
    if (!dot)
        return false;
    static const char *const exts[] = {"pfm", "exr", "hdr", "pic"};
    for (const char *e : exts)
        if (strcasecmp(dot + 1, e) == 0)
            return true;
    return false;
}

/* Whether file is a chain of RIFF chunks ("RIFF", a little-endian size,
 * the payload, a pad byte after an odd size) that ends exactly at its end:
 * an AVI written whole (OpenDML files chain several). */
bool riff_whole(const char *file)
{
    std::FILE *f = std::fopen(file, "rb");
    if (!f)
        return false;
    bool whole = std::fseek(f, 0, SEEK_END) == 0;
    const long size = whole ? std::ftell(f) : -1;
    long pos = 0;
    while (whole && pos < size) {
        unsigned char h[8];
        whole = std::fseek(f, pos, SEEK_SET) == 0 && std::fread(h, 1, 8, f) == 8 &&
                std::memcmp(h, "RIFF", 4) == 0;
        const unsigned long n = (unsigned long)h[4] | (unsigned long)h[5] << 8 |
                                (unsigned long)h[6] << 16 | (unsigned long)h[7] << 24;
        pos += 8 + (long)n + (long)(n & 1);
    }
    std::fclose(f);
    return whole && size > 0 && pos == size;
}

} // namespace

extern "C" {

int flow_ocv_available(void)
{
    return 1;
}

flow_status flow_ocv_image_read(const char *path, const char *format, double full16,
                                flow_image *img)
{
    std::memset(img, 0, sizeof *img);
    try {
        quiet_opencv();
        cv::Mat m;
        {
            const cerr_silenced quiet;
            m = cv::imread(path, cv::IMREAD_ANYDEPTH | cv::IMREAD_ANYCOLOR);
        }
        if (m.empty())
            return flow_fail(FLOW_ERR_FORMAT,
                             "%s: OpenCV cannot decode this %s file (corrupt, truncated, or a "
                             "variant it does not read)",
                             path, format);
        flow_status s = image_from_mat(m, path, full16, 0, img);
        if (s != FLOW_OK)
            flow_image_free(img);
        return s;
    }
    SHIM_CATCH(FLOW_ERR_FORMAT, path, "decoding the image")
}

int flow_ocv_can_write(const char *path)
{
    try {
        quiet_opencv();
        return cv::haveImageWriter(path) ? 1 : 0;
    } catch (...) {
        return 0;
    }
}

flow_status flow_ocv_image_write(const char *path, const flow_image *img)
{
    std::vector<uchar> bytes;
    try {
        quiet_opencv();
        cv::Mat m;
        if (float_format(path))
            float_mat_from_image(img, m);
        else
            mat_from_image(img, img->channels, m);
        const cerr_silenced quiet;
        const std::string ext = std::string(".") + flow_path_extension(path);
        if (!cv::imencode(ext, m, bytes) || bytes.empty())
            return flow_fail(FLOW_ERR_IO, "%s: OpenCV could not encode the image", path);
    } catch (const cv::Exception &e) {
        return flow_fail(FLOW_ERR_IO, "%s: OpenCV failed while encoding: %s", path,
                         e.err.c_str());
    } catch (const std::bad_alloc &) {
        return flow_fail(FLOW_ERR_NOMEM, "%s: out of memory while encoding", path);
    } catch (...) {
        return flow_fail(FLOW_ERR_IO, "%s: C++ exception while encoding", path);
    }
    /* imwrite's result says nothing of the disk (a full one leaves a short
     * or empty file behind a `true`): the bytes go through the checked,
     * whole-or-nothing writer that the native formats use. */
    flow_atomic a;
    FLOW_TRY(flow_atomic_open(&a, path));
    if (std::fwrite(bytes.data(), 1, bytes.size(), a.f) != bytes.size()) {
        const int e = errno;
        flow_atomic_abort(&a);
        return flow_fail(FLOW_ERR_IO, "%s: write failed: %s", path, std::strerror(e));
    }
    return flow_atomic_commit(&a);
}

flow_status flow_ocv_video_open(const char *name, const char *path, int index,
                                flow_video **out)
{
    *out = nullptr;
    try {
        quiet_opencv();
        std::unique_ptr<flow_video> v(new flow_video);
        v->name = name;
        /* Backends by kind of source.  Files do not go through CAP_ANY,
         * which also tries camera backends (gphoto2 scans the USB bus on
         * every file it cannot open); Motion JPEG AVI has OpenCV's built-in
         * reader when FFmpeg is missing. */
        const bool device = std::strncmp(name, "/dev/", 5) == 0;
        bool ok = false;
        if (index >= 0)
            ok = v->cap.open(index, device ? cv::CAP_V4L2 : cv::CAP_ANY);
        else if (device)
            ok = v->cap.open(std::string(path), cv::CAP_V4L2);
        else
            ok = v->cap.open(std::string(path), cv::CAP_FFMPEG) ||
                 v->cap.open(std::string(path), cv::CAP_OPENCV_MJPEG);
        /* A backend may "open" a file it cannot decode (FFmpeg takes any
         * name ending in .png as a one-image stream): a file stream must
         * announce a frame size. */
        if (ok && index < 0 && (v->cap.get(cv::CAP_PROP_FRAME_WIDTH) <= 0 ||
                                v->cap.get(cv::CAP_PROP_FRAME_HEIGHT) <= 0))
            ok = false;
        if (!ok || !v->cap.isOpened()) {
            if (index >= 0)
                return flow_fail(FLOW_ERR_IO,
                                 "%s: cannot open camera %d (busy, not a capture device, or no "
                                 "camera backend in this OpenCV)",
                                 name, index);
            return flow_fail(FLOW_ERR_IO,
                             "%s: OpenCV cannot open it as a video (not a video file, or no "
                             "decoder for its codec)",
                             name);
        }
        *out = v.release();
        return FLOW_OK;
    }
    SHIM_CATCH(FLOW_ERR_IO, name, "opening the video")
}

flow_status flow_ocv_video_read(flow_video *v, flow_image *img, int *got)
{
    *got = 0;
    try {
        if (!v->cap.read(v->frame) || v->frame.empty())
            return FLOW_OK; /* the end of the stream */
        v->frames++;
        FLOW_TRY(image_from_mat(v->frame, v->name.c_str(), 65535.0, v->frames, img));
        *got = 1;
        return FLOW_OK;
    }
    SHIM_CATCH(FLOW_ERR_FORMAT, v->name.c_str(), "decoding a frame")
}

double flow_ocv_video_fps(const flow_video *v)
{
    try {
        const double fps = v->cap.get(cv::CAP_PROP_FPS);
        return fps > 0 && fps < 1e6 ? fps : 0.0;
    } catch (...) {
        return 0.0;
    }
}

void flow_ocv_video_close(flow_video *v)
{
    try {
        delete v;
    } catch (...) {
    }
}

flow_status flow_ocv_writer_open(const char *path, const char *tmp, const char *fourcc,
                                 double fps, int width, int height, int channels,
                                 flow_video_writer **out)
{
    *out = nullptr;
    try {
        quiet_opencv();
        std::unique_ptr<flow_video_writer> w(new flow_video_writer);
        w->path = path;
        w->tmp = tmp;
        w->width = width;
        w->height = height;
        w->channels = channels;
        const int code = cv::VideoWriter::fourcc(fourcc[0], fourcc[1], fourcc[2], fourcc[3]);
        const cv::Size size(width, height);
        /* Motion JPEG has OpenCV's built-in writer, present in every build. */
        bool ok = std::strcmp(fourcc, "MJPG") == 0 &&
                  w->out.open(w->tmp, cv::CAP_OPENCV_MJPEG, code, fps, size, true);
        w->builtin = ok;
        if (!ok)
            ok = w->out.open(w->tmp, cv::CAP_ANY, code, fps, size, true);
        if (!ok || !w->out.isOpened()) {
            std::remove(tmp);
            return flow_fail(FLOW_ERR_IO,
                             "%s: OpenCV cannot write a %s video here (codec or backend "
                             "missing from this OpenCV?)",
                             path, fourcc);
        }
        w->out.set(cv::VIDEOWRITER_PROP_QUALITY, 100);
        *out = w.release();
        return FLOW_OK;
    } catch (const cv::Exception &e) {
        std::remove(tmp);
        return flow_fail(FLOW_ERR_IO, "%s: OpenCV failed while opening a video writer: %s",
                         path, e.err.c_str());
    } catch (...) {
        std::remove(tmp);
        return flow_fail(FLOW_ERR_IO, "%s: C++ exception while opening a video writer", path);
    }
}

flow_status flow_ocv_writer_write(flow_video_writer *w, const flow_image *frame)
{
    if (frame->width != w->width || frame->height != w->height ||
        frame->channels != w->channels)
        return flow_fail(FLOW_ERR_SIZE,
                         "%s: frame %ld is %dx%d with %d channels, the writer was opened for "
                         "%dx%d with %d",
                         w->path.c_str(), w->frames + 1, frame->width, frame->height,
                         frame->channels, w->width, w->height, w->channels);
    try {
        mat_from_image(frame, 3, w->bgr);
        w->out.write(w->bgr);
        w->frames++;
        return FLOW_OK;
    }
    SHIM_CATCH(FLOW_ERR_IO, w->path.c_str(), "writing a frame")
}

flow_status flow_ocv_writer_close(flow_video_writer *w, int keep)
{
    std::unique_ptr<flow_video_writer> owned(w);
    const char *path = w->path.c_str();
    try {
        w->out.release();
    } catch (const cv::Exception &e) {
        std::remove(w->tmp.c_str());
        return flow_fail(FLOW_ERR_IO, "%s: OpenCV failed while finishing the video: %s", path,
                         e.err.c_str());
    } catch (...) {
        std::remove(w->tmp.c_str());
        return flow_fail(FLOW_ERR_IO, "%s: C++ exception while finishing the video", path);
    }
    if (!keep) {
        std::remove(w->tmp.c_str());
        return FLOW_OK;
    }
    if (w->frames == 0) {
        std::remove(w->tmp.c_str());
        return flow_fail(FLOW_ERR_INVALID, "%s: no frame was written, so no video was created",
                         path);
    }
    const flow_status s = flow_ocv_video_verify(path, w->tmp.c_str(), w->builtin, w->frames);
    if (s != FLOW_OK) {
        std::remove(w->tmp.c_str());
        return s;
    }
    return flow_atomic_rename(w->tmp.c_str(), path);
}

flow_status flow_ocv_video_verify(const char *path, const char *file, int riff, long frames)
{
    if (riff) {
        /* OpenCV's AVI writer patches the RIFF sizes last: a file cut short
         * has chunks that do not cover it (its reader would say so on
         * stderr, which the library leaves alone) */
        return riff_whole(file)
                   ? FLOW_OK
                   : flow_fail(FLOW_ERR_IO,
                               "%s: write failed: the AVI file is incomplete (its RIFF chunks "
                               "do not cover it; disk full?)",
                               path);
    }
    try {
        quiet_opencv();
        cv::VideoCapture cap;
        /* the index or trailer a container writes last is missing from a
         * file cut short: its reader refuses it or counts fewer frames */
        const bool opened = cap.open(std::string(file), cv::CAP_ANY) && cap.isOpened();
        const double counted = opened ? cap.get(cv::CAP_PROP_FRAME_COUNT) : 0.0;
        if (!opened || (counted > 0 && counted < (double)frames))
            return flow_fail(FLOW_ERR_IO,
                             "%s: write failed: the video does not read back whole (%.0f of "
                             "%ld frames; disk full?)",
                             path, counted, frames);
        return FLOW_OK;
    }
    SHIM_CATCH(FLOW_ERR_IO, path, "reading the written video back")
}

} // extern "C"
