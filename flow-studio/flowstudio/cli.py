"""cli.py -- flow-studio's command line: the options, --help and --version
in the layout of the other tools (their man pages are made from it), the
checks before the server starts, and the server's life until Ctrl-C."""
import getopt
import os
import signal
import sys
import threading
import webbrowser

import flowplatform as fp

from .catalog import VIDEO_NATIVE, VIDEO_OPENCV, Catalog
from .engine import Engine
from .server import Server

PROG = "flow-studio"
EXIT_OK, EXIT_USAGE, EXIT_IO, EXIT_COMPUTE = 0, 1, 2, 3

USAGE = f"""Usage: {PROG} [options] [DIR ...]
"""

HELP = USAGE + f"""Explores the parameters of libflow's methods in a web browser: a local
server whose page recomputes the flow of a pair as a method's parameters
move, and shows it as colour coding with its key, as arrows over the
frame and, where there is ground truth, as an error map with AAE and AEE,
with the time of the computation.  Two parameter sets compare side by
side; a set saves as a .params file that flow-compute -p reproduces
exactly; the live mode plays the flow of consecutive frames of a
sequence, a video or a camera at the speed of the device.

Sequences:
  DIR                  where to look for them [.]: DIR/sequences/dst (the
                       pipeline's sequences) and DIR/../shared/data when
                       they exist; else DIR as a sequences/dst or one
                       sequence of it; else DIR's images, grouped into
                       sequences with their ground truth as make import
                       groups them; and the videos under DIR
      --video FILE     also offer this video for the live mode: .y4m, other
                       formats through OpenCV when built with it
      --camera N       also offer camera N (/dev/videoN) for the live mode,
                       through OpenCV
Server:
  -p, --port N         TCP port on 127.0.0.1, 0 for a free one [0]
  -d, --device D       auto, cpu, cuda or cuda:N [auto: CUDA when a GPU is
                       usable, else the CPU with a notice]: the device the
                       page starts on (the page can change it)
      --timeout S      seconds a connection may stay silent while it sends
                       a request before it is closed [30]
      --open           open the page in the web browser
  -q, --quiet          print the page's address alone
  -v, --verbose        log every request on stderr
  -h, --help           this help
  -V, --version        version, backends and I/O built in

The server listens on 127.0.0.1 only and prints the page's address
(http://127.0.0.1:PORT/) on stdout; it serves until Ctrl-C.  Its API
answers the page it serves alone: requests from other sites' pages are
refused.  A value the library refuses, or a file it cannot read, is shown
on the page with the library's message.  docs/flow-studio.md describes the
page.
Exit status: 0 ok, 1 usage, 2 input/output (a DIR or --video that does not
exist, the port taken), 3 device failure (the --device cannot be opened);
Ctrl-C and SIGTERM stop the server with 0.

Examples:
  {PROG}                               # sequences/dst and ../shared/data
  {PROG} --port 8080 --open ~/frames
  {PROG} --device cuda --video clip.y4m --camera 0
"""


def say(message):
    print(f"{PROG}: {message}", file=sys.stderr)


def usage_error(message):
    say(message)
    sys.stderr.write(USAGE + f"Try '{PROG} --help' for more.\n")
    return EXIT_USAGE


def version():
    backends = "cpu, cuda" if fp.has_cuda else "cpu"
    videos = ", ".join(VIDEO_NATIVE + (VIDEO_OPENCV if fp.has_opencv else ()))
    return (f"{PROG} {fp.__version__} (libflow {fp.__version__})\n"
            f"backends: {backends}\n"
            f"OpenCV: {'yes (all image formats, video files, cameras)' if fp.has_opencv else 'no'}\n"
            f"videos: {videos}\n")


def number(option, text, low, high):
    try:
        n = int(text)
    except ValueError:
        raise ValueError(f"{option}: '{text}' is not an integer") from None
    if not low <= n <= high:
        raise ValueError(f"{option}: {n} is out of range ({low} to {high})")
    return n


def parse(argv):
    """The options as a dict, or an int: the exit status (help, version, usage)."""
    try:
        opts, dirs = getopt.gnu_getopt(argv, "p:d:qvhV", ["port=", "device=", "video=", "camera=",
                                                          "timeout=", "open", "quiet", "verbose",
                                                          "help", "version"])
    except getopt.GetoptError as e:
        return usage_error(str(e))
    o = {"port": 0, "device": "auto", "videos": [], "cameras": [], "timeout": 30, "open": False,
         "quiet": False, "verbose": False, "dirs": dirs or ["."]}
    try:
        for k, v in opts:
            if k in ("-h", "--help"):
                sys.stdout.write(HELP)
                return EXIT_OK
            if k in ("-V", "--version"):
                sys.stdout.write(version())
                return EXIT_OK
            if k in ("-p", "--port"):
                o["port"] = number(k, v, 0, 65535)
            elif k in ("-d", "--device"):
                o["device"] = v
            elif k == "--video":
                o["videos"].append(v)
            elif k == "--camera":
                o["cameras"].append(number(k, v, 0, 255))
            elif k == "--timeout":
                o["timeout"] = number(k, v, 1, 3600)
            elif k == "--open":
                o["open"] = True
            elif k in ("-q", "--quiet"):
                o["quiet"] = True
            elif k in ("-v", "--verbose"):
                o["verbose"] = True
    except ValueError as e:
        return usage_error(str(e))
    if o["quiet"] and o["verbose"]:
        return usage_error("--quiet and --verbose contradict each other")
    return o


def check_inputs(o):
    """EXIT_OK, or the exit status of a DIR or --video that is not there."""
    for d in o["dirs"]:
        if not os.path.isdir(d):
            say(f"{d}: not a directory")
            return EXIT_IO
    for v in o["videos"]:
        if not os.path.isfile(v):
            say(f"{v}: no such video file")
            return EXIT_IO
    return EXIT_OK


def check_device(o):
    """Opens the device once, as the tools do: a device that cannot be
    opened is an error, a fall back to the CPU a notice."""
    try:
        with fp.Context(device=o["device"]) as ctx:
            if ctx.notice and not o["quiet"]:
                say(f"notice: {ctx.notice}")
    except fp.ParameterError as e:
        return usage_error(f"--device: {e}")
    except fp.Error as e:
        say(f"--device {o['device']}: {e}")
        return EXIT_COMPUTE
    return EXIT_OK


def seq_scan_script():
    """scripts/seq-scan.sh: beside the package when installed, in the
    project's scripts/ in a checkout."""
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for path in (os.path.join(here, "seq-scan.sh"),
                 os.path.join(here, "..", "scripts", "seq-scan.sh")):
        if os.path.isfile(path):
            return os.path.normpath(path)
    return os.path.join(here, "seq-scan.sh")  # missing: the catalog says so


def main(argv=None):
    o = parse(sys.argv[1:] if argv is None else argv)
    if isinstance(o, int):
        return o
    status = check_inputs(o) or check_device(o)
    if status:
        return status
    catalog = Catalog([os.path.abspath(d) for d in o["dirs"]], seq_scan_script(),
                      [os.path.abspath(v) for v in o["videos"]], o["cameras"])
    try:
        server = Server(o["port"], catalog, Engine(catalog, o["device"]), o["timeout"],
                        o["verbose"])
    except OSError as e:
        say(f"port {o['port']} on 127.0.0.1: {e.strerror or e}")
        return EXIT_IO
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    print(url if o["quiet"] else f"{PROG}: serving {url} (Ctrl-C stops)", flush=True)
    if o["open"]:
        webbrowser.open(url)
    # SIGTERM stops as Ctrl-C does; shutdown() waits for serve_forever, so
    # it is called from a thread of its own
    signal.signal(signal.SIGTERM, lambda *_: threading.Thread(target=server.stop).start())
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        server.stopping.set()
        server.engine.close()
    server.server_close()
    if not o["quiet"]:
        say("stopped")
    return EXIT_OK
