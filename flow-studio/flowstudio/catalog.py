"""catalog.py -- the sequences, videos and cameras the page offers, found in
the directories flow-studio is given, and their frames read on demand.

A directory is looked at as the project's pipeline lays things out
(docs/PIPELINE.md): DIR/sequences/dst/<name>/ in the central format
(frame_NNN.png, gt_NNN.flo, mask_NNN.png, invalid_NNN.png, <method>.params) beside the
evaluation data DIR/../shared/data; or as a sequences/dst itself, or one
sequence of it; or as any directory of images, which scripts/seq-scan.sh
groups into sequences and matches with their ground truth, masks and
.params files exactly as `make import` does (Sintel's and KITTI's trees
included).  Videos (.y4m, and with OpenCV
the usual containers) found there, and those and the cameras named on the
command line, are played in the live mode.

The page asks for a sequence's frames, ground truth, masks and .params by
the sequence and their place in it, never by a path: only the files the
catalog lists are read.  A listed file may be a symbolic link (the
pipeline's sequences/dst link to the evaluation data) and is followed
wherever it leads, but only to a file named as one of its kind (an image, a
flow file, a .params file): a link to anything else is refused unread.  What
the page gets of a file is what the library decoded, never its bytes, and a
message names the file as the catalog does (sequence/file), not by its
path, with no bytes of it (the library quotes a file's first bytes when
they are no format it knows).
"""
import os
import re
import subprocess
import threading
from collections import OrderedDict

import flowplatform as fp

VIDEO_NATIVE = (".y4m",)
VIDEO_OPENCV = (".mp4", ".avi", ".mkv", ".mov", ".webm")
# How deep below a directory videos are looked for.
VIDEO_DEPTH = 3
# The bytes of frames, masks and ground truth kept in memory (a few pairs
# of both parameter sets, a short loop); a larger file is read each time.
FRAME_CACHE_BYTES = 256 << 20
# The names of the files of each kind (scripts/seq-scan.sh's), which a link
# of the catalog must lead to.
IMAGE_FILES = (".png", ".ppm", ".pgm", ".pnm", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff")
FLOW_FILES = (".flo", ".f", ".pcm")
PARAMS_FILES = (".params",)
# The file's bytes that the library's messages quote: left out of the page's.
QUOTED_BYTES = re.compile(r" \((?:first|magic) bytes [^)]*\)|(?<=the header) \([^)]*\)")


class CatalogError(ValueError):
    """A sequence, pair or file the catalog does not have (a bad request)."""


class Source:
    """A sequence of frame files (kind "frames"), a video file ("video") or a
    camera ("camera").  frames: the paths in order; gt, masks (nonzero:
    scored), invalid (nonzero: left out, Sintel's invalid/): {pair index:
    path}; presets: {name: .params path}; path: the video; camera: the index."""

    def __init__(self, name, group, kind, frames=(), gt=None, masks=None, presets=None,
                 path=None, camera=None, invalid=None):
        self.id = ""
        self.name, self.group, self.kind = name, group, kind
        self.frames = list(frames)
        self.gt, self.masks, self.presets = gt or {}, masks or {}, presets or {}
        self.invalid = invalid or {}
        self.path, self.camera = path, camera

    def describe(self):
        """The sequence as the page lists it."""
        pairs = [{"index": i, "label": f"{_stem(self.frames[i])} \u2192 {_stem(self.frames[i + 1])}",
                  "gt": i in self.gt, "mask": i in self.masks or i in self.invalid}
                 for i in range(len(self.frames) - 1)]
        return {"id": self.id, "name": self.name, "group": self.group, "kind": self.kind,
                "frames": len(self.frames), "pairs": pairs, "presets": sorted(self.presets)}

    def pair_frames(self, pair):
        """The paths of pair `pair` (frame pair -> pair + 1)."""
        if self.kind != "frames":
            raise CatalogError(f"{self.name} is a {self.kind}: it has no pairs to choose, play it live")
        if not isinstance(pair, int) or not 0 <= pair < len(self.frames) - 1:
            raise CatalogError(f"{self.name} has no pair {pair!r} "
                               f"(its pairs are 0 to {len(self.frames) - 2})")
        return self.frames[pair], self.frames[pair + 1]


def _stem(path):
    return os.path.splitext(os.path.basename(path))[0]


def _natural(name):
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", name)]


def dst_sequence(directory, group):
    """A sequence in the central format, or None.  The file `sources`, which
    the pipeline writes into each, tells one from a source directory of
    flow-synth's frames (frame_NNN.png too, but with frame_NNN.flo)."""
    names = sorted(os.listdir(directory))
    frames = [n for n in names if re.fullmatch(r"frame_\d+\.png", n)]
    if len(frames) < 2 or "sources" not in names:
        return None
    join = lambda n: os.path.join(directory, n)  # noqa: E731
    gt = {int(m.group(1)): join(n) for n in names if (m := re.fullmatch(r"gt_(\d+)\.flo", n))}
    masks = {int(m.group(1)): join(n) for n in names if (m := re.fullmatch(r"mask_(\d+)\.png", n))}
    invalid = {int(m.group(1)): join(n) for n in names if (m := re.fullmatch(r"invalid_(\d+)\.png", n))}
    presets = {n[:-len(".params")]: join(n) for n in names if n.endswith(".params")}
    return Source(os.path.basename(os.path.normpath(directory)), group, "frames",
                  [join(n) for n in frames], gt, masks, presets, invalid=invalid)


def dst_sequences(directory, group):
    out = []
    for name in sorted(os.listdir(directory), key=_natural):
        path = os.path.join(directory, name)
        if os.path.isdir(path) and (s := dst_sequence(path, group)):
            out.append(s)
    return out


def scanned_sequences(directory, group, seq_scan):
    """The sequences scripts/seq-scan.sh finds under directory."""
    # the flow formats' extensions from the module's table (scripts/flow-exts.sh)
    env = dict(os.environ, FLOW_FORMATS=" ".join(f[0] for f in fp.flow_formats()))
    run = subprocess.run(["sh", seq_scan, "import", directory], capture_output=True, text=True,
                         env=env)
    if run.returncode != 0:
        raise CatalogError(f"{directory}: {run.stderr.strip() or 'seq-scan.sh failed'}")
    out, current = [], None
    for line in run.stdout.splitlines():
        word, _, rest = line.partition(" ")
        if word == "name":
            current = Source(rest, group, "frames")
            out.append(current)
        elif current is None:
            continue
        elif word == "frame":
            current.frames.append(rest)
        elif word in ("gt", "mask", "invalid"):
            index, _, path = rest.partition(" ")
            {"gt": current.gt, "mask": current.masks, "invalid": current.invalid}[word][int(index)] = path
        elif word == "params":
            method, _, path = rest.partition(" ")
            current.presets[method] = path
    return [s for s in out if len(s.frames) >= 2]


def videos_under(directory, group):
    """The video files under directory, VIDEO_DEPTH levels deep at most."""
    kinds = VIDEO_NATIVE + (VIDEO_OPENCV if fp.has_opencv else ())
    out, top = [], directory.rstrip(os.sep).count(os.sep)
    for root, dirs, files in os.walk(directory):
        if root.count(os.sep) - top >= VIDEO_DEPTH:
            dirs[:] = []
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for f in sorted(files, key=_natural):
            if f.lower().endswith(kinds):
                out.append(Source(f, group, "video", path=os.path.join(root, f)))
    return out


def sources_of(directory, seq_scan):
    """Every source a DIR argument gives (see the module's comment)."""
    dst = os.path.join(directory, "sequences", "dst")
    data = os.path.join(directory, "..", "shared", "data")
    if os.path.isdir(dst):
        out = dst_sequences(dst, "sequences/dst")
        src = os.path.join(directory, "sequences", "src")
        if os.path.isdir(src):
            out += videos_under(src, "sequences/src")
        if os.path.isdir(data):
            out += scanned_sequences(os.path.normpath(data), "../shared/data", seq_scan)
        return out
    one = dst_sequence(directory, os.path.dirname(os.path.abspath(directory)))
    if one:
        return [one]
    out = dst_sequences(directory, directory)
    if not out:
        out = scanned_sequences(directory, directory, seq_scan)
    return out + videos_under(directory, directory)


class Catalog:
    """The sources, found in a thread of their own (scanning a large
    collection takes seconds) while the server starts; the frames and flow
    files they name, read through the module and kept for a while."""

    def __init__(self, directories, seq_scan, videos=(), cameras=(),
                 cache_bytes=FRAME_CACHE_BYTES):
        self._sources = []
        self._names = {}  # path -> the name messages give it
        self._failures = []
        self._ready = threading.Event()
        self._cache = OrderedDict()
        self._cache_lock = threading.Lock()
        self._cache_bytes, self._cached_bytes = cache_bytes, 0
        self._thread = threading.Thread(target=self._find, name="catalog", daemon=True,
                                        args=(directories, seq_scan, videos, cameras))
        self._thread.start()

    def _find(self, directories, seq_scan, videos, cameras):
        found = []
        for d in directories:
            try:
                found += sources_of(d, seq_scan)
            except (OSError, CatalogError) as e:
                self._failures.append(str(e))
        found += [Source(os.path.basename(v), "videos", "video", path=v) for v in videos]
        found += [Source(f"camera {n}", "cameras", "camera", camera=n) for n in cameras]
        for k, s in enumerate(found):
            s.id = f"s{k}"
            for path in [*s.frames, *s.gt.values(), *s.masks.values(), *s.presets.values()]:
                self._names[path] = f"{s.name}/{os.path.basename(path)}"
        self._sources = found
        self._ready.set()

    def wait(self, timeout=None):
        """Whether the sources have been found (waiting up to timeout seconds)."""
        return self._ready.wait(timeout)

    def describe(self):
        self._ready.wait()
        return {"sequences": [s.describe() for s in self._sources], "failures": self._failures}

    def get(self, source_id):
        self._ready.wait()
        for s in self._sources:
            if s.id == source_id:
                return s
        raise CatalogError(f"no sequence {source_id!r} (reload the page: the list may have changed)")

    def name_of(self, path):
        """A file of the catalog as messages name it: sequence/file."""
        return self._names.get(path, os.path.basename(path))

    def entry(self, path, kinds, what):
        """path, a file of the catalog, when it is named as one of kinds
        (".png", ...) or is a link to such a file; else CatalogError."""
        if not os.path.realpath(path).lower().endswith(kinds):
            raise CatalogError(f"{self.name_of(path)}: a link to a file that is not {what}")
        return path

    def _read(self, path, read, kinds, what):
        try:
            return read(self.entry(path, kinds, what))
        except fp.Error as e:
            message = QUOTED_BYTES.sub("", str(e).replace(path, self.name_of(path)))
            raise CatalogError(message) from None

    def _cached(self, path, read, kinds, what):
        with self._cache_lock:
            if path in self._cache:
                self._cache.move_to_end(path)
                return self._cache[path]
        value = self._read(path, read, kinds, what)
        with self._cache_lock:
            if path not in self._cache and value.nbytes <= self._cache_bytes:
                self._cache[path] = value
                self._cached_bytes += value.nbytes
                while self._cached_bytes > self._cache_bytes:
                    self._cached_bytes -= self._cache.popitem(last=False)[1].nbytes
        return value

    def image(self, path):
        """A frame (float32, as the library computes on it), kept for a while."""
        return self._cached(path, fp.read_image, IMAGE_FILES, "an image")

    def flow(self, path):
        return self._cached(path, fp.read_flow, FLOW_FILES, "a flow file")

    def mask(self, path):
        """A mask as H x W bool, nonzero = scored (a colour mask: any channel)."""
        m = self.image(path)
        return (m != 0) if m.ndim == 2 else (m != 0).any(axis=2)
