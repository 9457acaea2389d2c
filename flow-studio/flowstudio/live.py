"""live.py -- the live mode: the flow of consecutive frames of a sequence, a
video file or a camera, computed one after the other as fast as the device
allows and streamed to the page as server-sent events (one JSON object per
flow).

A stream has a Context of its own (Context.next: each frame is uploaded
once) and runs in its request's thread until the page closes the stream
(the next write fails), starts another one, or the server stops.  A
sequence or a video starts again at its end; a camera runs on.  Sending
blocks while the page is busy drawing, so the computation never runs ahead
of what is shown.
"""
import time
from collections import deque

import flowplatform as fp

from . import pictures
from .engine import parameters, truth
from .wire import data_url

# Flows over which the rate is measured.
RATE_WINDOW = 10
# The automatic colour scale of a video follows its largest vectors and
# shrinks by this factor per flow when they get shorter (no flicker).
SCALE_DECAY = 0.95


def frames_of(source, catalog):
    """(index, frame) of the source for ever; None before each start over
    (the Context then starts a new sequence)."""
    if source.kind == "frames":
        while True:
            yield None
            for i, path in enumerate(source.frames):
                yield i, catalog.image(path)
    while True:
        yield None
        count = 0
        with fp.Video(source.path if source.kind == "video" else source.camera) as video:
            for i, frame in enumerate(video):
                count += 1
                yield i, frame
        if count < 2:
            raise fp.Error(f"{source.path}: {count} frame{'s' if count != 1 else ''}; "
                           "a flow needs two")


class Stream:
    """One live stream; send(kind, object) writes an event and raises
    OSError once the page is gone."""

    def __init__(self, send, catalog, source, stop):
        self.send, self.catalog, self.source, self.stop = send, catalog, source, stop
        self.times = deque(maxlen=RATE_WINDOW)
        self.scale = 0.0

    def run(self, method, values, device, color_max, error_max):
        try:
            kw, active = parameters(method, values)
            ctx = fp.Context(method, device, **kw)
        except (fp.Error, ValueError, TypeError) as e:
            self.send("failure", {"error": str(e)})
            return
        with ctx:
            self.send("start", {"device": ctx.device, "notice": ctx.notice, "active": active,
                                "source": self.source.name, "method": method})
            try:
                self._loop(ctx, color_max, error_max)
            except (fp.Error, ValueError) as e:
                self.send("failure", {"error": str(e)})

    def _loop(self, ctx, color_max, error_max):
        previous = None
        frames = frames_of(self.source, self.catalog)
        try:
            for item in frames:
                if self.stop.is_set():
                    return
                if item is None:
                    ctx.reset()
                    previous = None
                    continue
                index, frame = item
                start = time.perf_counter()
                flow = ctx.next(frame)
                ms = 1000 * (time.perf_counter() - start)
                if flow is not None:
                    self.send("flow", self._event(previous, flow, ms, color_max, error_max))
                previous = (index, frame)
        finally:
            frames.close()  # the video file or camera closes now

    def _event(self, previous, flow, ms, color_max, error_max):
        pair, frame1 = previous
        gt, mask, note = truth(self.catalog, self.source, pair, flow.shape[:2])
        radius = pictures.max_radius(flow)
        if color_max:
            scale = color_max
        elif gt is not None:
            scale = pictures.max_radius(gt)
        else:
            self.scale = max(radius, self.scale * SCALE_DECAY)
            scale = self.scale
        h, w = flow.shape[:2]
        now = time.perf_counter()
        self.times.append(now)
        rate = (len(self.times) - 1) / (now - self.times[0]) if len(self.times) > 1 else None
        event = {"pair": pair, "time_ms": ms, "fps": rate, "scale": scale or 1.0,
                 "max_radius": radius, "width": w, "height": h,
                 "frame": data_url(pictures.png(pictures.to_bytes(frame1))),
                 "color": data_url(pictures.png(fp.flow_to_color(flow, max=scale or 1.0))),
                 "vectors": pictures.vector_grid(flow, pictures.arrow_step(w, h))}
        if note:
            event["stats_note"] = note
        if gt is not None:
            ee = pictures.endpoint_errors(flow, gt, mask)
            event["error_map"] = data_url(pictures.png(pictures.error_map(ee, error_max)))
            try:
                event["stats"] = fp.error(flow, gt, mask)._asdict()
            except (fp.Error, ValueError) as e:
                event["stats_note"] = str(e)
        return event
