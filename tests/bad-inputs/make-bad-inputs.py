#!/usr/bin/python3
"""Writes the crafted bad inputs of tests/bad-inputs/ (run from anywhere).
expected.tsv (hand-maintained) lists for each the loader and the exact error."""
import io, json, os, struct, zlib
import numpy as np

here = os.path.dirname(os.path.abspath(__file__))


def put(name, data):
    path = os.path.join(here, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(path, 'wb') as f:
        f.write(data)


def chunk(kind, body):
    return struct.pack('>I', len(body)) + kind + body + struct.pack('>I', zlib.crc32(kind + body))


def png(width, height, rows=None, depth=8, colour=0):
    ihdr = struct.pack('>IIBBBBB', width, height, depth, colour, 0, 0, 0)
    raw = rows if rows is not None else b''.join(b'\0' + b'\x80' * width for _ in range(height))
    return (b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', ihdr) + chunk(b'IDAT', zlib.compress(raw)) +
            chunk(b'IEND', b''))


def npy_header(descr, shape, fortran=False, magic=b'\x93NUMPY', version=(1, 0), text=None):
    if text is None:
        text = "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (
            descr, 'True' if fortran else 'False', shape)
    text = text.encode()
    pad = 64 - (len(magic) + 4 + len(text) + 1) % 64
    text += b' ' * pad + b'\n'
    return magic + bytes(version) + struct.pack('<H', len(text)) + text


def npy(a):
    b = io.BytesIO()
    np.save(b, a)
    return b.getvalue()


def safetensors(header, blob=b'', length=None):
    h = json.dumps(header).encode()
    return struct.pack('<Q', len(h) if length is None else length) + h + blob


good_png = png(4, 3)
# --- images
put('png-truncated.png', good_png[:40])
put('png-wrong-magic.png', b'GIF89a\x04\x00\x03\x00' + b'\0' * 30)
put('png-empty.png', b'')
put('png-huge.png', png(200000, 200000, rows=b'\0'))
put('png-zero-width.png', png(0, 3, rows=b''))
put('png-bad-crc.png', good_png[:29] + b'\0\0\0\0' + good_png[33:])
jpg = bytes.fromhex('ffd8ffe000104a46494600010100000100010000')
put('jpeg-truncated.jpg', jpg)
put('jpeg-wrong-magic.jpg', b'\x89PNG\r\n\x1a\n' + b'\0' * 40)
# SOF0 65000 × 65000 grey, then end of image
import cv2
small = bytearray(cv2.imencode('.jpg', np.zeros((8, 8), np.uint8))[1].tobytes())
at = small.index(b'\xff\xc0')
small[at + 5:at + 9] = struct.pack('>HH', 65000, 65000)   # height, width
put('jpeg-huge.jpg', bytes(small))
# A 16-byte ACR-NEMA header GDCM's image reader asserts on (fuzz-jpeg): its decoder
# process aborts, the caller reports the file and goes on.
put('dicom-gdcm-abort.dcm', bytes.fromhex('08001000080000 00feffff790000ffff'.replace(' ', '')))
# --- npy
put('npy-wrong-magic.npy', b'\x93NUMPZ\x01\x00' + b'\0' * 60)
put('npy-truncated-header.npy', npy_header('<f4', (2, 2))[:30])
put('npy-truncated-data.npy', npy_header('<f4', (4, 5)) + b'\0' * 12)
put('npy-object.npy', npy_header('|O', (2,)) + b'\0' * 16)
put('npy-negative-shape.npy', npy_header('<f4', (-1, 3)) + b'\0' * 12)
put('npy-huge-shape.npy', npy_header('<f4', (100000000, 100000000)))
put('npy-not-a-dict.npy', npy_header('<f4', (2,), text='[1, 2, 3]') + b'\0' * 8)
put('npy-nine-dims.npy', npy_header('<f4', (1,) * 9) + b'\0' * 4)
put('npy-overflow-shape.npy', npy_header('<f8', (2**62, 2**62)))
# --- attention maps
put('map-nan.npy', npy(np.array([[0.1, np.nan], [0.2, 0.3]], np.float32)))
put('map-inf.npy', npy(np.array([[0.1, np.inf], [0.2, 0.3]], np.float32)))
put('map-4d.npy', npy(np.zeros((1, 2, 3, 4), np.float32)))
put('map-empty.npy', npy(np.zeros((0, 3), np.float32)))
# --- safetensors
put('st-truncated.safetensors', b'\x10\x00\x00')
put('st-header-too-long.safetensors', safetensors({}, length=1 << 40))
put('st-bad-json.safetensors', struct.pack('<Q', 10) + b'{"a": [1, ')
put('st-offsets-outside.safetensors', safetensors(
    {'w': {'dtype': 'F32', 'shape': [2, 2], 'data_offsets': [0, 64]}}, bytes(16)))
put('st-shape-mismatch.safetensors', safetensors(
    {'w': {'dtype': 'F32', 'shape': [3, 4], 'data_offsets': [0, 16]}}, bytes(16)))
put('st-unknown-dtype.safetensors', safetensors(
    {'w': {'dtype': 'F128', 'shape': [1], 'data_offsets': [0, 16]}}, bytes(16)))
put('st-wrong-type.safetensors', safetensors({'w': {'dtype': 'F32', 'shape': 'big', 'data_offsets': [0, 4]}}, bytes(4)))
# --- manifests (one folder each, image a.png beside the manifest)
head = '{"format": "heatscope-dataset", "version": 1, "instances": '


def manifest(name, text, with_image=True):
    put(f'{name}/heatscope.json', text)
    if with_image:
        put(f'{name}/a.png', good_png)


manifest('manifest-deep-nesting', head + '[' * 100000 + ']' * 100000 + '}')
manifest('manifest-invalid-utf8', (head + '[{"id": "a\xff", "image": "a.png"}]}').encode('latin-1'))
manifest('manifest-wrong-type', head + '"all of them"}')
manifest('manifest-path-escape', head + '[{"id": "a", "image": "../../../../etc/passwd"}]}')
manifest('manifest-absolute-path', head + '[{"id": "a", "image": "/etc/passwd"}]}')
manifest('manifest-truncated', head + '[{"id": "a", "ima')
manifest('manifest-inverted-box', head + '[{"id": "a", "image": "a.png", "regions": '
         '{"r": {"boxes": [[3, 2, 1, 0]]}}}]}')
manifest('manifest-inverted-y', head + '[{"id": "a", "image": "a.png", "regions": '
         '{"r": {"boxes": [[0, 3, 2, 1]]}}}]}')
manifest('manifest-box-outside', head + '[{"id": "a", "image": "a.png", "regions": '
         '{"r": {"boxes": [[1, 1, 40, 30]]}}}]}')
manifest('manifest-duplicate-id', head + '[{"id": "a", "image": "a.png"}, {"id": "a", "image": "a.png"}]}')
manifest('manifest-nan-literal', head + '[{"id": "a", "image": "a.png", "regions": '
         '{"r": {"boxes": [[NaN, 0, 1, 1]]}}}]}')
manifest('manifest-huge-number', head + '[{"id": "a", "image": "a.png", "regions": '
         '{"r": {"boxes": [[0, 0, 1e999, 1]]}}}]}')
manifest('manifest-negative-version', '{"format": "heatscope-dataset", "version": -1, "instances": []}')
manifest('manifest-wrong-format', '{"format": "coco", "version": 1, "instances": []}')
manifest('manifest-map-shape', head + '[{"id": "a", "image": "a.png", "sentences": [{"id": "s", "text": "x"}], '
         '"maps": [{"model": "m", "query": "s", "file": "m.npy"}]}]}')
put('manifest-map-shape/m.npy', npy(np.zeros((2, 3, 4, 5), np.float32)))
manifest('manifest-symlink-escape', head + '[{"id": "a", "image": "a.png"}]}', with_image=False)
link = os.path.join(here, 'manifest-symlink-escape', 'a.png')
if os.path.lexists(link):
    os.remove(link)
os.symlink('../outside/secret.png', link)
put('outside/secret.png', good_png)


def symlink(name, target):
    link = os.path.join(here, name)
    if os.path.lexists(link):
        os.remove(link)
    os.symlink(target, link)


# a map file and a folder of the dataset that are symlinks leading outside it
manifest('manifest-symlink-map', head + '[{"id": "a", "image": "a.png", "sentences": [{"id": "s", "text": "x"}], '
         '"maps": [{"model": "m", "query": "s", "file": "m.npy"}]}]}')
symlink('manifest-symlink-map/m.npy', '../good-map.npy')
manifest('manifest-symlink-dir', head + '[{"id": "a", "image": "images/secret.png"}]}', with_image=False)
symlink('manifest-symlink-dir/images', '../outside')
# --- importers
put('nih-invalid-utf8.csv', b'Image Index,Finding Label,Bbox [x,y,w,h],,,\nm\xe9ss.png,Mass,1,1,2,2\n')
put('nih-unterminated-quote.csv', 'Image Index,Finding Label,Bbox [x,y,w,h],,,\n"a.png,Mass,1,1,2,2\n')
put('nih-wrong-header.csv', 'file,label,x,y,w,h\na.png,Mass,1,1,2,2\n')
put('coco-wrong-type.json', '{"images": {"id": 1}, "annotations": [], "categories": []}')
put('coco-deep-nesting.json', '{"images": ' + '[' * 100000 + ']' * 100000 + '}')
put('coco-truncated.json', '{"images": [{"id": 1, "file_name": "a.png", "wid')
put('ms-cxr-negative-size.csv', 'dicom_id,category_name,label_text,path,x,y,w,h,image_width,image_height\n'
    'a,Pneumonia,Opacity,outside/secret.png,1,1,-4,2,8,6\n')
put('chexlocalize-not-object.json', '[1, 2, 3]')
put('imagenome-no-columns.txt', 'study_id\timage_id\n1\t2\n')
# --- annotation
put('project-wrong-type.json', '{"annotator": "a", "dataset": "d", "models": "grounded"}')
put('project-deep-nesting.json', '{"annotator": ' + '[' * 100000 + ']' * 100000 + '}')
put('project-invalid-utf8.json', b'{"annotator": "\xc3\x28", "dataset": "d", "models": ["a"]}')
put('project-huge-seed.json', '{"annotator": "a", "dataset": "d", "models": ["a"], "seed": 1e400}')
# --- RLE (loader rle: first line "HEIGHT WIDTH", second the counts)
put('rle-sum-mismatch.txt', '3 4\n02N0000\n')
put('rle-bad-char.txt', '3 4\n0 2\n')
# an id whose flat image path exists but whose copy would land outside the output folder
put('chexlocalize-path-escape.json', json.dumps(
    {'outside/../../../tests/bad-inputs/outside/secret': {'Edema': {'size': [3, 4], 'counts': '<1'}}}))
# a valid 3 × 4 map for the CLI cases that need one
put('good-map.npy', npy(np.full((3, 4), 0.25, np.float32)))
put('coco-empty.json', '')
put('chexlocalize-whitespace.json', '  \n ')
put('manifest-empty/heatscope.json', '')
# fuzz-manifest found this (UBSan: NULL + 0 copying the items of an empty
# array that came before anything was collected); the fuzzer's input itself
put('manifest-top-array/heatscope.json', '[]')
# project files must not point the answers file (which the session replaces) elsewhere
put('project-answers-escape.json', '{"annotator": "a", "dataset": "d", "models": ["a"], '
    '"answers": "notes/../../../.bashrc"}')
put('project-answers-absolute.json', '{"annotator": "a", "dataset": "d", "models": ["a"], '
    '"answers": "/tmp/answers.jsonl"}')
# fuzz-annotation-project found this leak (strings of a refused array); the
# fuzzer's input itself is project-fuzz-leak-models.json
put('project-empty-model.json', '{"annotator": "a", "dataset": "d", "models": ["a", "b", ""]}')
# RLE errors inside an importer's file name that file and the element
put('coco-rle-bad.json', json.dumps(
    {'images': [{'id': 1, 'file_name': 'secret.png', 'width': 4, 'height': 3}],
     'annotations': [{'id': 1, 'image_id': 1, 'category_id': 1, 'bbox': [0, 0, 2, 2],
                      'segmentation': {'size': [3, 4], 'counts': '02N0000'}}],
     'categories': [{'id': 1, 'name': 'nodule'}]}))
put('chexlocalize-rle-bad.json', json.dumps(
    {'outside/secret': {'Edema': {'size': [3, 4], 'counts': '02N0000'}}}))
