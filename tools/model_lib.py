"""model_lib.py — the built-in GLoRIA-style dual encoder of Heatscope, in PyTorch.

Shared by tools/train-model (training, export, reference outputs) and by the
reference `exec` adapter.  Everything the C forward pass (src/core/hs-model*.c)
does is defined here first; the two must agree to 1e-4 on every map cell.

Pipeline (inference form, as stored in data/models/*.safetensors):

  image  grey values v / max_value in [0, 1] (colour: Rec. 601 luma, alpha
         ignored), area-resized to S x S (see area_resize), x = (v - 0.5) / 0.25
  CNN    conv3x3 (padding 1, stride s) + bias + ReLU per layer of
         config["conv"] = [[c_in, c_out, stride], ...]  (BatchNorm folded in)
  proj   1x1 conv to D channels, plus a learned position embedding [G*G, D]
         -> local features v_j (j = row-major cell index), L2-normalised
  text   tokens = [t.lower() for t in re.findall(r"[A-Za-z0-9]+", prompt)]
         (= hs_text_tokenize), ids from the vocabulary (unknown -> "<unk>"),
         x = emb[id] + pos[min(i, P-1)], one pre-LN transformer block
         (multi-head self-attention, ReLU feed-forward), final LayerNorm,
         linear projection -> word features t_i, L2-normalised
  attend a_ij = softmax_j(t_i . v_j / tau) over the G*G cells (+ one learned
         "No Attn" vector u, L2-normalised, for the noattn variant);
         per-token map = a_i reshaped [G, G]; sentence map = mean_i a_i;
         no_attn = mean_i a_i,u
"""

import json
import math
import re
import struct

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

FORMAT = "heatscope-gloria-1"
TOKEN_RE = re.compile(r"[A-Za-z0-9]+")
LN_EPS = 1e-5

DEFAULT_CONFIG = {
    "architecture": "gloria-tiny",
    "image_size": 128,
    "grid": 16,
    "dim": 64,
    "conv": [[1, 16, 2], [16, 32, 2], [32, 64, 2], [64, 64, 1], [64, 64, 1]],
    "text_heads": 2,
    "text_ffn": 128,
    "text_positions": 48,
    "tau": 0.1,
    "no_attn": False,
    "normalize_mean": 0.5,
    "normalize_std": 0.25,
}


# --- text -------------------------------------------------------------------

def tokenize(text):
    """Exactly hs_text_tokenize()."""
    return [t.lower() for t in TOKEN_RE.findall(text)]


def token_ids(tokens, vocab):
    index = {w: i for i, w in enumerate(vocab)}
    unk = index["<unk>"]
    return [index.get(t, unk) for t in tokens]


# --- images -----------------------------------------------------------------

def load_grey(path):
    """Grey values in [0, 1] as float64 [H, W], like hs_image_get_grey()/max."""
    import cv2
    img = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
    if img is None:
        raise ValueError(f"{path}: cannot read image")
    if img.dtype == np.uint16:
        max_value = 65535.0
    elif img.dtype == np.uint8:
        max_value = 255.0
    else:
        raise ValueError(f"{path}: unsupported sample type {img.dtype}")
    img = img.astype(np.float64)
    if img.ndim == 3:
        if img.shape[2] >= 3:   # OpenCV order is B, G, R(, A)
            img = 0.299 * img[:, :, 2] + 0.587 * img[:, :, 1] + 0.114 * img[:, :, 0]
        else:                   # grey + alpha
            img = img[:, :, 0]
    return img / max_value


def area_weights(n_in, n_out):
    """[n_out, n_in]: output sample i averages the input interval
    [i*n_in/n_out, (i+1)*n_in/n_out), each input sample k weighted by its
    overlap with the interval divided by the interval's length.  Works for
    shrinking and enlarging alike; the C code computes the same loop."""
    w = np.zeros((n_out, n_in), dtype=np.float64)
    scale = n_in / n_out
    for i in range(n_out):
        lo = i * n_in / n_out
        hi = (i + 1) * n_in / n_out
        k0 = int(math.floor(lo))
        k1 = min(int(math.ceil(hi)), n_in)
        for k in range(k0, k1):
            overlap = min(hi, k + 1.0) - max(lo, float(k))
            if overlap > 0:
                w[i, k] = overlap / scale
    return w


def area_resize(grey, size):
    """float64 [H, W] -> float64 [size, size]: rows first, then columns."""
    h, w = grey.shape
    return area_weights(h, size) @ grey @ area_weights(w, size).T


def preprocess(grey, config):
    """float64 grey [H, W] in [0, 1] -> float32 network input [1, 1, S, S]."""
    s = config["image_size"]
    x = (area_resize(grey, s) - config["normalize_mean"]) / config["normalize_std"]
    return torch.from_numpy(x.astype(np.float32))[None, None]


# --- the network (training form: BatchNorm; inference form: folded) --------

class ImageEncoder(nn.Module):
    def __init__(self, config, folded=False):
        super().__init__()
        self.config = config
        self.folded = folded
        self.convs = nn.ModuleList()
        self.norms = nn.ModuleList()
        for c_in, c_out, stride in config["conv"]:
            self.convs.append(nn.Conv2d(c_in, c_out, 3, stride=stride, padding=1, bias=folded))
            if not folded:
                self.norms.append(nn.BatchNorm2d(c_out))
        d, g = config["dim"], config["grid"]
        self.proj = nn.Conv2d(config["conv"][-1][1], d, 1)
        self.pos = nn.Parameter(torch.randn(g * g, d) * 0.1)
        self.global_proj = nn.Linear(d, d)

    def forward(self, x):
        """x [B, 1, S, S] -> local features [B, G*G, D] (not normalised)."""
        for i, conv in enumerate(self.convs):
            x = conv(x)
            if not self.folded:
                x = self.norms[i](x)
            x = F.relu(x)
        x = self.proj(x)                                   # [B, D, G, G]
        b, d, gh, gw = x.shape
        assert gh == self.config["grid"] and gw == self.config["grid"], (gh, gw)
        return x.flatten(2).transpose(1, 2) + self.pos     # [B, G*G, D]

    def global_feature(self, local):
        return self.global_proj(local.mean(1))

    def folded_state(self):
        """Conv weights and biases with BatchNorm (running statistics) folded in."""
        out = {}
        for i, conv in enumerate(self.convs):
            w = conv.weight.detach()
            b = conv.bias.detach() if conv.bias is not None else torch.zeros(w.shape[0])
            if not self.folded:
                bn = self.norms[i]
                scale = bn.weight.detach() / torch.sqrt(bn.running_var + bn.eps)
                w = w * scale[:, None, None, None]
                b = (b - bn.running_mean) * scale + bn.bias.detach()
            out[f"image.conv{i}.weight"] = w
            out[f"image.conv{i}.bias"] = b
        out["image.proj.weight"] = self.proj.weight.detach()[:, :, 0, 0]
        out["image.proj.bias"] = self.proj.bias.detach()
        out["image.pos"] = self.pos.detach()
        out["image.global.weight"] = self.global_proj.weight.detach()
        out["image.global.bias"] = self.global_proj.bias.detach()
        return out

    def load_folded(self, tensors):
        for i, conv in enumerate(self.convs):
            conv.weight.data.copy_(tensors[f"image.conv{i}.weight"])
            conv.bias.data.copy_(tensors[f"image.conv{i}.bias"])
        self.proj.weight.data.copy_(tensors["image.proj.weight"][:, :, None, None])
        self.proj.bias.data.copy_(tensors["image.proj.bias"])
        self.pos.data.copy_(tensors["image.pos"])
        self.global_proj.weight.data.copy_(tensors["image.global.weight"])
        self.global_proj.bias.data.copy_(tensors["image.global.bias"])


class TextEncoder(nn.Module):
    def __init__(self, config, vocab_size):
        super().__init__()
        d, f = config["dim"], config["text_ffn"]
        self.heads = config["text_heads"]
        self.n_pos = config["text_positions"]
        self.emb = nn.Embedding(vocab_size, d)
        self.pos = nn.Parameter(torch.randn(self.n_pos, d) * 0.1)
        self.ln1 = nn.LayerNorm(d, eps=LN_EPS)
        self.q = nn.Linear(d, d)
        self.k = nn.Linear(d, d)
        self.v = nn.Linear(d, d)
        self.o = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d, eps=LN_EPS)
        self.ff1 = nn.Linear(d, f)
        self.ff2 = nn.Linear(f, d)
        self.lnf = nn.LayerNorm(d, eps=LN_EPS)
        self.proj = nn.Linear(d, d)
        self.global_proj = nn.Linear(d, d)

    def forward(self, ids, mask):
        """ids [B, L] (long), mask [B, L] (bool, True = word) -> [B, L, D]."""
        b, n = ids.shape
        positions = torch.clamp(torch.arange(n), max=self.n_pos - 1)
        x = self.emb(ids) + self.pos[positions][None]
        y = self.ln1(x)
        d = x.shape[-1]
        dh = d // self.heads
        q = self.q(y).view(b, n, self.heads, dh).transpose(1, 2)
        k = self.k(y).view(b, n, self.heads, dh).transpose(1, 2)
        v = self.v(y).view(b, n, self.heads, dh).transpose(1, 2)
        scores = q @ k.transpose(-1, -2) / math.sqrt(dh)          # [B, H, L, L]
        scores = scores.masked_fill(~mask[:, None, None, :], float("-inf"))
        att = torch.softmax(scores, -1) @ v                        # [B, H, L, dh]
        x = x + self.o(att.transpose(1, 2).reshape(b, n, d))
        x = x + self.ff2(F.relu(self.ff1(self.ln2(x))))
        return self.proj(self.lnf(x))

    def global_feature(self, words, mask):
        m = mask.float()[..., None]
        return self.global_proj((words * m).sum(1) / m.sum(1).clamp(min=1))

    def named_state(self):
        out = {"text.emb": self.emb.weight.detach(), "text.pos": self.pos.detach()}
        for name in ("ln1", "ln2", "lnf", "q", "k", "v", "o", "ff1", "ff2", "proj", "global_proj"):
            mod = getattr(self, name)
            key = "text.global" if name == "global_proj" else f"text.{name}"
            out[f"{key}.weight"] = mod.weight.detach()
            out[f"{key}.bias"] = mod.bias.detach()
        return out

    def load_named(self, tensors):
        self.emb.weight.data.copy_(tensors["text.emb"])
        self.pos.data.copy_(tensors["text.pos"])
        for name in ("ln1", "ln2", "lnf", "q", "k", "v", "o", "ff1", "ff2", "proj", "global_proj"):
            mod = getattr(self, name)
            key = "text.global" if name == "global_proj" else f"text.{name}"
            mod.weight.data.copy_(tensors[f"{key}.weight"])
            mod.bias.data.copy_(tensors[f"{key}.bias"])


class DualEncoder(nn.Module):
    def __init__(self, config, vocab, folded=False):
        super().__init__()
        self.config = dict(config)
        self.vocab = list(vocab)
        self.image = ImageEncoder(self.config, folded=folded)
        self.text = TextEncoder(self.config, len(self.vocab))
        self.no_attn = nn.Parameter(torch.randn(config["dim"]) * 0.1) if config["no_attn"] else None

    def regions(self, local):
        """Normalised local features, plus the No-Attn vector when present:
        [B, G*G(+1), D]."""
        v = F.normalize(local, dim=-1)
        if self.no_attn is not None:
            u = F.normalize(self.no_attn, dim=0)
            v = torch.cat([v, u[None, None].expand(v.shape[0], 1, -1)], 1)
        return v

    def attention(self, words, regions):
        """words [B, L, D] (raw), regions [B, R, D] (normalised) -> [B, L, R]."""
        t = F.normalize(words, dim=-1)
        return torch.softmax(t @ regions.transpose(1, 2) / self.config["tau"], -1)

    def encode_prompt(self, prompt):
        tokens = tokenize(prompt)
        ids = torch.tensor([token_ids(tokens, self.vocab)], dtype=torch.long)
        return tokens, ids

    @torch.no_grad()
    def attend(self, grey, prompt):
        """grey float64 [H, W] in [0, 1] -> (tokens, per-token maps float32
        [L, G, G], sentence map [G, G], no_attn or None)."""
        tokens, ids = self.encode_prompt(prompt)
        if not tokens:
            raise ValueError("the prompt has no words")
        local = self.image(preprocess(grey, self.config))
        words = self.text(ids, torch.ones_like(ids, dtype=torch.bool))
        a = self.attention(words, self.regions(local))[0]          # [L, R]
        g = self.config["grid"]
        cells = a[:, : g * g]
        no_attn = float(a[:, g * g].mean()) if self.no_attn is not None else None
        return tokens, cells.reshape(-1, g, g).numpy(), cells.mean(0).reshape(g, g).numpy(), no_attn

    def export_tensors(self):
        out = {}
        out.update(self.image.folded_state())
        out.update(self.text.named_state())
        if self.no_attn is not None:
            out["no_attn"] = self.no_attn.detach()
        return {k: v.contiguous().float() for k, v in out.items()}

    def metadata(self, name, training):
        return {
            "format": FORMAT,
            "name": name,
            "config": json.dumps(self.config, sort_keys=True),
            "vocabulary": json.dumps(self.vocab),
            "training": json.dumps(training, sort_keys=True),
        }


# --- safetensors ------------------------------------------------------------

def save_safetensors(path, tensors, metadata):
    header = {"__metadata__": metadata}
    offset = 0
    blobs = []
    for name, t in tensors.items():
        data = np.ascontiguousarray(t.numpy().astype("<f4")).tobytes()
        header[name] = {"dtype": "F32", "shape": list(t.shape), "data_offsets": [offset, offset + len(data)]}
        offset += len(data)
        blobs.append(data)
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * ((8 - len(h) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for blob in blobs:
            f.write(blob)


def load_safetensors(path):
    with open(path, "rb") as f:
        raw = f.read()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + n])
    metadata = header.pop("__metadata__", {})
    base = 8 + n
    tensors = {}
    for name, e in header.items():
        if e["dtype"] != "F32":
            raise ValueError(f"{path}: tensor {name} has dtype {e['dtype']}, expected F32")
        b, end = e["data_offsets"]
        arr = np.frombuffer(raw[base + b: base + end], dtype="<f4").reshape(e["shape"])
        tensors[name] = torch.from_numpy(arr.astype(np.float32))
    return tensors, metadata


def load_model(path):
    """The inference form (BatchNorm folded) of a saved model."""
    tensors, metadata = load_safetensors(path)
    if metadata.get("format") != FORMAT:
        raise ValueError(f"{path}: not a {FORMAT} model")
    config = json.loads(metadata["config"])
    vocab = json.loads(metadata["vocabulary"])
    model = DualEncoder(config, vocab, folded=True)
    model.image.load_folded(tensors)
    model.text.load_named(tensors)
    if model.no_attn is not None:
        model.no_attn.data.copy_(tensors["no_attn"])
    model.eval()
    model.name = metadata.get("name", str(path))
    return model
