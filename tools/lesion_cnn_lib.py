"""lesion_cnn_lib.py — Heatscope's built-in lesion classifier and its saliency maps, in PyTorch.

Shared by tools/train-lesion-cnn (training, export) and python/tests/test_saliency.py
(the reference the C code in src/core/hs-model-cnn.c must equal to 1e-4 per cell).

Format "heatscope-cnn-1" (a .safetensors file):

  __metadata__  format, name, config (JSON: image_size, conv = [[c_in, c_out, stride], ...],
                classes, normalize_mean, normalize_std), training (JSON)
  tensors       image.conv{l}.weight [c_out, c_in, 3, 3], image.conv{l}.bias [c_out],
                head.weight [n_classes, c_last], head.bias [n_classes]   (all F32)

  image   grey / max in [0, 1], area-resized to S x S, x = (v - mean) / std   (= model_lib)
  CNN     per layer conv3x3 (padding 1, stride s) + bias + ReLU
  head    global average pooling over the last layer's cells, linear -> one logit per class

Saliency of the logit y_c (c = the class the prompt names, else the predicted class):
  grad     |dy_c/dx|                 [S, S]
  ixg      |x * dy_c/dx|             [S, S]
  gradcam  ReLU(sum_k a_k A_k), a_k = mean over cells of dy_c/dA_k, A = last conv output
"""

import json
import re

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

import model_lib as ml

FORMAT = "heatscope-cnn-1"
METHODS = ("grad", "ixg", "gradcam")
DEFAULT_CONFIG = {
    "image_size": 128,
    "conv": [[1, 8, 2], [8, 16, 1], [16, 32, 2], [32, 32, 1]],
    "classes": ["regular", "irregular"],
    "normalize_mean": 0.5,
    "normalize_std": 0.25,
}


class LesionCNN(nn.Module):
    """The classifier.  batchnorm=True is the training form: a BatchNorm after every
    convolution, folded into the convolution's weights and bias by tensors() (eval-mode
    statistics), so the exported network is the plain conv + bias + ReLU stack above.
    Both forms draw the same initial weights for the same torch seed (BatchNorm draws
    nothing and starts as the identity, gamma = 1, beta = 0)."""

    def __init__(self, config, batchnorm=False):
        super().__init__()
        self.config = config
        self.convs = nn.ModuleList(nn.Conv2d(ci, co, 3, stride=s, padding=1) for ci, co, s in config["conv"])
        self.head = nn.Linear(config["conv"][-1][1], len(config["classes"]))
        # He initialisation: with torch's default the activations shrink layer by layer and the
        # pooled features barely differ between slices (training stayed at chance)
        for conv in self.convs:
            nn.init.kaiming_normal_(conv.weight, nonlinearity="relu")
            nn.init.zeros_(conv.bias)
        self.norms = nn.ModuleList(nn.BatchNorm2d(co) for _, co, _ in config["conv"]) if batchnorm else None

    def features(self, x):
        """x [B, 1, S, S] -> the last conv layer's output [B, C, G, G]."""
        for i, conv in enumerate(self.convs):
            x = conv(x)
            if self.norms is not None:
                x = self.norms[i](x)
            x = F.relu(x)
        return x

    def forward(self, x):
        return self.head(self.features(x).mean(dim=(2, 3)))

    def tensors(self):
        """The exported tensors; BatchNorm (running statistics) folded into the convolutions."""
        out = {}
        for i, conv in enumerate(self.convs):
            w, b = conv.weight.detach().clone(), conv.bias.detach().clone()
            if self.norms is not None:
                bn = self.norms[i]
                scale = bn.weight.detach() / torch.sqrt(bn.running_var + bn.eps)
                w = w * scale[:, None, None, None]
                b = (b - bn.running_mean) * scale + bn.bias.detach()
            out[f"image.conv{i}.weight"] = w
            out[f"image.conv{i}.bias"] = b
        out["head.weight"] = self.head.weight.detach().clone()
        out["head.bias"] = self.head.bias.detach().clone()
        return out

    def calibrate(self, x, batch=100):
        """Set the BatchNorm statistics to those of the inputs x under the current weights: the
        mean of the batch means and (unbiased) variances over x in batches of `batch`.  The
        running averages of training lag behind the weights; with them the evaluation
        collapsed to one class at times."""
        if self.norms is None:
            return
        was_training = self.training
        for bn in self.norms:
            bn.reset_running_stats()
            bn.momentum = None                     # cumulative average over the batches
        self.train()
        with torch.no_grad():
            for b in range(0, len(x), batch):
                self.features(x[b:b + batch])
        for bn in self.norms:
            bn.momentum = 0.1
        self.train(was_training)

    def load_named(self, tensors):
        with torch.no_grad():
            for i, conv in enumerate(self.convs):
                conv.weight.copy_(tensors[f"image.conv{i}.weight"])
                conv.bias.copy_(tensors[f"image.conv{i}.bias"])
            self.head.weight.copy_(tensors["head.weight"])
            self.head.bias.copy_(tensors["head.bias"])


def save(model, path, name, training):
    metadata = {
        "format": FORMAT,
        "name": name,
        "config": json.dumps(model.config, sort_keys=True),
        "training": json.dumps(training, sort_keys=True),
    }
    ml.save_safetensors(path, model.tensors(), metadata)


def load(path):
    tensors, metadata = ml.load_safetensors(path)
    if metadata.get("format") != FORMAT:
        raise ValueError(f"{path}: not a {FORMAT} model")
    model = LesionCNN(json.loads(metadata["config"]))
    model.load_named(tensors)
    model.eval()
    model.name = metadata.get("name", str(path))
    return model


def preprocess(grey, config):
    """float64 grey [H, W] in [0, 1] -> float32 input [1, 1, S, S] (as hs_model_image_input)."""
    return ml.preprocess(grey, config)


def pick_class(model, prompt, logits):
    """The class whose words occur earliest in the prompt (hs_text_tokenize), else the argmax."""
    tokens = ml.tokenize(prompt)
    best, best_pos = None, len(tokens) + 1
    for c, name in enumerate(model.config["classes"]):
        words = ml.tokenize(name)
        for i in range(0, min(len(tokens) - len(words) + 1, best_pos)):
            if tokens[i:i + len(words)] == words:
                best, best_pos = c, i
                break
    if best is not None:
        return best
    return int(torch.argmax(logits).item())      # the first of ties, as the C code


def saliency(model, x, prompt, method):
    """The map [H, W] (float64 numpy) and the explained class index."""
    x = x.clone().requires_grad_(True)
    acts = model.features(x)
    logits = model.head(acts.mean(dim=(2, 3)))[0]
    c = pick_class(model, prompt, logits.detach())
    if method == "gradcam":
        g, = torch.autograd.grad(logits[c], acts)
        alpha = g.mean(dim=(2, 3), keepdim=True)
        m = torch.relu((alpha * acts).sum(dim=1))[0]
    else:
        g, = torch.autograd.grad(logits[c], x)
        m = (x * g if method == "ixg" else g)[0, 0].abs()
    return m.detach().double().numpy(), c
