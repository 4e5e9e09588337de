#!/usr/bin/python3
"""Independent DICOM reference for test-image-dicom.

Usage: dicom-reference.py OUT_DIR NAME=PATH=VIA...   (PATH "pydicom:F": F among
pydicom's own test files, which Debian's python3-pydicom ships)

For each file, pydicom reads the stored values of frame 1 and the attributes
the viewer uses; VIA names how compressed pixel data reaches pydicom without
GDCM (Debian's pydicom has no JPEG-lossless, JPEG-LS or RLE decoder):
  none                      pydicom reads the file (uncompressed, or JPEG 2000 through Pillow)
  dcmdjpeg|dcmdjpls|dcmdrle DCMTK decompresses it first (DCMTK shares no code with GDCM)
  dcmcjpeg-e1|dcmcjpls      DCMTK *compresses* PATH losslessly into OUT_DIR/NAME.dcm (the
                            fixture the test decodes); the reference is PATH itself.
  mpeg2                     PATH's header with an MPEG-2 transfer syntax and encapsulated bytes
                            that no still-image decoder reads, as OUT_DIR/NAME.dcm (no pixels).
Writes OUT_DIR/NAME.bin (frame 1, int32 little endian, interleaved, colour as
RGB) and prints one JSON object {NAME: attributes}; "decode" is the file the
test decodes with Heatscope.
"""
import json
import os
import subprocess
import sys

import numpy as np
import pydicom
import pydicom.data
from pydicom.pixel_data_handlers.util import convert_color_space
from pydicom.uid import ImplicitVRLittleEndian


def number(ds, keyword, index=0):
    value = ds.get(keyword)
    if value is None or value == "":
        return None
    if isinstance(value, pydicom.multival.MultiValue):
        value = value[index]
    elif index > 0:
        return None
    return float(value)


def main():
    out_dir = sys.argv[1]
    result = {}
    for spec in sys.argv[2:]:
        name, path, via = spec.split("=", 2)
        if path.startswith("pydicom:"):
            path = pydicom.data.get_testdata_file(path[len("pydicom:"):])
        source = path
        decode = path
        if via in ("dcmdjpeg", "dcmdjpls", "dcmdrle"):
            source = os.path.join(out_dir, name + ".raw.dcm")
            subprocess.run([via, path, source], check=True, capture_output=True)
        elif via in ("dcmcjpeg-e1", "dcmcjpls"):
            fixture = decode = os.path.join(out_dir, name + ".dcm")
            tool = ["dcmcjpeg", "+e1"] if via == "dcmcjpeg-e1" else ["dcmcjpls"]
            subprocess.run(tool + [path, fixture], check=True, capture_output=True)
        elif via == "mpeg2":
            decode = os.path.join(out_dir, name + ".dcm")
            ds = pydicom.dcmread(path)
            ds.file_meta.TransferSyntaxUID = "1.2.840.10008.1.2.4.100"
            ds.PixelData = pydicom.encaps.encapsulate([b"\x00\x00\x01\xb3" + bytes(64)])
            ds["PixelData"].VR = "OB"
            ds["PixelData"].is_undefined_length = True
            ds.save_as(decode)
            result[name] = {"decode": decode, "transfer_syntax": ds.file_meta.TransferSyntaxUID}
            continue
        ds = pydicom.dcmread(source, force=True)
        if "TransferSyntaxUID" not in ds.file_meta:
            ds.file_meta.TransferSyntaxUID = ImplicitVRLittleEndian  # no preamble, no meta
        pixels = ds.pixel_array
        frames = int(ds.get("NumberOfFrames", 1) or 1)
        if frames > 1:
            pixels = pixels[0]
        photometric = ds.PhotometricInterpretation
        if photometric.startswith("YBR_FULL") and via == "none":
            pixels = convert_color_space(pixels, "YBR_FULL", "RGB")
        np.asarray(pixels, dtype="<i4").tofile(os.path.join(out_dir, name + ".bin"))
        result[name] = {
            "decode": decode,
            "rows": int(ds.Rows),
            "columns": int(ds.Columns),
            "samples": int(ds.SamplesPerPixel),
            "photometric": photometric,
            "frames": frames,
            "slope": number(ds, "RescaleSlope") or 1.0,
            "intercept": number(ds, "RescaleIntercept") or 0.0,
            "window_center": number(ds, "WindowCenter"),
            "window_width": number(ds, "WindowWidth"),
            "spacing": [number(ds, "PixelSpacing", 0), number(ds, "PixelSpacing", 1)]
            if ds.get("PixelSpacing") is not None else None,
            "imager_spacing": [number(ds, "ImagerPixelSpacing", 0), number(ds, "ImagerPixelSpacing", 1)]
            if ds.get("ImagerPixelSpacing") is not None else None,
            "transfer_syntax": str(pydicom.dcmread(decode, force=True).file_meta.get("TransferSyntaxUID", "")),
        }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
