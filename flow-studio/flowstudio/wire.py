"""wire.py -- what goes to the page: JSON (numbers that are not finite, a
NaN standard deviation say, as null, which JSON has), server-sent events and
pictures as data: URLs; and the JSON objects that come from it."""
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


def json_object(text, what):
    """The JSON object in text; ValueError naming `what` when text is not
    one (nested deeper than Python's recursion limit among them)."""
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as e:
        raise ValueError(f"{what} is not JSON: {e}") from None
    except RecursionError:
        raise ValueError(f"{what} is not JSON the server reads: it nests too deeply") from None
    if not isinstance(obj, dict):
        raise ValueError(f"{what} must be a JSON object")
    return obj


def to_json(obj):
    return json.dumps(plain(obj), allow_nan=False, separators=(",", ":")).encode("utf-8")


def sse(kind, obj):
    """A server-sent event of type kind carrying obj as JSON."""
    return b"event: " + kind.encode("ascii") + b"\ndata: " + to_json(obj) + b"\n\n"


def data_url(png):
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")
