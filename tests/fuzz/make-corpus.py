#!/usr/bin/python3
"""Writes the seed corpora tests/fuzz/corpus/<target>/ (small files: generated
ones plus cut-down examples of ../shared/data).  Run from the project root:
python3 tests/fuzz/make-corpus.py [SHARED_DATA]."""
import io, json, os, struct, sys
import numpy as np
import cv2

top = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'corpus')
shared = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(os.path.abspath(__file__)), '..', '..', '..', 'shared', 'data')


def put(target, name, data):
    d = os.path.join(top, target)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(d, name), 'wb') as f:
        f.write(data)


def npy(a):
    b = io.BytesIO()
    np.save(b, a)
    return b.getvalue()


rng = np.random.default_rng(7)
# images: tiny generated ones in every supported layout, plus a cut-down real X-ray
for ch, name in ((1, 'grey'), (3, 'rgb'), (4, 'rgba')):
    img = rng.integers(0, 255, (5, 7, ch) if ch > 1 else (5, 7), dtype=np.uint8)
    put('png', name + '.png', cv2.imencode('.png', img)[1].tobytes())
    if ch != 4:
        put('jpeg', name + '.jpg', cv2.imencode('.jpg', img)[1].tobytes())
put('png', 'grey16.png', cv2.imencode('.png', rng.integers(0, 65535, (4, 3), dtype=np.uint16))[1].tobytes())
put('png', 'palette.png', bytes.fromhex(
    '89504e470d0a1a0a0000000d4948445200000002000000020103000000'
    '48789f6700000006504c5445ff000000ff00e3d3e5a30000000c4944415408d763606060000000060001'
    'b35ee6d80000000049454e44ae426082'))
put('jpeg', 'progressive.jpg', cv2.imencode('.jpg', rng.integers(0, 255, (9, 11), dtype=np.uint8),
                                             [cv2.IMWRITE_JPEG_PROGRESSIVE, 1])[1].tobytes())
for sub, ext in (('cxr-lung-boxes/images', '.jpg'), ('nih-boxes/images', '.png')):
    d = os.path.join(shared, sub)
    if os.path.isdir(d):
        f = sorted(x for x in os.listdir(d) if x.lower().endswith(ext) or x.lower().endswith('.jpeg'))[:1]
        for x in f:
            img = cv2.imread(os.path.join(d, x), cv2.IMREAD_UNCHANGED)
            if img is not None:
                small = cv2.resize(img, (24, 24), interpolation=cv2.INTER_AREA)
                put('png' if ext == '.png' else 'jpeg', 'real' + ext, cv2.imencode(ext, small)[1].tobytes())

# npy and attention maps
for name, a in (('f4.npy', rng.random((4, 5), dtype=np.float32)),
                ('f8-3d.npy', rng.random((2, 3, 4))),
                ('u1.npy', rng.integers(0, 255, (3, 3), dtype=np.uint8)),
                ('i2-be.npy', np.arange(6, dtype='>i2').reshape(2, 3)),
                ('fortran.npy', np.asfortranarray(rng.random((3, 4), dtype=np.float32))),
                ('bool.npy', np.array([True, False])),
                ('f2.npy', np.ones((2, 2), np.float16)),
                ('scalar.npy', np.array(1.5))):
    put('npy', name, npy(a))
for name, a in (('sentence.npy', rng.random((6, 5), dtype=np.float32)),
                ('tokens.npy', rng.random((2, 4, 3), dtype=np.float32)),
                ('tokens-noattn.npy', rng.random((3, 4, 3), dtype=np.float32)),
                ('nan.npy', np.array([[np.nan, 1.0], [np.inf, 0.0]], np.float32))):
    put('attention-map', name, npy(a))

# safetensors
def safetensors(tensors, meta=None):
    header, blobs, off = {}, b'', 0
    if meta:
        header['__metadata__'] = meta
    for k, (dt, arr) in tensors.items():
        raw = arr.tobytes()
        header[k] = {'dtype': dt, 'shape': list(arr.shape), 'data_offsets': [off, off + len(raw)]}
        blobs += raw
        off += len(raw)
    h = json.dumps(header).encode()
    return struct.pack('<Q', len(h)) + h + blobs


put('safetensors', 'f32.safetensors', safetensors(
    {'w': ('F32', rng.random((3, 4), dtype=np.float32)), 'b': ('F32', np.zeros(4, np.float32))},
    {'format': 'pt', 'heatscope.vocab': 'a b c'}))
put('safetensors', 'mixed.safetensors', safetensors(
    {'h': ('F16', np.ones((2, 2), np.float16)), 'i': ('I64', np.arange(3, dtype=np.int64)),
     'bf': ('BF16', np.ones(2, np.uint16)), 'u': ('U8', np.arange(4, dtype=np.uint8))}))
put('safetensors', 'empty.safetensors', safetensors({}))

# manifest
put('manifest', 'small.json', json.dumps({
    'format': 'heatscope-dataset', 'version': 1, 'name': 'fuzz', 'description': 'seed',
    'models': {'m': {'description': 'a model'}},
    'instances': [
        {'id': 'a', 'image': 'images/a.png', 'abnormal': True, 'findings': [{'condition': 'mass'}],
         'regions': {'left lung': {'boxes': [[0, 0, 2, 2], [1, 1, 3, 2]]},
                     'mass': {'boxes': [[0.5, 0.5, 1.5, 1.5]], 'mask': 'masks/m.png'}},
         'sentences': [{'id': 's1', 'text': 'A mass in the left lung.', 'kind': 'report',
                        'targets': ['left lung', 'mass'],
                        'labels': [{'condition': 'mass', 'context': 'positive'}]}],
         'maps': [{'model': 'm', 'query': 's1', 'file': 'maps/m/a.npy', 'tokens': ['a', 'mass'],
                   'prompt': 'a mass'}],
         'metadata': {'view': 'PA'}},
        {'id': 'b', 'image': 'dir/b.png', 'abnormal': False, 'x-extension': {'ignored': [1, 2]}}]},
    indent=1))
put('manifest', 'escape.json', '{"format": "heatscope-dataset", "version": 1, "instances": '
    '[{"id": "a\\u00e9\\ud83d\\ude00", "image": "../../etc/passwd"}]}')
put('manifest', 'numbers.json', '{"format": "heatscope-dataset", "version": 1, "instances": '
    '[{"id": "a", "image": "a.png", "regions": {"r": {"boxes": [[-1e308, 1E-5, 2.5e+3, 0]]}}}]}')

# annotation files
project = {'annotator': 'alice', 'dataset': 'data', 'models': ['grounded', 'blind'],
           'rounds': ['report', 'custom'], 'custom_prompts': ['left, lower lung'],
           'questions': 'likert', 'seed': 42, 'instances': ['a', 'b'], 'answers': 'answers.jsonl'}
put('annotation-project', 'likert.json', json.dumps(project))
project.update(questions='three', rounds=['report'])
del project['custom_prompts']
put('annotation-project', 'three.json', json.dumps(project))
lines = [
    {'annotator': 'alice', 'instance': 'a', 'round': 'report', 'query': 's1', 'prompt': 'a mass',
     'model': 'grounded', 'alias': 'A', 'form': 'three', 'correct': 'yes', 'useful': 'partially',
     'precise': 'no', 'no_attn': 0.12, 'time': '2026-11-22T07:00:00Z'},
    {'annotator': 'alice', 'instance': 'b', 'round': 'custom', 'query': 'custom-1', 'prompt': 'x',
     'model': 'blind', 'alias': 'B', 'form': 'likert', 'recall': 60, 'precision': 40,
     'intuitive': 4, 'no_attn': None, 'time': '2026-11-22T07:01:00Z'}]
put('annotation-jsonl', 'answers.jsonl', '\n'.join(json.dumps(x) for x in lines) + '\n{"annotator": "tru')

# CSV
put('csv', 'quoted.csv', 'a,b,c\n1,"two, three","say ""hi"""\r\n"multi\nline",,x\n')
put('csv', 'bom.csv', '\ufeffImage Index,Finding Label\nx.png,Mass\n')
nih = os.path.join(shared, 'nih-boxes', 'BBox_List_2017.csv')
head = 'Image Index,Finding Label,Bbox [x,y,w,h],,,\n'
put('nih', 'a.csv', head + 'a.png,Mass,1,1,2,1\na.png,Effusion,0,0,512,512\na.png,Nodule,0.5,0.5,10,10\nmissing.png,Mass,1,1,1,1\n')
if os.path.exists(nih):
    with open(nih) as f:
        real = f.read().splitlines()[:12]
    put('nih', 'real.csv', '\n'.join(real) + '\n')
    put('csv', 'nih.csv', '\n'.join(real[:6]) + '\n')

# RLE (first two bytes: height - 1, width - 1 for the harness, modulo 64): COCO compressed
# strings of masks of that size, so that the harness decodes and re-encodes them, plus
# strings whose counts do not add up to the size.
def rle_string(mask):
    flat = mask.flatten(order='F')
    counts, value, run = [], 0, 0
    for v in flat:
        if v != value:
            counts.append(run)
            value, run = v, 0
        run += 1
    counts.append(run)
    out = ''
    for i, x in enumerate(counts):
        if i > 2:
            x -= counts[i - 2]
        more = True
        while more:
            c = x & 0x1f
            x >>= 5
            more = (x != -1) if c & 0x10 else (x != 0)
            out += chr((c | 0x20 if more else c) + 48)
    return out


for i, (h, w) in enumerate(((6, 7), (1, 1), (40, 3), (64, 64))):
    put('rle', f'mask{i}.txt', bytes([h - 1, w - 1]) + rle_string(rng.integers(0, 2, (h, w))).encode())
for i, s in enumerate(['30', 'PPYo0', '0h1L2N0O1M3', '>5;4000000', '']):
    put('rle', f'{i}.txt', bytes([5, 6]) + s.encode())

# COCO
coco = {'images': [{'id': 1, 'file_name': 'a.png', 'width': 4, 'height': 3}],
        'categories': [{'id': 1, 'name': 'Right Lung'}, {'id': 2, 'name': 'Left Lung'}],
        'annotations': [
            {'id': 1, 'image_id': 1, 'category_id': 1, 'bbox': [0, 0, 2, 2], 'iscrowd': 0,
             'segmentation': [[0, 0, 2, 0, 2, 2, 0, 2]]},
            {'id': 2, 'image_id': 1, 'category_id': 2, 'bbox': [1, 1, 5, 5], 'iscrowd': 1,
             'segmentation': {'size': [3, 4], 'counts': '02N0'}},
            {'id': 3, 'image_id': 1, 'category_id': 2, 'bbox': [1, 1, 1, 1], 'iscrowd': 1,
             'segmentation': {'size': [3, 4], 'counts': [1, 2, 3, 6]}}]}
put('coco', 'small.json', json.dumps(coco))

# YOLO label file (classes.txt: lung, nodule)
put('yolo', 'a.txt', '0 0.5 0.5 0.25 0.5\n1 0.1 0.1 0.2 0.2\n0 0.5 0.5 0.4 0.3 0.6 0.7 0.2 0.9\n')
mri = os.path.join(shared, 'mri-brain-tumor', '0', '1001.txt')
if os.path.exists(mri):
    put('yolo', 'real.txt', open(mri, 'rb').read())

# ImaGenome
cols = ['study_id', 'image_id', 'row_id', 'sentence', 'bbox', 'relation', 'label_name', 'categoryID',
        'context', 'coord224', 'coord_original']
rows = [['s1', 'a', 'a|5', 'Left lower lobe opacity.', 'left lower lung zone', '', 'lung opacity',
         'anatomicalfinding', 'yes', '[1, 2, 3, 4]', '[0, 0, 2, 2]'],
        ['s1', 'a', 'a|6', 'No effusion.', 'right costophrenic angle', '', 'pleural effusion',
         'disease', 'no', '[1, 2, 3, 4]', '[1, 1, 3, 2]']]
put('imagenome-tsv', 'gold.txt', '\n'.join('\t'.join(r) for r in [cols] + rows) + '\n')
graph = {'image_id': 'a', 'patient_id': 1, 'study_id': 2, 'viewpoint': 'PA',
         'objects': [{'object_id': 'a_left lung', 'name': 'left lung', 'bbox_name': 'left lung',
                      'original_x1': 0, 'original_y1': 0, 'original_x2': 2, 'original_y2': 2,
                      'x1': 0, 'y1': 0, 'x2': 100, 'y2': 100, 'width': 100, 'height': 100}],
         'attributes': [{'bbox_name': 'left lung', 'name': 'left lung', 'synsets': ['C0225730'],
                         'attributes': [['anatomicalfinding|yes|lung opacity']],
                         'phrases': ['Left lung opacity.'], 'phrase_IDs': ['5|1']}],
         'relationships': []}
put('imagenome-json', 'a_SceneGraph.json', json.dumps(graph))

# MS-CXR (image paths relative to the CSV's folder: images/a.png is 4 × 3)
put('ms-cxr', 'a.csv', 'dicom_id,category_name,label_text,path,x,y,w,h,image_width,image_height\n'
    'a,Pneumonia,Left basal opacity,images/a.png,1,1,4,2,8,6\n'
    'a,Pneumonia,Left basal opacity,images/a.png,0,0,1,1,8,6\n'
    'b,Edema,Edema,images/missing.png,0,0,1,1,8,6\n')

# CheXlocalize
# (the harness's ROOT holds images/a.png and valid/patient1/study1/view1_frontal.png, 4 × 3;
# the last mask's counts do not add up to its size)
put('chexlocalize', 'seg.json', json.dumps({
    'a': {'Atelectasis': {'size': [3, 4], 'counts': rle_string(rng.integers(0, 2, (3, 4)))},
          'Edema': {'size': [3, 4], 'counts': rle_string(np.ones((3, 4), np.uint8))}},
    'patient1_study1_view1_frontal': {'Cardiomegaly': {'size': [3, 4], 'counts': rle_string(rng.integers(0, 2, (3, 4)))},
                                      'Effusion': {'size': [3, 4], 'counts': '30'}}}))

# COVID-19 segmentation: structure.csv, then metadata.csv and the links CSV
# after lines "====" (folder: images/a.png 4 × 3, masks/m.png and
# masks/rgba.png 2 × 2; see fuzz-covid-seg.c)
structure = ('#,Class,Template Name,Filename,Mask,Resolution,Top,Left,Width,Height\n'
             '1,COVID-19 Right Lung,Right Lung,a.png,masks/m.png,4x3,0,0,2,2\n'
             '2,COVID-19 Left Lung,Left Lung,a.png,masks/rgba.png,4x3,1,2,2,2\n'
             '3,Airways,Airways,a.png,,,0,0,1,1\n'
             '4,COVID-19 Right Lung,Right Lung,a.png,masks/m.png,,1,1,2,2\n'
             '5,X,X,missing.png,masks/m.png,,0,0,2,2\n')
metadata = ('patientid,finding,view,modality,filename,url,license,clinical_notes\n'
            '1,COVID-19,PA,X-ray,a.png,http://example.org,CC BY,"Opacity in the right lung. '
            'The left lung is clear."\n'
            '2,No Finding,AP,X-ray,b.png,,,\n')
links = 'image,sentence,target\na.png,1,Right Lung\na,The left lung is clear.,Left Lung\na.png,7,Airways\n'
put('covid-seg', 'structure.csv', structure)
put('covid-seg', 'with-metadata.txt', structure + '====\n' + metadata)
put('covid-seg', 'with-links.txt', structure + '====\n' + metadata + '====\n' + links)
real = os.path.join(shared, 'cxr-covid-seg', 'structure.csv')
if os.path.exists(real):
    with open(real) as f:
        put('covid-seg', 'real.csv', ''.join(f.readlines()[:6]))

# npy-folder: first line the map's file name (without .npy), then its content
# (dataset: instance "a" with query "s1", instance "x/y" with query "q/1")
put('npy-folder', 'a.txt', b'a__grounded__s1\n' + npy(rng.random((2, 3), dtype=np.float32)))
put('npy-folder', 'safe.txt', b'x_y__m__q_1\n' + npy(rng.random((2, 2, 3), dtype=np.float32)))
put('npy-folder', 'bad-name.txt', b'a__s1\n' + npy(np.zeros((1, 1), np.float32)))

# model: the two tiny reference models of the forward-pass tests
for name in ('tiny.safetensors', 'tiny-noattn.safetensors'):
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'model-reference', name), 'rb') as f:
        put('model', name, f.read())

# backend responses: the harness expects the id (first byte) % 4, and '{' % 4 == 3
put('backend-response', 'sentence.jsonl',
    '{"id": 3, "tokens": ["left", "lung"], "shape": [2, 2], "maps": "zczMPc3MTD6amZk+zczMPg==", "no_attn": null}')
put('backend-response', 'tokens.jsonl',
    '{"id": 3, "tokens": ["a", "b"], "shape": [2, 1, 2], "maps": "AACAPwAAAAAAAIA+AABAPw==", "no_attn": 0.1}')
put('backend-response', 'error.jsonl', '{"id": 3, "error": "cannot read the image"}')
