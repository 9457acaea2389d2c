"""studio.py -- what the tests of flow-studio share: a generated sequence
with ground truth, a server started from $BUILD/bin/flow-studio on a free
port, the JSON API called with urllib as the page calls it (with the token
the page carries), and the studio's module pictures."""
import json
import os
import re
import subprocess
import sys
import urllib.error
import urllib.request

from conftest import BUILD, ROOT, tool

STUDIO = os.path.join(BUILD, "bin", "flow-studio")
# the device the servers compute on: FLOW_DEVICE, as for the module's tests
DEVICE = os.environ.get("FLOW_DEVICE", "cpu")
# the studio's own modules, from the sources (as $BUILD/bin/flow-studio runs them)
sys.path.insert(0, os.path.join(ROOT, "flow-studio"))
from flowstudio import pictures  # noqa: E402  (after the path is set)

__all__ = ["DEVICE", "STUDIO", "Studio", "make_sequence", "pictures"]


def make_sequence(directory, n=3, size=(96, 72), motion=("--dx", 0.8, "--dy", -0.4), color=False):
    """n frames frame_000.png ... moving by motion, the ground truth of each
    pair frame_00K.flo (flow-synth's names, which the studio matches as
    make import does), in directory."""
    os.makedirs(directory, exist_ok=True)
    w, h = size
    tool("flow-synth", "-q", "-s", f"{w}x{h}", "-n", n, *motion, "--seed", 5,
         *(["--color"] if color else []),
         "-o", os.path.join(directory, "frame_%03d.png"),
         "--gt", os.path.join(directory, "frame_%03d.flo"))
    return directory


class Studio:
    """A running flow-studio on DEVICE: url, the page's token, and the
    process (stopped by close())."""

    def __init__(self, *args):
        self.process = subprocess.Popen([STUDIO, "-q", "-d", DEVICE, *map(str, args)],
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.url = self.process.stdout.readline().strip()
        if not self.url.startswith("http://127.0.0.1:"):
            self.process.kill()
            raise RuntimeError(f"flow-studio did not start: {self.url} {self.process.stderr.read()}")
        page = self.request("GET", "/")[2].decode()
        self.token = re.search(r'<meta name="flow-studio-token" content="([^"]+)">', page).group(1)

    def request(self, method, path, body=None, raw=None, headers=None):
        """(status, headers, body bytes) of a request; headers replace the
        page's (a header None is left out)."""
        data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
        sent = {"Content-Type": "application/json", "X-Flow-Studio-Token": getattr(self, "token", None),
                **(headers or {})}
        req = urllib.request.Request(self.url.rstrip("/") + path, data=data, method=method,
                                     headers={k: v for k, v in sent.items() if v is not None})
        try:
            with urllib.request.urlopen(req, timeout=120) as r:
                return r.status, r.headers, r.read()
        except urllib.error.HTTPError as e:
            return e.code, e.headers, e.read()

    def get(self, path):
        status, _, body = self.request("GET", path)
        return status, json.loads(body)

    def post(self, path, body):
        status, _, data = self.request("POST", path, body)
        return status, json.loads(data)

    def sequences(self):
        return {s["name"]: s for s in self.get("/api/sequences")[1]["sequences"]}

    def alive(self):
        return self.process.poll() is None and self.get("/api/info")[0] == 200

    def close(self):
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.process.stdout.close()
        self.process.stderr.close()
