"""wire.py -- what goes to the page: JSON (numbers that are not finite, a
NaN standard deviation say, as null, which JSON has), server-sent events and
pictures as data: URLs."""
import base64
import json
import math


def plain(obj):
    """obj with every float that is not finite replaced by None."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [plain(v) for v in obj]
    return obj


def to_json(obj):
    return json.dumps(plain(obj), allow_nan=False, separators=(",", ":")).encode("utf-8")


def sse(kind, obj):
    """A server-sent event of type kind carrying obj as JSON."""
    return b"event: " + kind.encode("ascii") + b"\ndata: " + to_json(obj) + b"\n\n"


def data_url(png):
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")
