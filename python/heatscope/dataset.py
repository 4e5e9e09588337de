"""heatscope.Dataset: write a dataset from NumPy arrays and files.

The manifest, the PNG files and the .npy files are all written by the C
library (hs_dataset_writer_*, hs_image_save_png, hs_npy_write) into the staging
folder of the library's dataset writer (hs-dataset-writer.h: locked against
other writers from create() to save(), beside the target); save() checks the
staged dataset with the library's validator (what `heatscope-cli validate`
runs) and the writer switches it into place, so a reader sees no dataset,
the old one or the whole new one.
"""

import ctypes
import math
import os
import re
import shutil

import numpy as np

from . import _lib
from ._lib import HeatscopeError, enc

MANIFEST = "heatscope.json"


def _safe(name):
    s = re.sub(r"[^A-Za-z0-9._-]+", "_", str(name)).lstrip(".")
    return s[:80] or "_"


def _image_to_uint16(arr):
    """An image array as 16-bit samples: uint16 as is, uint8 ×257 (exact), bool 0/65535,
    floats in [0, 1] ×65535, other floats and integers min–max scaled onto 0..65535."""
    a = np.asarray(arr)
    if a.ndim == 3 and a.shape[2] == 1:
        a = a[:, :, 0]
    if a.ndim not in (2, 3) or (a.ndim == 3 and a.shape[2] not in (2, 3, 4)) or min(a.shape[:2]) == 0:
        raise HeatscopeError("image: shape %s is not [H, W] or [H, W, 1|2|3|4]" % (tuple(a.shape),))
    if a.dtype == np.uint16:
        return np.ascontiguousarray(a)
    if a.dtype == np.uint8:
        return a.astype(np.uint16) * 257
    if a.dtype == np.bool_:
        return a.astype(np.uint16) * 65535
    if a.dtype.kind not in "iuf":
        raise HeatscopeError("image: dtype %s is not numeric" % a.dtype)
    f = a.astype(np.float64)
    if not np.isfinite(f).all():
        bad = np.argwhere(~np.isfinite(f))[0]
        raise HeatscopeError("image: non-finite value at %s" % (tuple(int(v) for v in bad),))
    lo, hi = float(f.min()), float(f.max())
    if a.dtype.kind == "f" and lo >= 0.0 and hi <= 1.0:
        return np.rint(f * 65535.0).astype(np.uint16)
    if hi == lo:
        return np.zeros(f.shape, np.uint16)
    return np.rint((f - lo) * (65535.0 / (hi - lo))).astype(np.uint16)


def _is_path(v):
    return isinstance(v, (str, bytes, os.PathLike))


def _labels(items, what):
    """[(condition, context, locations)] from strings, tuples or dicts."""
    out = []
    for item in items or ():
        if isinstance(item, str):
            out.append((item, "positive", []))
        elif isinstance(item, dict):
            out.append((item["condition"], item.get("context", "positive"), list(item.get("locations", []))))
        else:
            t = tuple(item)
            out.append((t[0], t[1] if len(t) > 1 else "positive", list(t[2]) if len(t) > 2 else []))
    for c, ctx, _ in out:
        if not isinstance(c, str) or not c:
            raise HeatscopeError("%s: a label's condition must be a non-empty string" % what)
        if ctx not in ("positive", "negative", "uncertain"):
            raise HeatscopeError("%s: label context %r is not positive, negative or uncertain" % (what, ctx))
    return out


class Dataset:
    """A dataset being written.  Create with Dataset.create(path); nothing appears at
    `path` until save() (or the end of a `with` block)."""

    def __init__(self, path, name=None, description=None, overwrite=False):
        self.path = os.path.abspath(os.fspath(path))
        self.overwrite = overwrite
        parent = os.path.dirname(self.path)
        base = os.path.basename(self.path)
        if not base:
            raise HeatscopeError("%s: not a folder name" % path)
        self._check_target()
        self._lib = _lib.lib()
        gerr = _lib.GErrorP()
        flags = _lib.HS_DATASET_WRITE_REPLACE if overwrite else _lib.HS_DATASET_WRITE_CREATE
        self._writer = self._lib.hs_dataset_writer_begin(os.fsencode(self.path), flags, ctypes.byref(gerr))
        _lib.check(self._writer, gerr)
        self._staging = os.fsdecode(self._lib.hs_dataset_writer_get_staging(self._writer))
        self._ds = self._lib.hs_dataset_new(os.fsencode(self._staging), enc(name or base))
        if description is not None:
            self._lib.hs_dataset_set_description(self._ds, enc(description))
        self._instances = {}     # id → (HsInstance*, {sentence id: text}, {text: id}, (W, H))
        self._files = set()
        self._saved = False

    @classmethod
    def create(cls, path, name=None, description=None, overwrite=False):
        """A new dataset to be written at `path` (a folder).  An existing dataset there is
        replaced on save() only with overwrite=True."""
        return cls(path, name=name, description=description, overwrite=overwrite)

    # --- building ------------------------------------------------------------

    def _check_open(self):
        if self._saved:
            raise HeatscopeError("%s: the dataset is already saved (create a new one)" % self.path)
        if self._ds is None:
            raise HeatscopeError("%s: the dataset was discarded" % self.path)

    def _check_target(self):
        if os.path.lexists(self.path):
            if not os.path.isdir(self.path) or os.path.islink(self.path):
                raise HeatscopeError("%s: exists and is not a folder" % self.path)
            if os.listdir(self.path) and not (self.overwrite and os.path.exists(os.path.join(self.path, MANIFEST))):
                raise HeatscopeError("%s: the folder is not empty (pass overwrite=True to replace "
                                     "a dataset there)" % self.path)

    def _file(self, *parts):
        rel = "/".join(_safe(p) for p in parts)
        stem, ext = os.path.splitext(rel)
        k = 2
        while rel in self._files:
            rel = "%s-%d%s" % (stem, k, ext)
            k += 1
        self._files.add(rel)
        os.makedirs(os.path.dirname(os.path.join(self._staging, rel)), exist_ok=True)
        return rel

    def _save_png(self, rel, samples, channels, depth):
        err = ctypes.c_char_p()
        h, w = samples.shape[:2]
        data = np.ascontiguousarray(samples, dtype=np.uint16)
        img = self._lib.hs_py_image_new(w, h, channels, depth,
                                        data.ctypes.data_as(ctypes.POINTER(ctypes.c_uint16)), ctypes.byref(err))
        if not img:
            message = err.value.decode("utf-8", "replace")
            self._lib.hs_py_free(ctypes.cast(err, ctypes.c_void_p))
            raise HeatscopeError("%s: %s" % (rel, message))
        try:
            gerr = _lib.GErrorP()
            ok = self._lib.hs_image_save_png(img, os.fsencode(os.path.join(self._staging, rel)), ctypes.byref(gerr))
            _lib.check(ok, gerr, rel)
        finally:
            self._lib.hs_image_unref(img)

    def add_instance(self, id, image, sentences=(), regions=None, targets=None, labels=None,
                     abnormal=None, metadata=None):
        """Adds one image.

        image:     a [H, W] or [H, W, C] array (written as a 16-bit PNG: uint16 as is, uint8
                   ×257, floats in [0, 1] ×65535, anything else min–max scaled), or the path
                   of a PNG/JPEG file (copied as is).
        sentences: texts, or dicts {"id", "text", "kind": report|custom|class, "labels"};
                   ids default to s1, s2, ...
        regions:   {name: box [x1, y1, x2, y2] | list of boxes | mask array (non-zero = in)
                   | mask file path | {"boxes": [...], "mask": array or path}}.
        targets:   {sentence id or text: [region names]}.
        labels:    the image's findings: condition strings, (condition, context, locations)
                   tuples or dicts; abnormal defaults to "any positive finding".
        metadata:  {key: string}, e.g. view, modality, licence, source.
        """
        self._check_open()
        id = str(id)
        if not id:
            raise HeatscopeError("instance id must not be empty")
        if id in self._instances:
            raise HeatscopeError("instance %r: added twice" % id)
        what = "instance %r" % id
        lib = self._lib
        if _is_path(image):
            src = os.fspath(image)
            w, h = ctypes.c_uint(), ctypes.c_uint()
            gerr = _lib.GErrorP()
            _lib.check(lib.hs_image_probe(os.fsencode(src), ctypes.byref(w), ctypes.byref(h), ctypes.byref(gerr)),
                       gerr, os.fsdecode(src))
            ext = os.path.splitext(os.fsdecode(src))[1].lower() or ".png"
            rel = self._file("images", id + ext)
            shutil.copyfile(src, os.path.join(self._staging, rel))
            W, H = w.value, h.value
        else:
            samples = _image_to_uint16(image)
            rel = self._file("images", id + ".png")
            channels = 1 if samples.ndim == 2 else samples.shape[2]
            self._save_png(rel, samples, channels, 16)
            H, W = samples.shape[:2]

        inst = lib.hs_instance_new(enc(id), enc(rel))
        try:
            lib.hs_py_instance_set_size(inst, W, H)
            for k, v in (metadata or {}).items():
                lib.hs_instance_set_metadata(inst, enc(k), enc(v))
            findings = _labels(labels, what)
            for c, ctx, locs in findings:
                lib.hs_instance_add_finding(inst, lib.hs_label_new(enc(c), enc(ctx), _lib.strv(locs)))
            if abnormal is None:
                abnormal = any(ctx == "positive" for _, ctx, _ in findings)
            lib.hs_py_instance_set_abnormal(inst, 1 if abnormal else 0)

            region_names = set()
            for name, spec in (regions or {}).items():
                name = str(name)
                region_names.add(name)
                self._add_region(inst, id, name, spec, W, H)

            by_id, by_text = {}, {}
            sentence_ptrs = {}
            for k, s in enumerate(sentences or ()):
                if isinstance(s, str):
                    s = {"text": s}
                sid = str(s.get("id") or "s%d" % (k + 1))
                text = s.get("text")
                if not isinstance(text, str) or not text:
                    raise HeatscopeError("%s: sentence %r has no text" % (what, sid))
                if sid in by_id:
                    raise HeatscopeError("%s: sentence id %r repeats" % (what, sid))
                ptr = lib.hs_sentence_new(enc(sid), enc(text))
                if s.get("kind"):
                    if s["kind"] not in ("report", "custom", "class"):
                        lib.hs_sentence_free(ptr)
                        raise HeatscopeError("%s: sentence %r: kind %r is not report, custom or class"
                                             % (what, sid, s["kind"]))
                    lib.hs_sentence_set_kind(ptr, enc(s["kind"]))
                for c, ctx, locs in _labels(s.get("labels"), what):
                    lib.hs_sentence_add_label(ptr, lib.hs_label_new(enc(c), enc(ctx), _lib.strv(locs)))
                lib.hs_instance_add_sentence(inst, ptr)
                by_id[sid] = text
                by_text.setdefault(text, sid)
                sentence_ptrs[sid] = ptr
            for key, names in (targets or {}).items():
                sid = key if key in by_id else by_text.get(key)
                if sid is None:
                    raise HeatscopeError("%s: targets name the sentence %r, which is not among its sentences"
                                         % (what, key))
                if isinstance(names, str):
                    names = [names]
                for n in names:
                    if n not in region_names:
                        raise HeatscopeError("%s: sentence %r targets %r, which is not one of its regions %s"
                                             % (what, sid, n, sorted(region_names)))
                    lib.hs_sentence_add_target(sentence_ptrs[sid], enc(n))
        except BaseException:
            lib.hs_instance_free(inst)
            raise
        lib.hs_dataset_add_instance(self._ds, inst)
        self._instances[id] = (inst, by_id, by_text, (W, H))
        return id

    def _add_region(self, inst, iid, name, spec, W, H):
        lib = self._lib
        what = "instance %r, region %r" % (iid, name)
        boxes, mask = [], None
        if isinstance(spec, dict):
            boxes = spec.get("boxes") or []
            if "box" in spec:
                boxes = [spec["box"]] + list(boxes)
            mask = spec.get("mask")
        elif _is_path(spec) or (isinstance(spec, np.ndarray) and
                                (spec.dtype in (np.bool_, np.uint8) or spec.ndim != 2 or spec.shape[1] != 4)):
            mask = spec
        else:
            b = np.asarray(spec, dtype=np.float64)
            boxes = [b] if b.shape == (4,) else list(b.reshape(-1, 4)) if b.ndim == 2 and b.shape[1] == 4 else None
            if boxes is None:
                raise HeatscopeError("%s: %r is not a box [x1, y1, x2, y2], boxes or a mask" % (what, spec))
        region = lib.hs_region_new(enc(name))
        try:
            for b in boxes:
                x1, y1, x2, y2 = (float(v) for v in b)
                if not all(math.isfinite(v) for v in (x1, y1, x2, y2)) or not (x1 < x2 and y1 < y2):
                    raise HeatscopeError("%s: box %r needs finite x1 < x2, y1 < y2" % (what, list(b)))
                if x1 < 0 or y1 < 0 or x2 > W or y2 > H:
                    raise HeatscopeError("%s: box %r leaves the %d×%d image" % (what, [x1, y1, x2, y2], W, H))
                lib.hs_region_add_box(region, x1, y1, x2, y2)
            if mask is not None:
                if _is_path(mask):
                    src = os.fspath(mask)
                    w, h = ctypes.c_uint(), ctypes.c_uint()
                    gerr = _lib.GErrorP()
                    _lib.check(lib.hs_image_probe(os.fsencode(src), ctypes.byref(w), ctypes.byref(h),
                                                  ctypes.byref(gerr)), gerr, os.fsdecode(src))
                    rel = self._file("masks", iid, name + (os.path.splitext(os.fsdecode(src))[1].lower() or ".png"))
                    shutil.copyfile(src, os.path.join(self._staging, rel))
                else:
                    m = np.asarray(mask)
                    if m.ndim == 3:
                        m = (m != 0).any(axis=2)
                    if m.ndim != 2 or min(m.shape) == 0:
                        raise HeatscopeError("%s: mask shape %s is not [H, W]" % (what, tuple(m.shape)))
                    inside = np.ascontiguousarray(m != 0, dtype=np.uint8)
                    rel = self._file("masks", iid, name + ".png")
                    self._save_png(rel, inside.astype(np.uint16) * 255, 1, 8)
                    if inside.shape == (H, W):
                        lib.hs_region_set_mask_extent(region, inside.ctypes.data_as(ctypes.POINTER(ctypes.c_uint8)), W, H)
                lib.hs_region_set_mask(region, enc(rel))
            if not boxes and mask is None:
                raise HeatscopeError("%s: neither boxes nor a mask" % what)
        except BaseException:
            lib.hs_region_free(region)
            raise
        lib.hs_instance_add_region(inst, region)

    def add_map(self, instance, query, model, values, tokens=None, no_attn=None, prompt=None):
        """Adds a precomputed map of `model` for `query` (a sentence id or text of the
        instance; any other text is a free prompt) as .npy float32.

        values:  [h, w] or [T, h, w] (NumPy or torch); [T, h, w] needs `tokens` (T words).
        no_attn: mass on the model's No-Attn slot in [0, 1], or None.
        prompt:  the exact text the model saw when it differs from the sentence (e.g. the
                 left/right swap of a sentence)."""
        self._check_open()
        iid = str(instance)
        if iid not in self._instances:
            raise HeatscopeError("add_map: unknown instance %r (add_instance first)" % iid)
        inst, by_id, by_text, _ = self._instances[iid]
        model = str(model)
        if not model:
            raise HeatscopeError("add_map: the model name must not be empty")
        what = "map (instance %r, query %r, model %r)" % (iid, query, model)
        arr = np.asarray(values.detach().cpu().numpy() if hasattr(values, "detach") else values)
        if arr.ndim not in (2, 3) or min(arr.shape) == 0:
            raise HeatscopeError("%s: shape %s is not [h, w] or [T, h, w]" % (what, tuple(arr.shape)))
        if arr.dtype.kind not in "biuf":
            raise HeatscopeError("%s: dtype %s is not numeric" % (what, arr.dtype))
        f = np.ascontiguousarray(arr, dtype=np.float64)
        finite32 = np.isfinite(f.astype(np.float32))
        if not finite32.all():
            bad = tuple(int(v) for v in np.argwhere(~finite32)[0])
            raise HeatscopeError("%s: non-finite value %r at %s (as float32)" % (what, f[bad], bad))
        if arr.ndim == 3:
            if tokens is None or len(tokens) != arr.shape[0]:
                raise HeatscopeError("%s: shape %s needs %d tokens, got %s"
                                     % (what, tuple(arr.shape), arr.shape[0], "none" if tokens is None else len(tokens)))
        elif tokens is not None:
            raise HeatscopeError("%s: tokens go with a [T, h, w] map; this one is [h, w]" % what)
        if no_attn is not None and not (math.isfinite(no_attn) and 0.0 <= no_attn <= 1.0):
            raise HeatscopeError("%s: no_attn %r is not a number in [0, 1]" % (what, no_attn))
        sid = None
        if query is not None:
            query = str(query)
            sid = query if query in by_id else by_text.get(query)
            if sid is None and prompt is None:
                prompt = query          # a free prompt: no sentence of the instance
        if sid is None and not prompt:
            raise HeatscopeError("%s: needs a sentence or a prompt" % what)

        rel = self._file("maps", model, iid, (sid or "prompt") + ".npy")
        shape = (ctypes.c_size_t * arr.ndim)(*arr.shape)
        gerr = _lib.GErrorP()
        ok = self._lib.hs_npy_write(os.fsencode(os.path.join(self._staging, rel)), _lib.HS_DTYPE_FLOAT32,
                                    arr.ndim, shape, f.ctypes.data_as(ctypes.POINTER(ctypes.c_double)),
                                    0, 0, ctypes.byref(gerr))
        _lib.check(ok, gerr, rel)
        ref = self._lib.hs_map_ref_new(enc(model), enc(sid), enc(rel))
        if prompt is not None and (sid is None or prompt != by_id[sid]):
            self._lib.hs_map_ref_set_prompt(ref, enc(prompt))
        if tokens is not None:
            self._lib.hs_map_ref_set_tokens(ref, _lib.strv([str(t) for t in tokens]))
        self._lib.hs_py_map_ref_set_no_attn(ref, math.nan if no_attn is None else float(no_attn))
        self._lib.hs_instance_add_map(inst, ref)
        return rel

    def describe_model(self, model, description):
        """The manifest's description of a model (architecture, checkpoint, ...)."""
        self._check_open()
        self._lib.hs_dataset_set_model_description(self._ds, enc(model), enc(description))

    # --- publishing ------------------------------------------------------------

    def save(self):
        """Writes the manifest, validates the staged dataset and renames it into place.
        Returns the dataset's path.  On a validation problem nothing is published and
        HeatscopeError lists the problems."""
        self._check_open()
        lib = self._lib
        gerr = _lib.GErrorP()
        _lib.check(lib.hs_dataset_writer_save_manifest(self._writer, self._ds, ctypes.byref(gerr)), gerr)
        problems = _lib.take_string(lib.hs_py_validate(os.fsencode(self._staging)))
        if problems:
            lines = problems.replace(self._staging, self.path).splitlines()
            more = "" if len(lines) <= 5 else "\n… and %d more" % (len(lines) - 5)
            raise HeatscopeError("%s: the dataset does not validate:\n%s%s"
                                 % (self.path, "\n".join(lines[:5]), more))
        # The writer switches the staged folder in (atomically, the old dataset removed
        # after); kill tests stop it at dataset-before-publish / dataset-after-publish.
        ok = lib.hs_dataset_writer_commit(self._writer, self._ds, ctypes.byref(gerr))
        lib.hs_dataset_writer_free(self._writer)
        self._writer = None
        _lib.check(ok, gerr)
        self._saved = True
        lib.hs_dataset_unref(self._ds)
        self._ds = None
        return self.path

    def discard(self):
        """Drops the staged files; nothing is written at `path`."""
        if self._ds is not None:
            self._lib.hs_dataset_unref(self._ds)
            self._ds = None
        if self._writer is not None:
            self._lib.hs_dataset_writer_free(self._writer)   # removes the staging folder, unlocks
            self._writer = None

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None:
            if not self._saved:
                self.save()
        else:
            self.discard()
        return False

    def __fspath__(self):
        return self.path

    def __repr__(self):
        return "<heatscope.Dataset %s, %d instances%s>" % (self.path, len(self._instances),
                                                           ", saved" if self._saved else "")
