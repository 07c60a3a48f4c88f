# pixels.py PNG [#rrggbb:MIN[:MAX]]... [cells SVG MIN]: count the pixels of
# each colour in a screenshot (each channel within 10) and check
# MIN <= count <= MAX; "cells" takes the colours of a heat table's cells from
# its SVG.  Used by browser.bash's pixel_check; not a test itself.
import sys, zlib, struct, re


def decode(path):
    """An 8-bit RGB or RGBA PNG, not interlaced: (width, bytes per pixel, rows)."""
    data = open(path, 'rb').read()
    assert data[:8] == b'\x89PNG\r\n\x1a\n', 'not a PNG'
    pos, idat = 8, b''
    while pos < len(data):
        n, kind = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b'IHDR':
            w, h, depth, ctype, _, _, interlace = struct.unpack('>IIBBBBB', body)
        elif kind == b'IDAT':
            idat += body
        pos += 12 + n
    assert depth == 8 and ctype in (2, 6) and interlace == 0, 'unexpected PNG format'
    bpp = 3 if ctype == 2 else 4
    raw, stride = zlib.decompress(idat), w * bpp
    prev, rows, i = bytearray(stride), [], 0
    for _ in range(h):
        f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if f == 1: line[x] = (line[x] + a) & 255
            elif f == 2: line[x] = (line[x] + b) & 255
            elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return w, bpp, rows


def count(img, rgb):
    w, bpp, rows = img
    return sum(1 for line in rows for x in range(0, w * bpp, bpp)
               if abs(line[x] - rgb[0]) <= 10 and abs(line[x + 1] - rgb[1]) <= 10
               and abs(line[x + 2] - rgb[2]) <= 10)


img = decode(sys.argv[1])
checks, args, bad = [], sys.argv[2:], 0
while args:
    a = args.pop(0)
    if a == 'cells':
        svg, lo = open(args.pop(0)).read(), int(args.pop(0))
        for c in sorted(set(re.findall(r'<rect x="[0-9.]+" y="[0-9.]+" width="(?:[5-9][0-9]|[1-9][0-9][0-9])\.[0-9]" height="30\.0" fill="(#[0-9a-f]{6})"', svg))):
            checks.append((c, lo, None))
    else:
        parts = a.split(':')
        checks.append((parts[0], int(parts[1]), int(parts[2]) if len(parts) > 2 else None))
for color, lo, hi in checks:
    n = count(img, tuple(int(color[i:i + 2], 16) for i in (1, 3, 5)))
    good = n >= lo and (hi is None or n <= hi)
    bad += not good
    print('%s %s: %d pixels (want %d%s)' % ('ok' if good else 'FAIL', color, n, lo, '' if hi is None else '..%d' % hi))
print('%d colours checked' % len(checks))
sys.exit(1 if bad or not checks else 0)
