"""engine.py -- the computations behind the page: one or two parameter sets
on a pair, through flowplatform Contexts kept while their method, device and
parameters stay the same, and what the page shows of each flow.

Each browser page is a session (its id comes with every request).  A
session computes one request at a time; a request that waited while a newer
one of its session arrived is answered `stale` without computing, so that a
control moved quickly costs one computation, not one per position.  The
last results' flows and .params texts are kept for the page's downloads.
"""
import math
import os
import tempfile
import threading
import time
from collections import OrderedDict

import flowplatform as fp

from . import pictures
from .wire import data_url

# Sessions kept (a page each); the least recently used is closed beyond.
SESSIONS = 8
# Results kept per session for the downloads.
RESULTS = 8
# The parameter sets of a comparison.
SETS = 2


class RequestError(ValueError):
    """A request the engine cannot serve as it is (a bad request)."""


def params_header(ctx, what):
    """The comment lines of a saved .params, as flow-compute writes them."""
    return (f"flow-studio {fp.__version__} (libflow {fp.__version__})\n"
            f"backend: {ctx.device_kind}, device: {ctx.device}\n"
            f"frames: {what}")


def params_text(ctx, what):
    """The .params file of ctx (written by the library) as text."""
    with tempfile.TemporaryDirectory(prefix="flow-studio-") as d:
        path = os.path.join(d, "set.params")
        ctx.write_params(path, params_header(ctx, what))
        with open(path, encoding="utf-8") as f:
            return f.read()


def parameters(method, values):
    """The keyword arguments of a Context: the values of `values` (name ->
    number, bool or text as typed) whose parameters have an effect under the
    others, and that list.  The library's setter checks each value: a bad
    one raises ParameterError with its message."""
    if not isinstance(method, str):
        raise RequestError(f"method must be a name, not {method!r}")
    if not isinstance(values, dict):
        raise RequestError("params must be an object {name: value}")
    active = fp.applies(method, **values)
    return {k: values[k] for k in active if k in values}, active


def scales(req):
    """The colour coding's fixed scale (None: automatic) and the error map's,
    in pixels, from a request."""
    color_max = req.get("color_max")
    if color_max is not None and not _length(color_max):
        raise RequestError(f"color_max must be a finite length > 0 in pixels, or null, "
                           f"not {color_max!r}")
    error_max = req.get("error_max", 2.0)
    if not _length(error_max):
        raise RequestError(f"error_max must be a finite length > 0 in pixels, not {error_max!r}")
    return color_max, error_max


def _length(x):
    """Whether x is a length in pixels: a finite number > 0 (JSON's true is
    not one, nor an integer too large for a float)."""
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return False
    try:
        return math.isfinite(float(x)) and x > 0
    except OverflowError:
        return False


def truth(catalog, source, pair, shape):
    """The ground truth and mask of a pair of frames of `shape` (None where
    it has none; the mask leaves the pair's invalid pixels out), and a note
    naming a file left out because its size is not the frames'."""
    gt = catalog.flow(source.gt[pair]) if pair in source.gt else None
    h, w = shape
    if gt is not None and gt.shape[:2] != (h, w):
        return None, None, (f"{catalog.name_of(source.gt[pair])} is {gt.shape[1]}x{gt.shape[0]} "
                            f"but the frames are {w}x{h}: no errors")
    mask = None
    for kind, paths in (("scored", source.masks), ("invalid", source.invalid)):
        if pair not in paths:
            continue
        m = catalog.mask(paths[pair])
        if m.shape != (h, w):
            return gt, None, (f"{catalog.name_of(paths[pair])} is {m.shape[1]}x{m.shape[0]} "
                              f"but the frames are {w}x{h}: scored without it")
        m = m if kind == "scored" else ~m
        mask = m if mask is None else mask & m
    return gt, mask, None


class Slot:
    """One parameter set's Context, made anew when the set changes, and its
    last flow: a set that did not change since (the other set of a
    comparison moved) is not computed again."""

    def __init__(self):
        self.key, self.ctx, self.last = None, None, None

    def context(self, method, device, kw):
        """The Context for these settings; whether it is new (its first
        computation allocates the buffers)."""
        key = (method, device, tuple(sorted((k, repr(v)) for k, v in kw.items())))
        if key == self.key:
            return self.ctx, False
        self.close()
        self.ctx = fp.Context(method, device, **kw)
        self.key = key
        return self.ctx, True

    def close(self):
        if self.ctx:
            self.ctx.close()
        self.key, self.ctx, self.last = None, None, None


class Session:
    def __init__(self):
        self.lock = threading.Lock()     # one computation at a time
        self.guard = threading.Lock()    # latest, results
        self.latest = -1
        self.slots = [Slot() for _ in range(SETS)]
        self.results = OrderedDict()     # id -> {"flow", "params", "name"}
        self.next_id = 0
        self.live = None                 # the threading.Event that stops its live stream

    def close(self):
        with self.lock:
            for s in self.slots:
                s.close()
        if self.live:
            self.live.set()

    def keep(self, flow, params, name):
        with self.guard:
            self.next_id += 1
            rid = f"r{self.next_id}"
            self.results[rid] = {"flow": flow, "params": params, "name": name}
            while len(self.results) > RESULTS:
                self.results.popitem(last=False)
            return rid

    def result(self, rid):
        with self.guard:
            if rid not in self.results:
                raise RequestError(f"result {rid!r} is no longer kept: compute it again")
            return self.results[rid]


class Engine:
    def __init__(self, catalog, device):
        self.catalog = catalog
        self.device = device
        self.sessions = OrderedDict()
        self.lock = threading.Lock()

    def session(self, client):
        if not isinstance(client, str) or not client or len(client) > 64:
            raise RequestError("a request names its page: client must be a short string")
        with self.lock:
            s = self.sessions.get(client)
            if s is None:
                s = self.sessions[client] = Session()
            self.sessions.move_to_end(client)
            old = []
            while len(self.sessions) > SESSIONS:
                old.append(self.sessions.popitem(last=False)[1])
        for o in old:
            o.close()
        return s

    def close(self):
        with self.lock:
            sessions, self.sessions = list(self.sessions.values()), OrderedDict()
        for s in sessions:
            s.close()

    def device_of(self, req):
        """The request's device, or the server's (--device)."""
        device = req.get("device") or self.device
        if not isinstance(device, str):
            raise RequestError(f"device must be a name (auto, cpu, cuda, cuda:N), not {device!r}")
        return device

    # ---- one request: a pair, one or two parameter sets ------------------------

    def compute(self, req):
        """Computes req's sets on its pair.  Returns (result, ok): ok is false
        when a set failed (its entry then holds the library's message)."""
        session = self.session(req.get("client"))
        generation = req.get("generation", 0)
        if not isinstance(generation, int):
            raise RequestError("generation must be an integer")
        with session.guard:
            session.latest = max(session.latest, generation)
        source = self.catalog.get(req.get("sequence"))
        pair = req.get("pair")
        path1, path2 = source.pair_frames(pair)
        sets = req.get("sets")
        if not isinstance(sets, list) or not 1 <= len(sets) <= SETS:
            raise RequestError(f"sets must be a list of 1 to {SETS} parameter sets")
        device = self.device_of(req)
        color_max, error_max = scales(req)
        with session.lock:
            if generation < session.latest:
                return {"stale": True}, True
            f1, f2 = self.catalog.image(path1), self.catalog.image(path2)
            gt, mask, note = truth(self.catalog, source, pair, f1.shape[:2])
            what = f"{path1} -> {path2}"
            name = f"{source.name}-{pair:03d}"
            flows, results = [], []
            for k, s in enumerate(sets):
                try:
                    flow, result = self._run(session, k, s, device, f1, f2, what, name)
                except (fp.Error, ValueError, TypeError) as e:
                    flow, result = None, {"error": str(e)}
                flows.append(flow)
                results.append(result)
            scale = self._scale(color_max, gt, flows)
            for flow, result in zip(flows, results):
                if flow is not None:
                    self._pictures(result, flow, scale, gt, mask, error_max)
                    if note:
                        result["stats_note"] = note
        failed = [f"{'AB'[k]}: {r['error']}" if len(sets) > 1 else r["error"]
                  for k, r in enumerate(results) if "error" in r]
        h, w = f1.shape[:2]
        out = {"results": results, "scale": scale, "width": w, "height": h,
               "frame": f"/api/frame?sequence={source.id}&index={pair}",
               "gt": gt is not None, "mask": mask is not None}
        if failed:
            out["error"] = "; ".join(failed)
        return out, not failed

    def _run(self, session, k, s, device, f1, f2, what, name):
        if not isinstance(s, dict):
            raise RequestError("a parameter set is an object {method, params}")
        method = s.get("method")
        kw, active = parameters(method, s.get("params", {}))
        slot = session.slots[k]
        ctx, fresh = slot.context(method, device, kw)
        if not fresh and slot.last and slot.last[0] == what:
            return slot.last[1], dict(slot.last[2])
        start = time.perf_counter()
        flow = ctx.compute(f1, f2)
        ms = 1000 * (time.perf_counter() - start)
        params = params_text(ctx, what)
        rid = session.keep(flow, params, f"{name}-{method}")
        result = {"id": rid, "method": method, "time_ms": ms, "setup": fresh,
                  "device": ctx.device, "notice": ctx.notice, "active": active,
                  "params": ctx.params}
        slot.last = (what, flow, dict(result))
        return flow, result

    @staticmethod
    def _scale(color_max, gt, flows):
        """The colour coding's scale: the one asked for, else the ground
        truth's largest vector (as the pipeline's pictures), else the largest
        of the flows, so that the two sets share one scale."""
        if color_max:
            return float(color_max)
        radii = [pictures.max_radius(gt)] if gt is not None else \
            [pictures.max_radius(f) for f in flows if f is not None]
        return max(radii + [0.0]) or 1.0

    @staticmethod
    def _pictures(result, flow, scale, gt, mask, error_max):
        h, w = flow.shape[:2]
        result["color"] = data_url(pictures.png(fp.flow_to_color(flow, max=scale)))
        result["vectors"] = pictures.vector_grid(flow, pictures.arrow_step(w, h))
        result["max_radius"] = pictures.max_radius(flow)
        if gt is None:
            return
        ee = pictures.endpoint_errors(flow, gt, mask)
        result["error_map"] = data_url(pictures.png(pictures.error_map(ee, error_max)))
        try:
            result["stats"] = fp.error(flow, gt, mask)._asdict()
        except (fp.Error, ValueError) as e:  # nothing left to score, a NaN estimate
            result["stats_note"] = str(e)
