#!/usr/bin/python3
"""A CLIP-like dual encoder served live to Heatscope — a stub with the shape of the real
thing: an image encoder giving one embedding per patch of a 14 × 14 grid, a text encoder
giving one embedding per word, and per-word attention softmax_j(t_i·v_j / τ) over patches.

    heatscope --backend-exec "python3 python/examples/clip_stub_backend.py" DATASET
    heatscope-cli attend --backend-exec "python3 python/examples/clip_stub_backend.py" \\
        --image x.png --prompt "left lung" --tokens -o map.npy

Swap the two encoders for your model's (e.g. open_clip's visual trunk before pooling and its
token embeddings) and keep the rest.  The stub's encoders are fixed random projections of
patch statistics and of hashed words: deterministic, fast, meaningless.
"""
import hashlib

import numpy as np

import heatscope

GRID, DIM, TAU = 14, 64, 0.1
_proj = np.random.default_rng(0).standard_normal((4, DIM)) / 2.0


def encode_image(image):
    """[GRID·GRID, DIM] patch embeddings (unit length)."""
    grey = image.reshape(image.shape[0], image.shape[1], -1).mean(axis=2)
    grey = grey / max(float(grey.max()), 1.0)
    h, w = grey.shape
    ys = np.linspace(0, h, GRID + 1).astype(int)
    xs = np.linspace(0, w, GRID + 1).astype(int)
    stats = np.array([[(p.mean(), p.std(), np.abs(np.diff(p, axis=1)).mean() if p.shape[1] > 1 else 0.0,
                        (x0 + x1) / (2.0 * w) - 0.5)
                       for p, x0, x1 in ((grey[ys[i]:max(ys[i + 1], ys[i] + 1), xs[j]:max(xs[j + 1], xs[j] + 1)],
                                          xs[j], xs[j + 1]) for j in range(GRID))]
                      for i in range(GRID)]).reshape(-1, 4)
    v = np.tanh(stats @ _proj)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def encode_text(prompt):
    """(words, [T, DIM] word embeddings), one per word; the same word always maps alike."""
    words = [w.strip(".,;:!?") for w in prompt.split()]
    words = [w for w in words if w]
    if not words:
        raise ValueError("the prompt has no words")
    rows = []
    for w in words:
        seed = int.from_bytes(hashlib.sha256(w.lower().encode()).digest()[:8], "little")
        e = np.random.default_rng(seed).standard_normal(DIM)
        rows.append(e / np.linalg.norm(e))
    return words, np.stack(rows)


_cache = {}


def attend(image, prompt):
    key = (image.shape, hashlib.sha1(image.tobytes()).hexdigest())
    if key not in _cache:                    # the image side once per image, as a real backend would
        _cache.clear()
        _cache[key] = encode_image(image)
    v = _cache[key]
    words, t = encode_text(prompt)
    logits = t @ v.T / TAU                   # [T, patches]
    a = np.exp(logits - logits.max(axis=1, keepdims=True))
    a /= a.sum(axis=1, keepdims=True)
    return words, a.reshape(len(words), GRID, GRID)


if __name__ == "__main__":
    heatscope.serve(attend)
