#!/usr/bin/python3
"""Grad-CAM maps (pytorch-grad-cam style) of a torchvision classifier on the brain MRI
slices of ../shared/data/mri-brain-tumor, written as a Heatscope dataset and scored.

    PYTHONPATH=build/python /usr/bin/python3 python/examples/mri_gradcam.py mri-cam
    build/src/app/heatscope mri-cam              # or heatscope.open(...) below

Each slice gets its tumour box (from the YOLO label), the three classes as "class"
queries (the true one targets the box) and one CAM per class.  The ResNet-18 here has
random weights — nothing can be downloaded — so the maps show the method, not a trained
model; load your checkpoint where marked.
"""
import argparse
import glob
import os

import numpy as np
import torch
import torchvision

import heatscope

CLASSES = ["pituitary tumour", "meningioma", "glioma"]      # YOLO class 0, 1, 2


class GradCAM:
    """CAM = ReLU(Σ_k α_k A_k) with α_k the spatial mean of ∂score/∂A_k over a conv layer."""

    def __init__(self, model, layer):
        self.model, self.acts = model, None
        layer.register_forward_hook(lambda m, i, o: setattr(self, "acts", o))

    def __call__(self, x, classes):
        logits = self.model(x)
        cams = []
        for k, c in enumerate(classes):
            grad, = torch.autograd.grad(logits[0, c], self.acts, retain_graph=k + 1 < len(classes))
            alpha = grad.mean(dim=(2, 3), keepdim=True)
            cams.append(torch.relu((alpha * self.acts).sum(dim=1))[0].detach().numpy())
        return cams                                            # [7, 7] each for 224² input


def preprocess(image):
    grey = image.reshape(image.shape[0], image.shape[1], -1).mean(axis=2) / 255.0
    x = torch.from_numpy(grey).float()[None, None]
    x = torch.nn.functional.interpolate(x, size=(224, 224), mode="bilinear", align_corners=False)
    x = (x - 0.449) / 0.226                                    # ImageNet grey statistics
    return x.expand(1, 3, 224, 224)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("output")
    ap.add_argument("--data", default=os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared",
                                                   "data", "mri-brain-tumor"))
    ap.add_argument("--limit", type=int, default=0, help="first N slices only")
    ap.add_argument("--open", action="store_true", help="open the app on the dataset")
    args = ap.parse_args()

    torch.manual_seed(0)
    model = torchvision.models.resnet18(weights=None, num_classes=len(CLASSES)).eval()
    # model.load_state_dict(torch.load("my-mri-classifier.pt"))        # your checkpoint here
    cam = GradCAM(model, model.layer4)

    slices = sorted(glob.glob(os.path.join(args.data, "*", "*.jpg")))
    if args.limit:
        slices = slices[:args.limit]
    with heatscope.Dataset.create(args.output, name="Brain MRI, Grad-CAM",
                                  description="figshare brain tumour slices (Cheng et al.), CC BY 4.0") as ds:
        ds.describe_model("resnet18-gradcam", "torchvision ResNet-18 (random weights), Grad-CAM on layer4")
        for path in slices:
            image = heatscope.load_image(path)
            H, W = image.shape[:2]
            with open(path[:-4] + ".txt") as f:
                cls, xc, yc, bw, bh = f.read().split()
            cls = int(cls)
            box = [(float(xc) - float(bw) / 2) * W, (float(yc) - float(bh) / 2) * H,
                   (float(xc) + float(bw) / 2) * W, (float(yc) + float(bh) / 2) * H]
            box = [max(0.0, box[0]), max(0.0, box[1]), min(float(W), box[2]), min(float(H), box[3])]
            iid = "%s-%s" % (cls, os.path.basename(path)[:-4])
            ds.add_instance(iid, image=path,
                            sentences=[{"id": "c%d" % k, "text": c, "kind": "class"} for k, c in enumerate(CLASSES)],
                            regions={"tumour": box}, targets={"c%d" % cls: ["tumour"]},
                            labels=[(CLASSES[cls], "positive", ["tumour"])],
                            metadata={"modality": "MR", "licence": "CC-BY-4.0"})
            for k, m in enumerate(cam(preprocess(image), range(len(CLASSES)))):
                ds.add_map(iid, "c%d" % k, "resnet18-gradcam", m)
    rows = heatscope.metrics(args.output, dataframe=False)
    scored = [r for r in rows if r["auroc"] is not None]
    print("%s: %d slices, %d maps, %d scored against their tumour box; mean AUROC %.3f, pointing game %.2f"
          % (args.output, len(slices), len(rows), len(scored),
             np.mean([r["auroc"] for r in scored]), np.mean([r["pointing_hit"] for r in scored])))
    if args.open:
        heatscope.open(args.output)


if __name__ == "__main__":
    main()
