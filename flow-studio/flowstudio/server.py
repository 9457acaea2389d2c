"""server.py -- the HTTP server: the page's static files and its JSON API,
on 127.0.0.1 only.

    GET  /api/info                 version, methods, devices, the error map's ramp
    GET  /api/sequences            the catalog: sequences, pairs, ground truth, presets
    GET  /api/schema?method=M      a method's parameter schema, and which apply by default
    GET  /api/frame?sequence=S&index=I    a frame as PNG
    GET  /api/legend.png           the colour coding's key
    POST /api/compute              one or two parameter sets on a pair (engine.py)
    GET  /api/download?client=C&result=R&kind=flo|params   a result's flow or .params
    POST /api/params/read          a .params file's text: {method, params, active}
    GET  /api/params/preset?sequence=S&name=N   a sequence's own .params, read
    GET  /api/live?client=C&q=JSON live flows as server-sent events (live.py)
    POST /api/live/stop            stops the page's live stream

A request the server cannot serve is answered with status 400 and
{"error": message}, the message being the library's where the library
refused (a value out of range, a file it cannot read); a failure of the
server's own is 500 with its message, and the server goes on.

Only the studio's own page may use the API.  Requests whose Host is not
this server's are refused (403), so that a web page that rebinds a name of
its own to 127.0.0.1 cannot use it.  An API request is refused (403) when
its Origin or Referer is another site's, when the browser says it comes
from another site (Sec-Fetch-Site), or when it lacks the token the server
draws at its start and writes into the page (index.html): other sites'
pages cannot read it.  The token comes in the header X-Flow-Studio-Token,
or for a GET in the query (token=T: images, links and event streams cannot
set headers).  A POST must be application/json (415): a form or a text/plain
body, which a page of any site can send without asking, is refused.  A
connection that sends nothing for the timeout is closed (408 when a body
stopped coming), so that stalled requests do not hold threads.
"""
import hmac
import mimetypes
import os
import secrets
import sys
import tempfile
import threading
import traceback
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

import flowplatform as fp

from . import engine as engine_mod
from . import pictures
from .catalog import PARAMS_FILES, CatalogError
from .live import Stream
from .wire import json_object, sse, to_json

STATIC = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "static")
# The largest request body: a .params file is a few hundred bytes.
MAX_BODY = 1 << 20
# A larger body is read and thrown away up to this size before the refusal.
MAX_DRAINED = 64 << 20
LEGEND_SIZE = 160
# The header that carries the page's token, and the query field of a GET's.
TOKEN_HEADER = "X-Flow-Studio-Token"
TOKEN_FIELD = "token"
# Connections waiting to be accepted: socketserver's 5 resets some of the
# requests a page or a script sends at once.
LISTEN_BACKLOG = 128

# What a bad request raises: answered 400 with its message.
BAD_REQUEST = (fp.Error, ValueError, TypeError, CatalogError, engine_mod.RequestError)


class HttpError(Exception):
    """An answer other than 200: its status and message."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status = status


def _query(url):
    return {k: v[-1] for k, v in parse_qs(urlsplit(url).query, keep_blank_values=True).items()}


def _field(q, name):
    if name not in q:
        raise HttpError(400, f"missing query parameter {name!r}")
    return q[name]


def _int_field(q, name):
    text = _field(q, name)
    try:
        return int(text)
    except ValueError:
        raise HttpError(400, f"{name} must be an integer, not {text!r}") from None


class Handler(BaseHTTPRequestHandler):
    server_version = "flow-studio"
    protocol_version = "HTTP/1.1"

    # ---- plumbing ----------------------------------------------------------

    def setup(self):
        self.timeout = self.server.request_timeout  # the socket's, set by setup()
        super().setup()

    def log_message(self, fmt, *args):
        if self.server.verbose:
            sys.stderr.write(f"flow-studio: {self.address_string()} {fmt % args}\n")

    def _send(self, status, body, content_type, extra=()):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-cache")
        for k, v in extra:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def _json(self, obj, status=200):
        self._send(status, to_json(obj), "application/json")

    def _body(self):
        length = self.headers.get("Content-Length")
        if length is None or not length.isdigit():
            raise HttpError(411, "a request body needs its Content-Length")
        if int(length) > MAX_BODY:
            # read it away, up to a point, so that the client hears the answer
            # rather than a connection reset in the middle of its sending
            left = int(length) if int(length) <= MAX_DRAINED else 0
            while left > 0:
                chunk = self.rfile.read(min(left, 1 << 16))
                if not chunk:  # the client stopped sending
                    break
                left -= len(chunk)
            self.body_read = left == 0 and int(length) <= MAX_DRAINED
            raise HttpError(413, f"request body of {length} bytes: at most {MAX_BODY}")
        raw = self.rfile.read(int(length))
        self.body_read = len(raw) == int(length)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            raise HttpError(400, f"the request body is not JSON: {e}") from None
        return json_object(text, "the request body")

    def _host_ok(self):
        host = self.headers.get("Host", "")
        port = self.server.server_address[1]
        return host in (f"127.0.0.1:{port}", f"localhost:{port}")

    def _caller_ok(self):
        """Refuses (HttpError) an API request that another site's page made,
        or that does not show the page's token."""
        own = f"http://{self.headers.get('Host')}"
        origin = self.headers.get("Origin")
        if origin is not None and origin != own:
            raise HttpError(403, f"a request from {origin!r}: the API serves its own page alone")
        site = self.headers.get("Sec-Fetch-Site")
        if site not in (None, "same-origin", "none"):
            raise HttpError(403, f"a {site} request: the API serves its own page alone")
        referer = self.headers.get("Referer")
        if referer is not None and referer != own and not referer.startswith(own + "/"):
            raise HttpError(403, "a request from another page: the API serves its own page alone")
        token = self.headers.get(TOKEN_HEADER)
        if token is None and self.command == "GET":
            token = _query(self.path).get(TOKEN_FIELD)
        if token is None or not hmac.compare_digest(token.encode(), self.server.token.encode()):
            raise HttpError(403, f"the page's token is {'wrong' if token else 'missing'}: "
                                 "reload the page")
        kind = self.headers.get("Content-Type", "").split(";")[0].strip().lower()
        if self.command == "POST" and kind != "application/json":
            raise HttpError(415, f"a request body is application/json, not {kind or 'untyped'}")

    def _dispatch(self, routes):
        path = urlsplit(self.path).path
        self.body_read = False
        try:
            if not self._host_ok():
                raise HttpError(403, f"Host {self.headers.get('Host')!r} is not this server")
            if path.startswith("/api/"):
                self._caller_ok()
            route = routes.get(path)
            if route is None:
                if self.command == "GET" and (path == "/" or path.startswith("/static/")):
                    return self._static(path)
                if path in self.GET_ROUTES or path in self.POST_ROUTES:
                    raise HttpError(405, f"{self.command} is not how {path} is asked for")
                raise HttpError(404, f"no such page: {path}")
            route(self)
        except HttpError as e:
            if self.command == "POST" and not self.body_read:  # no next request after it
                self.close_connection = True
            self._json({"error": str(e)}, e.status)
        except BAD_REQUEST as e:
            self._json({"error": str(e)}, 400)
        except TimeoutError:  # the body stopped coming
            self.close_connection = True
            self._json({"error": f"the request stopped: nothing of it came for {self.timeout:g} s"},
                       408)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True
        except Exception as e:  # a failure of the server's own: said, and the server goes on
            traceback.print_exc(file=sys.stderr)
            self._json({"error": f"internal error: {type(e).__name__}: {e}"}, 500)

    def do_GET(self):
        self._dispatch(self.GET_ROUTES)

    def do_POST(self):
        self._dispatch(self.POST_ROUTES)

    def _static(self, path):
        name = "index.html" if path == "/" else path[len("/static/"):]
        if name not in self.server.static_files:
            raise HttpError(404, f"no such page: {path}")
        with open(os.path.join(STATIC, name), "rb") as f:
            body = f.read()
        if name == "index.html":
            body = body.replace(b"@TOKEN@", self.server.token.encode("ascii"))
        kind = mimetypes.guess_type(name)[0] or "application/octet-stream"
        if kind.startswith("text/") or kind.endswith("javascript"):
            kind += "; charset=utf-8"
        # no other site's page may frame it (and have it clicked unseen)
        self._send(200, body, kind, [("Content-Security-Policy", "frame-ancestors 'none'")])

    # ---- the API -----------------------------------------------------------

    def info(self):
        devices = ["auto", "cpu"] + (["cuda"] if fp.has_cuda else [])
        self._json({"version": fp.__version__, "methods": fp.methods(),
                    "default_method": fp.default_method, "device": self.server.engine.device,
                    "devices": devices, "has_cuda": fp.has_cuda, "has_opencv": fp.has_opencv,
                    "error_ramp": pictures.ERROR_RAMP, "not_scored": pictures.NOT_SCORED})

    def sequences(self):
        self._json(self.server.catalog.describe())

    def schema(self):
        method = _field(_query(self.path), "method")
        out = fp.schema(method)
        out["active"] = fp.applies(method)
        self._json(out)

    def frame(self):
        q = _query(self.path)
        source = self.server.catalog.get(_field(q, "sequence"))
        index = _int_field(q, "index")
        if source.kind != "frames" or not 0 <= index < len(source.frames):
            raise HttpError(400, f"{source.name} has no frame {index}")
        image = self.server.catalog.image(source.frames[index])
        self._send(200, pictures.png(pictures.to_bytes(image)), "image/png")

    def legend(self):
        self._send(200, pictures.png(fp.color_legend(LEGEND_SIZE)), "image/png")

    def compute(self):
        out, ok = self.server.engine.compute(self._body())
        self._json(out, 200 if ok else 400)

    def download(self):
        q = _query(self.path)
        session = self.server.engine.session(_field(q, "client"))
        result = session.result(_field(q, "result"))
        kind = _field(q, "kind")
        if kind == "params":
            body = result["params"].encode("utf-8")
            name, content_type = result["name"] + ".params", "text/plain; charset=utf-8"
        elif kind == "flo":
            with tempfile.TemporaryDirectory(prefix="flow-studio-") as d:
                path = os.path.join(d, "flow.flo")
                fp.write_flow(path, result["flow"])
                with open(path, "rb") as f:
                    body = f.read()
            name, content_type = result["name"] + ".flo", "application/octet-stream"
        else:
            raise HttpError(400, f"kind must be flo or params, not {kind!r}")
        self._send(200, body, content_type,
                   [("Content-Disposition", f'attachment; filename="{name}"')])

    def _read_params(self, path, shown_as):
        try:
            method, values = fp.read_params(path)
        except fp.Error as e:  # the message names the file: by the name the page knows
            raise HttpError(400, str(e).replace(path, shown_as)) from None
        self._json({"method": method, "params": values, "active": fp.applies(method, **values)})

    def params_read(self):
        body = self._body()
        text, name = body.get("text"), body.get("name") or "uploaded.params"
        if not isinstance(text, str) or not isinstance(name, str):
            raise HttpError(400, "text and name must be strings")
        with tempfile.TemporaryDirectory(prefix="flow-studio-") as d:
            path = os.path.join(d, "uploaded.params")
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
            self._read_params(path, os.path.basename(name))

    def params_preset(self):
        q = _query(self.path)
        source = self.server.catalog.get(_field(q, "sequence"))
        name = _field(q, "name")
        if name not in source.presets:
            raise HttpError(400, f"{source.name} has no parameter file {name!r}")
        catalog = self.server.catalog
        path = catalog.entry(source.presets[name], PARAMS_FILES, "a .params file")
        self._read_params(path, catalog.name_of(path))

    def live(self):
        q = _query(self.path)
        session = self.server.engine.session(_field(q, "client"))
        req = json_object(_field(q, "q"), "q")
        source = self.server.catalog.get(req.get("sequence"))
        device = self.server.engine.device_of(req)
        color_max, error_max = engine_mod.scales(req)
        stop = threading.Event()
        with session.guard:
            if session.live:
                session.live.set()
            session.live = stop
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        self.connection.settimeout(None)  # the page may take its time to draw

        def send(kind, obj):
            self.wfile.write(sse(kind, obj))
            self.wfile.flush()

        stopped = _Either(stop, self.server.stopping)  # this stream's end, or the server's
        Stream(send, self.server.catalog, source, stopped).run(
            req.get("method"), req.get("params", {}), device, color_max, error_max)
        if not stopped.is_set():
            send("end", {})

    def live_stop(self):
        session = self.server.engine.session(self._body().get("client"))
        with session.guard:
            if session.live:
                session.live.set()
        self._json({})

    GET_ROUTES = {"/api/info": info, "/api/sequences": sequences, "/api/schema": schema,
                  "/api/frame": frame, "/api/legend.png": legend, "/api/download": download,
                  "/api/params/preset": params_preset, "/api/live": live}
    POST_ROUTES = {"/api/compute": compute, "/api/params/read": params_read,
                   "/api/live/stop": live_stop}


class _Either:
    """Set when either of two events is (a stream's own stop, the server's)."""

    def __init__(self, a, b):
        self.a, self.b = a, b

    def is_set(self):
        return self.a.is_set() or self.b.is_set()


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = LISTEN_BACKLOG

    def __init__(self, port, catalog, engine, timeout, verbose=False):
        super().__init__(("127.0.0.1", port), Handler)
        self.catalog, self.engine, self.verbose = catalog, engine, verbose
        self.request_timeout = timeout
        self.token = secrets.token_urlsafe(24)
        self.stopping = threading.Event()
        self.static_files = set(os.listdir(STATIC))

    def handle_error(self, request, client_address):
        # a connection that broke mid-way is not the server's failure
        if not isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError, TimeoutError)):
            super().handle_error(request, client_address)

    def stop(self):
        self.stopping.set()
        self.engine.close()
        self.shutdown()
