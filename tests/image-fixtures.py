# image-fixtures.py — writes PNG fixtures of every colour type and depth with a
# tiny independent encoder, plus the samples a decoder must return.
# usage: image-fixtures.py OUTDIR ; prints one line per fixture:
#   name channels depth width height   (expected samples in OUTDIR/name.txt)
import random
import struct
import sys
import zlib

out = sys.argv[1]
rng = random.Random(1234)

ADAM7 = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}


def chunk(kind, data):
    c = kind + data
    return struct.pack('>I', len(data)) + c + struct.pack('>I', zlib.crc32(c) & 0xffffffff)


def pack_row(samples, depth):
    if depth == 16:
        return b''.join(struct.pack('>H', s) for s in samples)
    if depth == 8:
        return bytes(samples)
    per = 8 // depth
    outb = bytearray()
    for i in range(0, len(samples), per):
        byte = 0
        group = samples[i:i + per]
        for j, s in enumerate(group):
            byte |= s << (8 - depth * (j + 1))
        outb.append(byte)
    return bytes(outb)


def filter_rows(rows, bpp):
    data = bytearray()
    prior = None
    for n, raw in enumerate(rows):
        ftype = n % 3 if prior is not None else n % 2  # None, Sub, Up
        if ftype == 0:
            f = raw
        elif ftype == 1:
            f = bytes((raw[i] - (raw[i - bpp] if i >= bpp else 0)) & 0xff for i in range(len(raw)))
        else:
            f = bytes((raw[i] - prior[i]) & 0xff for i in range(len(raw)))
        data.append(ftype)
        data += f
        prior = raw
    return bytes(data)


def encode(w, h, depth, ctype, pixels, palette=None, trns=None, interlace=False):
    ch = CHANNELS[ctype]
    bpp = max(1, ch * depth // 8)
    sig = b'\x89PNG\r\n\x1a\n'
    ihdr = struct.pack('>IIBBBBB', w, h, depth, ctype, 0, 0, 1 if interlace else 0)
    raw = bytearray()
    if not interlace:
        rows = [pack_row([s for px in pixels[y] for s in px], depth) for y in range(h)]
        raw = filter_rows(rows, bpp)
    else:
        for (x0, y0, dx, dy) in ADAM7:
            rows = []
            for y in range(y0, h, dy):
                xs = list(range(x0, w, dx))
                if not xs:
                    continue
                rows.append(pack_row([s for x in xs for s in pixels[y][x]], depth))
            raw += filter_rows(rows, bpp)
    body = chunk(b'IHDR', ihdr)
    if palette is not None:
        body += chunk(b'PLTE', b''.join(bytes(c) for c in palette))
    if trns is not None:
        body += chunk(b'tRNS', trns)
    body += chunk(b'IDAT', zlib.compress(bytes(raw), 9)) + chunk(b'IEND', b'')
    return sig + body


def write(name, w, h, depth, ctype, pixels, exp_ch, exp_depth, expected, **kw):
    with open(f'{out}/{name}.png', 'wb') as f:
        f.write(encode(w, h, depth, ctype, pixels, **kw))
    with open(f'{out}/{name}.txt', 'w') as f:
        f.write(' '.join(str(v) for v in expected))
    print(name, exp_ch, exp_depth, w, h)


W, H = 13, 7   # odd sizes exercise partial bytes and every Adam7 pass
for interlace in (False, True):
    tag = '-i' if interlace else ''
    for depth in (1, 2, 4, 8, 16):
        mx = (1 << depth) - 1
        px = [[(rng.randint(0, mx),) for x in range(W)] for y in range(H)]
        write(f'grey{depth}{tag}', W, H, depth, 0, px, 1, depth,
              [p[0] for row in px for p in row], interlace=interlace)
    for depth in (8, 16):
        mx = (1 << depth) - 1
        px = [[tuple(rng.randint(0, mx) for _ in range(3)) for x in range(W)] for y in range(H)]
        write(f'rgb{depth}{tag}', W, H, depth, 2, px, 3, depth,
              [s for row in px for p in row for s in p], interlace=interlace)
        px = [[tuple(rng.randint(0, mx) for _ in range(2)) for x in range(W)] for y in range(H)]
        write(f'greyalpha{depth}{tag}', W, H, depth, 4, px, 2, depth,
              [s for row in px for p in row for s in p], interlace=interlace)
        px = [[tuple(rng.randint(0, mx) for _ in range(4)) for x in range(W)] for y in range(H)]
        write(f'rgba{depth}{tag}', W, H, depth, 6, px, 4, depth,
              [s for row in px for p in row for s in p], interlace=interlace)
    for depth in (1, 2, 4, 8):
        n = 1 << depth
        pal = [tuple(rng.randint(0, 255) for _ in range(3)) for _ in range(n)]
        px = [[(rng.randint(0, n - 1),) for x in range(W)] for y in range(H)]
        write(f'palette{depth}{tag}', W, H, depth, 3, px, 3, 8,
              [s for row in px for p in row for s in pal[p[0]]], palette=pal, interlace=interlace)
        # tRNS shorter than the palette: missing entries are opaque
        alphas = [rng.randint(0, 255) for _ in range(max(1, n // 2))]
        a = lambda i: alphas[i] if i < len(alphas) else 255
        write(f'palette{depth}-trns{tag}', W, H, depth, 3, px, 4, 8,
              [s for row in px for p in row for s in pal[p[0]] + (a(p[0]),)],
              palette=pal, trns=bytes(alphas), interlace=interlace)

# grey and RGB with a transparent colour key
px = [[(rng.randint(0, 3),) for x in range(W)] for y in range(H)]
write('grey2-trns', W, H, 2, 0, px, 2, 8,
      [s for row in px for p in row for s in (p[0] * 85, 0 if p[0] == 1 else 255)],
      trns=struct.pack('>H', 1))
px = [[(rng.choice([0, 200, 255]),) for x in range(W)] for y in range(H)]
write('grey8-trns', W, H, 8, 0, px, 2, 8,
      [s for row in px for p in row for s in (p[0], 0 if p[0] == 200 else 255)],
      trns=struct.pack('>H', 200))
px = [[rng.choice([(1, 2, 3), (65535, 0, 7), (9, 9, 9)]) for x in range(W)] for y in range(H)]
write('rgb16-trns', W, H, 16, 2, px, 4, 16,
      [s for row in px for p in row for s in p + (0 if p == (65535, 0, 7) else 65535,)],
      trns=struct.pack('>HHH', 65535, 0, 7))

# a header claiming 100000 × 100000 followed by a tiny IDAT
with open(f'{out}/huge.png', 'wb') as f:
    f.write(b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', 100000, 100000, 8, 0, 0, 0, 0))
            + chunk(b'IDAT', zlib.compress(b'\0' * 100)) + chunk(b'IEND', b''))
