"""test_studio_server.py -- flow-studio's server without a browser: its
command line, the catalog of sequences, the JSON API (a flow equal to the
module's, the saved .params reproducing it with flow-compute), the library's
messages as 400 answers, the live stream, and a server that survives all of
it.  Its PNG writer and error map against the library's readers."""
import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import threading
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import flowplatform as fp
from conftest import tool
from studio import DEVICE, STUDIO, Studio, make_sequence, pictures
from flowstudio.catalog import Catalog  # noqa: I100  (studio put it on the path)

pytestmark = pytest.mark.skipif(not os.access(STUDIO, os.X_OK), reason="flow-studio is not built")


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    """A directory with two sequences (one of them colour), a .params file
    of one, a video, and a file that is not an image."""
    d = tmp_path_factory.mktemp("tree")
    make_sequence(str(d / "gray"), n=3, size=(64, 48))
    make_sequence(str(d / "rgb"), n=2, size=(64, 48), color=True)
    (d / "gray" / "hs.params").write_text("method,hs\nalpha,150\n")
    tool("flow-synth", "-q", "-s", "48x32", "-n", 4, "--video", d / "clip.y4m")
    (d / "notes.txt").write_text("not a frame\n")
    return d


@pytest.fixture(scope="module")
def studio(tree):
    s = Studio(tree)
    yield s
    s.close()


def first_pair(s, name):
    seq = s.sequences()[name]
    return seq["id"], seq


def compute(s, sequence, sets, generation=0, **extra):
    return s.post("/api/compute", {"client": "test", "generation": generation, "sequence": sequence,
                                   "pair": 0, "sets": sets, **extra})


# ---- the command line ---------------------------------------------------------

def run(*args):
    return subprocess.run([STUDIO, *map(str, args)], capture_output=True, text=True, timeout=60)


def test_help_and_version():
    r = run("--help")
    assert r.returncode == 0 and r.stdout.startswith("Usage: flow-studio [options] [DIR ...]\n")
    for option in ("--port", "--device", "--video", "--camera", "--timeout", "--open", "--quiet",
                   "--verbose"):
        assert option in r.stdout
    assert "Exit status: 0 ok" in r.stdout
    r = run("--version")
    assert r.returncode == 0 and r.stdout.startswith(f"flow-studio {fp.__version__} (libflow ")


@pytest.mark.parametrize("args, status, message", [
    (["--port", "x"], 1, "--port: 'x' is not an integer"),
    (["--port", "70000"], 1, "--port: 70000 is out of range"),
    (["--camera", "-1"], 1, "--camera: -1 is out of range"),
    (["--frobnicate"], 1, "option --frobnicate not recognized"),
    (["-q", "-v"], 1, "--quiet and --verbose contradict"),
    (["--timeout", "0"], 1, "--timeout: 0 is out of range (1 to 3600)"),
    (["--device", "gpu"], 1, "unknown device 'gpu'"),
    (["/no/such/dir"], 2, "/no/such/dir: not a directory"),
    (["--video", "/no/such.y4m"], 2, "/no/such.y4m: no such video file"),
])
def test_command_line_errors(args, status, message):
    r = run(*args)
    assert r.returncode == status and message in r.stderr and r.stdout == ""


def test_port_taken(tree):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        r = run("-q", "-d", "cpu", "--port", s.getsockname()[1], tree)
    assert r.returncode == 2 and "port" in r.stderr and "127.0.0.1" in r.stderr


def test_sigterm_stops_it(tree):
    s = Studio(tree)
    assert s.alive()
    s.process.terminate()
    assert s.process.wait(20) == 0
    s.close()


# ---- the catalog ------------------------------------------------------------

def test_catalog_of_a_directory(studio):
    seqs = studio.sequences()
    assert {"gray", "rgb", "clip.y4m"} <= set(seqs)
    gray = seqs["gray"]
    assert gray["kind"] == "frames" and gray["frames"] == 3 and gray["presets"] == ["hs"]
    assert [p["gt"] for p in gray["pairs"]] == [True, True]
    assert seqs["clip.y4m"]["kind"] == "video" and seqs["clip.y4m"]["pairs"] == []


def test_catalog_of_the_pipeline_layout(tmp_path):
    """DIR/sequences/dst/<name> in the central format (its `sources` file
    marks it), with the sequence's .params files as presets."""
    dst = tmp_path / "sequences" / "dst" / "demo"
    make_sequence(str(tmp_path / "src"), n=2, size=(32, 24))
    dst.mkdir(parents=True)
    for k in range(2):
        shutil.copy(tmp_path / "src" / f"frame_00{k}.png", dst / f"frame_00{k}.png")
    shutil.copy(tmp_path / "src" / "frame_000.flo", dst / "gt_000.flo")
    (dst / "gt_000.png").write_bytes((dst / "frame_000.png").read_bytes())  # a picture, not a frame
    (dst / "clg.params").write_text("method,clg\n")
    (dst / "sources").write_text("")
    s = Studio(tmp_path)
    try:
        seqs = s.sequences()
        assert seqs["demo"]["group"] == "sequences/dst" and seqs["demo"]["frames"] == 2
        assert seqs["demo"]["pairs"][0]["gt"] and seqs["demo"]["presets"] == ["clg"]
        status, preset = s.get(f"/api/params/preset?sequence={seqs['demo']['id']}&name=clg")
        assert status == 200 and preset["method"] == "clg"
    finally:
        s.close()


def test_catalog_of_sintel_and_kitti_trees(tmp_path):
    """The downloads' own layouts, as make import reads them: a Sintel scene
    of one pass is a sequence whose occlusions/ and invalid/ masks are not
    frames, its invalid pixels are left out of the errors; a KITTI pair has
    its 16-bit PNG ground truth."""
    sin = tmp_path / "sintel" / "training"
    for d in ("clean/s", "flow/s", "occlusions/s", "invalid/s"):
        (sin / d).mkdir(parents=True)
    tool("flow-synth", "-q", "-s", "32x24", "-n", 3, "--first", 1, "--dx", 0.8,
         "-o", sin / "clean" / "s" / "frame_%04d.png", "--gt", sin / "flow" / "s" / "frame_%04d.flo")
    invalid = np.zeros((24, 32), np.uint8)
    invalid[4:12, 8:20] = 255
    for k in (1, 2):
        (sin / "invalid" / "s" / f"frame_000{k}.png").write_bytes(pictures.png(invalid))
        (sin / "occlusions" / "s" / f"frame_000{k}.png").write_bytes(pictures.png(invalid))
    kitti = tmp_path / "kitti2012" / "training"
    for d in ("colored_0", "flow_noc"):
        (kitti / d).mkdir(parents=True)
    tool("flow-synth", "-q", "-s", "32x24", "-n", 2, "--first", 10, "--dx", 0.8,
         "-o", kitti / "colored_0" / "000007_%02d.png", "--gt", tmp_path / "k%02d.flo")
    fp.write_flow(kitti / "flow_noc" / "000007_10.png", fp.read_flow(tmp_path / "k10.flo"))
    s = Studio(tmp_path)
    try:
        seqs = s.sequences()
        assert set(seqs) == {"sintel-clean-s", "kitti2012-000007"}
        sintel = seqs["sintel-clean-s"]
        assert sintel["frames"] == 3 and [(p["gt"], p["mask"]) for p in sintel["pairs"]] == [(True, True)] * 2
        assert seqs["kitti2012-000007"]["pairs"][0]["gt"]
        status, out = s.post("/api/compute", {"client": "t", "sequence": sintel["id"], "pair": 0,
                                              "sets": [{"method": "hs", "params": {}}]})
        assert status == 200 and "error" not in out
        f1, f2 = (fp.read_image(sin / "clean" / "s" / f"frame_000{k}.png") for k in (1, 2))
        with fp.Context("hs", DEVICE) as ctx:
            flow = ctx.compute(f1, f2)
        st = fp.error(flow, fp.read_flow(sin / "flow" / "s" / "frame_0001.flo"), invalid == 0)
        assert out["results"][0]["stats"]["aee"] == pytest.approx(st.aee, rel=1e-12)
        assert st.scored == 32 * 24 - 8 * 12
    finally:
        s.close()


# ---- computing ----------------------------------------------------------------

def test_compute_gives_the_modules_flow(studio, tree):
    sid, _ = first_pair(studio, "gray")
    status, out = compute(studio, sid, [{"method": "clg-nl", "params": {"alpha": "25", "solver": "w"}}])
    assert status == 200 and "error" not in out
    r = out["results"][0]
    assert r["method"] == "clg-nl" and r["params"]["alpha"] == 25.0 and r["params"]["solver"] == "w"
    assert "omega" not in r["active"] and "cycles" in r["active"]
    assert (out["width"], out["height"], out["gt"]) == (64, 48, True)
    assert r["color"].startswith("data:image/png;base64,") and r["error_map"].startswith("data:image/png")
    f1, f2 = (fp.read_image(tree / "gray" / f"frame_00{k}.png") for k in range(2))
    with fp.Context("clg-nl", DEVICE, alpha=25, solver="w") as ctx:
        flow = ctx.compute(f1, f2)
    st = fp.error(flow, fp.read_flow(tree / "gray" / "frame_000.flo"))
    assert r["stats"]["aee"] == pytest.approx(st.aee, rel=1e-12)
    grid = r["vectors"]
    assert len(grid["u"]) == grid["rows"] * grid["columns"]
    step = grid["step"]
    assert grid["u"][0] == pytest.approx(flow[step // 2, step // 2, 0], abs=0.005)
    # the downloads: that flow, and a .params that flow-compute reproduces it from
    status, headers, body = studio.request("GET", f"/api/download?client=test&result={r['id']}&kind=flo")
    assert status == 200 and "gray-000-clg-nl.flo" in headers["Content-Disposition"]
    saved = tree / "saved.flo"
    saved.write_bytes(body)
    np.testing.assert_array_equal(fp.read_flow(saved), flow)
    status, _, body = studio.request("GET", f"/api/download?client=test&result={r['id']}&kind=params")
    (tree / "saved.params").write_bytes(body)
    assert body.startswith(b"# flow-studio ") and b"\nmethod,clg-nl\n" in body
    tool("flow-compute", "-q", "-d", DEVICE, "-p", tree / "saved.params",
         tree / "gray" / "frame_000.png", tree / "gray" / "frame_001.png", "-o", tree / "again.flo")
    np.testing.assert_array_equal(fp.read_flow(tree / "again.flo"), flow)


def test_colour_frames_and_two_sets(studio, tree):
    sid, _ = first_pair(studio, "rgb")
    status, out = compute(studio, sid, [{"method": "robust", "params": {"warps": "1"}},
                                        {"method": "lk", "params": {"window": "box"}}])
    assert status == 200 and len(out["results"]) == 2
    a, b = out["results"]
    assert a["params"]["color"] is True and "window_size" in b["active"] and "rho" not in b["active"]
    # one colour scale for both: the ground truth's largest vector
    gt = fp.read_flow(tree / "rgb" / "frame_000.flo")
    assert out["scale"] == pytest.approx(float(np.hypot(gt[..., 0], gt[..., 1]).max()), rel=1e-6)
    status, out = compute(studio, sid, [{"method": "hs", "params": {}}], color_max=3)
    assert status == 200 and out["scale"] == 3


@pytest.mark.parametrize("sets, message", [
    ([{"method": "hs", "params": {"alpha": "-5"}}], "parameter alpha = -5 out of range (0 < alpha <= 1e+12)"),
    ([{"method": "hs", "params": {"alpha": "many"}}], "alpha"),
    ([{"method": "hs", "params": {"tau": "1"}}], "method hs has no parameter 'tau'"),
    ([{"method": "nosuch", "params": {}}], "unknown method 'nosuch'"),
    ([{"method": "hs", "params": {"alpha": [1]}}], "expected a number or a string, not list"),
    ([{"method": "hs", "params": "alpha"}], "params must be an object"),
    (["hs"], "a parameter set is an object"),
])
def test_refused_sets_say_the_librarys_message(studio, sets, message):
    sid, _ = first_pair(studio, "gray")
    status, out = compute(studio, sid, sets)
    assert status == 400 and message in out["error"] and message in out["results"][0]["error"]


def test_an_unchanged_set_is_not_computed_again(studio):
    """Moving set A of a comparison recomputes A alone: B's result is the
    one it had (its id), until its pair or parameters change."""
    sid, _ = first_pair(studio, "gray")
    b = {"method": "lk", "params": {"rho": "3"}}
    ids = []
    for alpha in ("100", "200"):
        status, out = compute(studio, sid, [{"method": "hs", "params": {"alpha": alpha}}, b])
        assert status == 200
        ids.append([r["id"] for r in out["results"]])
    assert ids[0][0] != ids[1][0] and ids[0][1] == ids[1][1]
    status, out = studio.post("/api/compute", {"client": "test", "sequence": sid, "pair": 1,
                                               "sets": [{"method": "hs", "params": {}}, b]})
    assert status == 200 and out["results"][1]["id"] != ids[1][1]


def test_one_failing_set_leaves_the_other(studio):
    sid, _ = first_pair(studio, "gray")
    status, out = compute(studio, sid, [{"method": "hs", "params": {}},
                                        {"method": "hs", "params": {"sigma": "99"}}])
    assert status == 400 and out["error"].startswith("B: parameter sigma = 99 out of range")
    assert "color" in out["results"][0] and "error" not in out["results"][0]


@pytest.mark.parametrize("body, message", [
    ({"client": "t", "sequence": "nosuch", "pair": 0, "sets": []}, "no sequence 'nosuch'"),
    ({"client": "t", "sequence": "GRAY", "pair": 7, "sets": []}, "gray has no pair 7 (its pairs are 0 to 1)"),
    ({"client": "t", "sequence": "GRAY", "pair": 0, "sets": []}, "sets must be a list of 1 to 2"),
    ({"client": "t", "sequence": "GRAY", "pair": 0, "sets": [{"method": "hs"}], "color_max": -1},
     "color_max must be a finite length > 0"),
    # JSON's Infinity and NaN as Python writes them, and true (an integer to Python)
    ({"client": "t", "sequence": "GRAY", "pair": 0, "sets": [{"method": "hs"}],
      "color_max": float("inf")}, "color_max must be a finite length > 0 in pixels, or null, not inf"),
    ({"client": "t", "sequence": "GRAY", "pair": 0, "sets": [{"method": "hs"}], "color_max": True},
     "color_max must be a finite length > 0"),
    ({"client": "t", "sequence": "GRAY", "pair": 0, "sets": [{"method": "hs"}],
      "error_max": float("nan")}, "error_max must be a finite length > 0 in pixels, not nan"),
    ({"client": "t", "sequence": "GRAY", "pair": 0, "sets": [{"method": "hs"}], "device": "gpu"},
     "unknown device 'gpu'"),
    ({"client": "t", "sequence": "CLIP", "pair": 0, "sets": [{"method": "hs"}]}, "play it live"),
    ({"sequence": "GRAY", "pair": 0, "sets": [{"method": "hs"}]}, "client must be a short string"),
])
def test_bad_requests(studio, body, message):
    seqs = studio.sequences()
    body = {k: {"GRAY": seqs["gray"]["id"], "CLIP": seqs["clip.y4m"]["id"]}.get(v, v)
            if k == "sequence" else v for k, v in body.items()}
    status, out = studio.post("/api/compute", body)
    assert status == 400 and message in out["error"]


def test_ground_truth_or_mask_of_another_size(tmp_path):
    make_sequence(str(tmp_path / "s"), n=3, size=(32, 24))
    make_sequence(str(tmp_path / "other"), n=2, size=(20, 10))
    shutil.copy(tmp_path / "other" / "frame_000.flo", tmp_path / "s" / "frame_001.flo")
    shutil.copy(tmp_path / "other" / "frame_000.png", tmp_path / "s" / "frame_000-mask.png")
    s = Studio(tmp_path / "s")
    try:
        seq = s.sequences()["s"]
        assert seq["pairs"][0]["mask"] and seq["pairs"][1]["gt"]
        for pair, note in ((0, "frame_000-mask.png is 20x10 but the frames are 32x24: scored without it"),
                           (1, "frame_001.flo is 20x10 but the frames are 32x24: no errors")):
            status, out = s.post("/api/compute", {"client": "t", "sequence": seq["id"], "pair": pair,
                                                  "sets": [{"method": "hs", "params": {}}]})
            r = out["results"][0]
            assert status == 200 and r["stats_note"].endswith(note)
            assert ("stats" in r) == (pair == 0)
    finally:
        s.close()


def test_http_errors(studio):
    port = studio.url.rsplit(":", 1)[1].strip("/")
    assert studio.request("GET", "/api/nothing")[0] == 404
    assert studio.request("GET", "/static/../cli.py")[0] == 404
    assert studio.request("GET", "/api/compute")[0] == 405
    status, _, body = studio.request("POST", "/api/compute", raw=b"{not json")
    assert status == 400 and b"not JSON" in body
    assert studio.request("POST", "/api/compute", raw=b"[1, 2]")[0] == 400
    assert studio.request("POST", "/api/compute", raw=b"x" * (2 << 20))[0] == 413
    # a page of another site that made its name point here is refused
    status, _, body = studio.request("GET", "/api/info", headers={"Host": f"evil.example:{port}"})
    assert status == 403
    assert studio.request("GET", "/")[0] == 200 and studio.request("GET", "/static/app.js")[0] == 200
    assert studio.alive()


def test_a_frame_that_cannot_be_read(tmp_path):
    make_sequence(str(tmp_path / "s"), n=3, size=(32, 24))
    s = Studio(tmp_path / "s")
    try:
        sid = s.sequences()["s"]["id"]
        (tmp_path / "s" / "frame_001.png").write_bytes(b"\x89PNG\r\n\x1a\ntruncated")
        status, out = compute(s, sid, [{"method": "hs", "params": {}}])
        assert status == 400 and "frame_001.png" in out["error"]
        (tmp_path / "s" / "frame_001.png").unlink()
        status, out = compute(s, sid, [{"method": "hs", "params": {}}])
        assert status == 400 and "frame_001.png" in out["error"]
        assert s.alive()
    finally:
        s.close()


def test_a_superseded_request_is_not_computed(studio):
    """While a computation of the page runs (seconds of Jacobi sweeps), it
    asks twice more: the older of the two is answered stale, uncomputed."""
    sid, _ = first_pair(studio, "gray")
    answers = {}

    def ask(generation, params):  # on the CPU, where the sweeps take seconds
        answers[generation] = studio.post("/api/compute", {
            "client": "race", "generation": generation, "sequence": sid, "pair": 0, "device": "cpu",
            "sets": [{"method": "hs", "params": params}]})

    slow = threading.Thread(target=ask, args=(10, {"solver": "jacobi", "iterations": "30000"}))
    slow.start()
    time.sleep(0.5)
    threads = [threading.Thread(target=ask, args=(11, {"alpha": "100"}))]
    threads[0].start()
    time.sleep(0.3)
    threads.append(threading.Thread(target=ask, args=(12, {"alpha": "200"})))
    threads[1].start()
    for t in [slow, *threads]:
        t.join()
    assert "results" in answers[10][1]
    assert answers[11] == (200, {"stale": True})
    assert answers[12][1]["results"][0]["params"]["alpha"] == 200.0


# ---- who may ask -------------------------------------------------------------

def every_endpoint(s):
    """(method, path, body) of each API request, each one the server serves
    as it stands."""
    sid = s.sequences()["gray"]["id"]
    return [("POST", "/api/compute", {"client": "who", "sequence": sid, "pair": 0,
                                      "sets": [{"method": "hs", "params": {}}]}),
            ("GET", "/api/info", None), ("GET", "/api/sequences", None),
            ("GET", "/api/schema?method=hs", None), ("GET", f"/api/frame?sequence={sid}&index=0", None),
            ("GET", "/api/legend.png", None), ("GET", "/api/download?client=who&result=r1&kind=params", None),
            ("GET", f"/api/params/preset?sequence={sid}&name=hs", None),
            ("GET", "/api/live?client=who&q=" + urllib.request.quote(json.dumps(
                {"sequence": sid, "method": "hs", "params": {"alpha": "0"}})), None),
            ("POST", "/api/params/read", {"name": "a.params", "text": "method,hs\n"}),
            ("POST", "/api/live/stop", {"client": "who"})]


def test_the_page_itself_is_served_to_the_api(studio):
    """Each endpoint answers the page: its token, its own Origin, Referer and
    Sec-Fetch-Site (the download's result r1 is the computation's)."""
    own = studio.url.rstrip("/")
    for method, path, body in every_endpoint(studio):
        status, _, data = studio.request(method, path, body, headers={
            "Origin": own, "Referer": own + "/", "Sec-Fetch-Site": "same-origin"})
        assert status == 200, (path, data)
        status, _, data = studio.request(method, path, body)  # a script: no browser headers
        assert status == 200, (path, data)
    page = studio.request("GET", "/", headers={"X-Flow-Studio-Token": None})
    assert page[0] == 200 and page[1]["Content-Security-Policy"] == "frame-ancestors 'none'"


@pytest.mark.parametrize("foreign", [
    {"Origin": "http://evil.example"},
    {"Origin": "null"},                         # a sandboxed frame, a file: page
    {"Origin": "http://127.0.0.1:1"},          # another server of this machine
    {"Referer": "http://evil.example/page.html"},
    {"Sec-Fetch-Site": "cross-site"},
    {"Sec-Fetch-Site": "same-site"},
])
def test_other_sites_are_refused_on_every_endpoint(studio, foreign):
    for method, path, body in every_endpoint(studio):
        status, _, data = studio.request(method, path, body, headers=foreign)
        assert status == 403 and b"the API serves its own page alone" in data, (path, foreign)
    assert studio.alive()


@pytest.mark.parametrize("token", [None, "", "wrong"])
def test_a_request_without_the_pages_token_is_refused(studio, token):
    for method, path, body in every_endpoint(studio):
        status, _, data = studio.request(method, path, body, headers={"X-Flow-Studio-Token": token})
        assert status == 403 and b"token" in data, path
        if method == "GET":  # nor with it in the query
            sep = "&" if "?" in path else "?"
            status, _, _ = studio.request(method, f"{path}{sep}token={token or ''}",
                                          headers={"X-Flow-Studio-Token": None})
            assert status == 403, path


def test_the_token_in_the_query(studio):
    """A GET may carry the token in its query (an image, a link, an event
    stream cannot set a header); a POST may not."""
    status, _, _ = studio.request("GET", f"/api/legend.png?token={studio.token}",
                                  headers={"X-Flow-Studio-Token": None})
    assert status == 200
    status, _, _ = studio.request("POST", f"/api/live/stop?token={studio.token}", {"client": "who"},
                                  headers={"X-Flow-Studio-Token": None})
    assert status == 403


@pytest.mark.parametrize("kind", ["text/plain", "application/x-www-form-urlencoded",
                                  "multipart/form-data; boundary=x", None])
def test_a_post_that_is_not_json_is_refused(studio, kind):
    """A page of any site may POST these without asking the server first."""
    sid = studio.sequences()["gray"]["id"]
    body = {"client": "who", "sequence": sid, "pair": 0, "sets": [{"method": "hs", "params": {}}]}
    for path in ("/api/compute", "/api/params/read", "/api/live/stop"):
        status, _, data = studio.request("POST", path, body, headers={"Content-Type": kind})
        assert status == 415 and b"application/json" in data, path
    status, _, _ = studio.request("POST", "/api/live/stop", {"client": "who"},
                                  headers={"Content-Type": "application/json; charset=utf-8"})
    assert status == 200


def test_twenty_connections_at_once(studio):
    """20 connections that come while the server is stopped (SIGSTOP) are
    all taken by the kernel and answered once it goes on (socketserver's
    listen backlog of 5 took 6: the others' handshakes waited for the
    client to try again, or were reset); then 200 requests, 20 at a time,
    each on a connection of its own, are all answered."""
    port = int(studio.url.rsplit(":", 1)[1].strip("/"))
    request = (f"GET /api/info HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
               f"X-Flow-Studio-Token: {studio.token}\r\nConnection: close\r\n\r\n").encode()
    studio.process.send_signal(signal.SIGSTOP)
    waiting = []
    try:
        for _ in range(20):
            waiting.append(socket.create_connection(("127.0.0.1", port), timeout=2))
    finally:
        studio.process.send_signal(signal.SIGCONT)
    for c in waiting:
        c.settimeout(60)
        c.sendall(request)
        with c.makefile("rb") as answer:
            assert answer.readline().startswith(b"HTTP/1.1 200 ")
        c.close()

    def ask(_):
        try:
            return studio.request("GET", "/api/info")[0]
        except OSError as e:
            return repr(e)

    with ThreadPoolExecutor(20) as pool:
        answers = list(pool.map(ask, range(200)))
    assert answers == [200] * 200


def threads_of(process):
    with open(f"/proc/{process.pid}/status") as f:
        return int(next(line for line in f if line.startswith("Threads:")).split()[1])


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="counts threads in /proc")
def test_stalled_requests_time_out_and_free_their_threads(tree):
    """30 requests whose bodies stop coming, and 30 connections that send
    nothing: after --timeout 1 each is closed (408 for a body) and the
    threads that waited on them are gone."""
    s = Studio("--timeout", 1, tree)
    try:
        port = int(s.url.rsplit(":", 1)[1].strip("/"))
        before = threads_of(s.process)
        stalled = []
        for k in range(60):
            c = socket.create_connection(("127.0.0.1", port))
            if k < 30:
                c.sendall(f"POST /api/compute HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                          f"Content-Type: application/json\r\nX-Flow-Studio-Token: {s.token}\r\n"
                          "Content-Length: 100\r\n\r\n{\"client\": ".encode())
            stalled.append(c)
        deadline = time.monotonic() + 10
        while threads_of(s.process) <= 60 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert threads_of(s.process) > 60  # each waits in a thread of its own
        for k, c in enumerate(stalled):
            c.settimeout(20)
            answer = b""
            while chunk := c.recv(4096):
                answer += chunk
            c.close()
            if k < 30:
                assert answer.startswith(b"HTTP/1.1 408 ") and b"nothing of it came for 1 s" in answer
            else:
                assert answer == b""
        deadline = time.monotonic() + 10
        while threads_of(s.process) > before and time.monotonic() < deadline:
            time.sleep(0.05)
        assert threads_of(s.process) <= before
        assert s.alive()
    finally:
        s.close()


def test_json_nested_too_deeply_is_a_bad_request(studio):
    deep = b"[" * 100000
    for path in ("/api/compute", "/api/params/read"):
        status, _, data = studio.request("POST", path, raw=deep)
        assert status == 400 and json.loads(data)["error"] == \
            "the request body is not JSON the server reads: it nests too deeply", path
    # the live stream's query: [ as it is (a request line holds 64 KiB)
    c = http.client.HTTPConnection("127.0.0.1", int(studio.url.rsplit(":", 1)[1].strip("/")))
    c.request("GET", f"/api/live?client=live&token={studio.token}&q=" + "[" * 60000)
    r = c.getresponse()
    assert r.status == 400 and json.loads(r.read())["error"] == \
        "q is not JSON the server reads: it nests too deeply"
    c.close()
    assert studio.alive()


def test_the_frame_cache_is_bounded_by_bytes(tmp_path):
    """Frames of 64x48 (12288 bytes as float32) in a cache of two: the
    oldest is read again from its file, the newest is kept; a frame larger
    than the cache is never kept."""
    make_sequence(str(tmp_path / "s"), n=4, size=(64, 48))
    paths = [str(tmp_path / "s" / f"frame_00{k}.png") for k in range(4)]
    first = [fp.read_image(p) for p in paths]
    size = first[0].nbytes
    catalog = Catalog([], "seq-scan.sh", cache_bytes=2 * size)
    for p in paths[:3]:
        catalog.image(p)
    shutil.copy(paths[3], paths[0])  # the files change under the cache
    shutil.copy(paths[3], paths[2])
    np.testing.assert_array_equal(catalog.image(paths[2]), first[2])  # kept
    np.testing.assert_array_equal(catalog.image(paths[0]), first[3])  # read again
    small = Catalog([], "seq-scan.sh", cache_bytes=size - 1)
    np.testing.assert_array_equal(small.image(paths[1]), first[1])
    shutil.copy(paths[3], paths[1])
    np.testing.assert_array_equal(small.image(paths[1]), first[3])


# ---- links in the data ----------------------------------------------------------

def test_links_are_followed_to_files_of_their_kind_alone(tmp_path):
    """A sequence's links to images and flow files elsewhere (as the
    pipeline's sequences/dst link to ../shared/data) are served; a link to
    a file that is not named as one of its kind, or that is named so but is
    none, is refused with the catalog's name for it: no path, no bytes of
    the file, on every way a file is read (a frame, a computation, a live
    stream)."""
    outside = tmp_path / "elsewhere"
    make_sequence(str(outside), n=2, size=(32, 24))
    for name in ("secret.txt", "secret.png", "secret.flo"):
        (outside / name).write_text("secret-key-data\n")
    root = tmp_path / "root"
    cases = {"linked": ("frame_001.png", "frame_000.flo", None),
             "text-frame": ("secret.txt", "frame_000.flo",
                            "text-frame/frame_001.png: a link to a file that is not an image"),
             "named-frame": ("secret.png", "frame_000.flo", "named-frame/frame_001.png: not a"),
             "text-gt": ("frame_001.png", "secret.txt",
                         "text-gt/gt_000.flo: a link to a file that is not a flow file"),
             "named-gt": ("frame_001.png", "secret.flo", "named-gt/gt_000.flo: not a .flo file")}
    for name, (frame1, gt, _) in cases.items():
        d = root / "sequences" / "dst" / name
        d.mkdir(parents=True)
        (d / "frame_000.png").symlink_to("../../../../elsewhere/frame_000.png")  # as the pipeline's
        (d / "frame_001.png").symlink_to(outside / frame1)
        (d / "gt_000.flo").symlink_to(outside / gt)
        (d / "sources").write_text("")
    s = Studio(root)
    try:
        seqs = s.sequences()
        sid = seqs["linked"]["id"]
        status, _, body = s.request("GET", f"/api/frame?sequence={sid}&index=1")
        assert status == 200 and body.startswith(b"\x89PNG")
        status, out = compute(s, sid, [{"method": "hs", "params": {}}])
        assert status == 200 and "stats" in out["results"][0]
        for name, (_, _, error) in cases.items():
            if error is None:
                continue
            sid = seqs[name]["id"]
            status, out = compute(s, sid, [{"method": "hs", "params": {}}])
            messages = [out["error"]]
            got = events(s, {"sequence": sid, "method": "hs", "params": {}}, 2)
            assert status == 400 and got[1][0] == "failure"
            messages.append(got[1][1]["error"])
            if "frame" in name:
                status, out = s.get(f"/api/frame?sequence={sid}&index=1")
                assert status == 400
                messages.append(out["error"])
            for m in messages:
                assert m.startswith(error), m
                assert str(tmp_path) not in m and "73 65 63 72" not in m and "secret" not in m
    finally:
        s.close()


# ---- .params files ------------------------------------------------------------

def test_params_read(studio):
    status, out = studio.post("/api/params/read", {"name": "mine.params", "text": "method,clg\nrho,3\n"})
    assert status == 200 and out["method"] == "clg" and out["params"]["rho"] == 3.0
    assert "omega" not in out["active"]
    status, out = studio.post("/api/params/read", {"name": "mine.params", "text": "method,clg\nrho,-3\n"})
    assert status == 400 and out["error"].startswith("mine.params:2: parameter rho = -3 out of range")
    status, out = studio.post("/api/params/read", {"name": "x.params", "text": 5})
    assert status == 400 and "strings" in out["error"]


def test_params_preset(studio):
    seq = studio.sequences()["gray"]
    status, out = studio.get(f"/api/params/preset?sequence={seq['id']}&name=hs")
    assert status == 200 and out["method"] == "hs" and out["params"]["alpha"] == 150.0
    status, out = studio.get(f"/api/params/preset?sequence={seq['id']}&name=lk")
    assert status == 400 and "has no parameter file 'lk'" in out["error"]


def test_schema_frame_legend_download_errors(studio):
    status, out = studio.get("/api/schema?method=hs")
    assert status == 200 and out["params"] == fp.schema("hs")["params"] and out["active"] == fp.applies("hs")
    assert studio.get("/api/schema?method=zz")[0] == 400
    assert studio.get("/api/schema")[1]["error"] == "missing query parameter 'method'"
    seq = studio.sequences()["gray"]
    status, headers, body = studio.request("GET", f"/api/frame?sequence={seq['id']}&index=2")
    assert status == 200 and headers["Content-Type"] == "image/png" and body.startswith(b"\x89PNG")
    assert studio.get(f"/api/frame?sequence={seq['id']}&index=3")[0] == 400
    assert studio.get(f"/api/frame?sequence={seq['id']}&index=x")[0] == 400
    assert studio.request("GET", "/api/legend.png")[0] == 200
    status, out = studio.get("/api/download?client=test&result=r999&kind=flo")
    assert status == 400 and "no longer kept" in out["error"]


# ---- the live mode ------------------------------------------------------------

def events(studio, query, count):
    """The first `count` events of a live stream: [(kind, object)]."""
    url = (f"{studio.url}api/live?client=live&q={urllib.request.quote(json.dumps(query))}"
           f"&token={studio.token}")
    out = []
    with urllib.request.urlopen(url, timeout=60) as r:
        kind = None
        for line in r:
            line = line.decode().rstrip("\n")
            if line.startswith("event: "):
                kind = line[7:]
            elif line.startswith("data: "):
                out.append((kind, json.loads(line[6:])))
                if len(out) == count or kind == "end":
                    break
    return out


def test_live_sequence_loops_with_errors_where_ground_truth_is(studio):
    seq = studio.sequences()["gray"]
    got = events(studio, {"sequence": seq["id"], "method": "hs", "params": {}}, 6)
    assert got[0][0] == "start" and got[0][1]["method"] == "hs"
    flows = [e for k, e in got if k == "flow"]
    assert [f["pair"] for f in flows] == [0, 1, 0, 1, 0]  # three frames, then again
    assert all("stats" in f and f["color"].startswith("data:image/png") for f in flows)
    assert flows[-1]["fps"] > 0


def test_live_video(studio, tree):
    video = studio.sequences()["clip.y4m"]
    got = events(studio, {"sequence": video["id"], "method": "lk", "params": {}}, 5)
    flows = [e for k, e in got if k == "flow"]
    assert [f["pair"] for f in flows] == [0, 1, 2, 0]
    assert "stats" not in flows[0] and flows[0]["width"] == 48


def test_live_failures_are_events(studio):
    seq = studio.sequences()["gray"]
    got = events(studio, {"sequence": seq["id"], "method": "hs", "params": {"alpha": "0"}}, 3)
    assert got == [("failure", {"error": "parameter alpha = 0 out of range (0 < alpha <= 1e+12)"}),
                   ("end", {})]
    status, out = studio.get("/api/live?client=live&q=%7Bnot")
    assert status == 400 and "q is not JSON" in out["error"]
    assert studio.alive()


# ---- pictures ------------------------------------------------------------------

def test_png_writer_reads_back(tmp_path):
    rng = np.random.default_rng(3)
    for shape in ((5, 7, 3), (4, 9)):
        a = rng.integers(0, 256, shape, dtype=np.uint8)
        (tmp_path / "p.png").write_bytes(pictures.png(a))
        np.testing.assert_array_equal(fp.read_image(tmp_path / "p.png"), a)
    with pytest.raises(ValueError):
        pictures.png(np.zeros((3, 3, 2), np.uint8))
    flow = np.zeros((2, 3, 2), np.float32)
    gt = np.zeros_like(flow)
    flow[0, 0] = (3, 4)
    gt[1, 1] = (1e10, 0)
    flow[1, 2] = (np.nan, 0)
    ee = pictures.endpoint_errors(flow, gt, mask=np.array([[1, 1, 0], [1, 1, 1]]))
    assert ee[0, 0] == 5 and ee[0, 1] == 0
    assert np.isnan(ee[0, 2]) and np.isnan(ee[1, 1]) and np.isnan(ee[1, 2])
    picture = pictures.error_map(ee, 2.0)
    assert picture[0, 0].tolist() == list(pictures.ERROR_RAMP[-1][1:])
    assert picture[0, 1].tolist() == list(pictures.ERROR_RAMP[0][1:])
    assert picture[1, 1].tolist() == list(pictures.NOT_SCORED)


def test_error_ramp_is_flow_tools(studio):
    """The page's error map and key use the library's ramp (flow_error_color:
    channel c is 255 clamp(3 t - c, 0, 1), rounded), and its colour for
    the pixels not scored (FLOW_UNSCORED_RGB)."""
    status, info = studio.get("/api/info")
    assert status == 200
    assert [list(stop) for stop in info["error_ramp"]] == [
        [0, 0, 0, 0], [1 / 3, 255, 0, 0], [2 / 3, 255, 255, 0], [1, 255, 255, 255]]
    assert list(info["not_scored"]) == [64, 96, 160]
    # t = 0, 0.125, 0.5, 0.875, 1, 7: exact in binary, so the values are
    # those worked out by hand (95.625, 127.5, 159.375 rounded)
    ee = np.array([[0, 0.25, 1, 1.75, 2, 14, np.nan]], np.float32)
    assert pictures.error_map(ee, 2.0)[0].tolist() == [
        [0, 0, 0], [96, 0, 0], [255, 128, 0], [255, 255, 159], [255, 255, 255],
        [255, 255, 255], [64, 96, 160]]


def test_arrows_are_the_librarys_grid():
    """One arrow every smaller side / 18 px, 8 at least: 22 for 584 x 388."""
    assert pictures.arrow_step(584, 388) == 22 and pictures.arrow_step(1920, 1080) == 60
    assert pictures.arrow_step(96, 72) == 8
