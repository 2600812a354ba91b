#!/usr/bin/env python3
"""Draws Atelier's app icon (an easel 'A' on a rounded indigo square) into
icons/ at the sizes tauri.conf.json lists. Pure standard library: run it
again after changing the drawing."""
import math
import struct
import zlib
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "icons"


def seg_dist(px, py, ax, ay, bx, by):
    dx, dy = bx - ax, by - ay
    t = max(0.0, min(1.0, ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy)))
    return math.hypot(px - (ax + t * dx), py - (ay + t * dy))


def shade(x, y):
    """RGBA of the point (x, y) in the unit square."""
    r = 0.2  # corner radius
    cx = min(max(x, r), 1 - r)
    cy = min(max(y, r), 1 - r)
    if math.hypot(x - cx, y - cy) > r or not (0 <= x <= 1 and 0 <= y <= 1):
        return (0, 0, 0, 0)
    # Indigo to violet, top-left to bottom-right.
    t = (x + y) / 2
    bg = (int(67 + (124 - 67) * t), int(56 + (58 - 56) * t), int(202 + (237 - 202) * t))
    strokes = [
        (0.5, 0.2, 0.28, 0.8),  # left leg
        (0.5, 0.2, 0.72, 0.8),  # right leg
        (0.5, 0.2, 0.5, 0.86),  # back leg
        (0.26, 0.6, 0.74, 0.6),  # the ledge
    ]
    # The canvas rests on the ledge, in front of the legs.
    if 0.3 <= x <= 0.7 and 0.3 <= y <= 0.58:
        if x < 0.33 or x > 0.67 or y < 0.33:
            return (250, 250, 255, 255)  # its frame
        return (255, 200, 87, 255)
    d = min(seg_dist(x, y, *s) for s in strokes)
    if d < 0.04:
        return (250, 250, 255, 255)
    return (*bg, 255)


def render(size, ss=4):
    rows = []
    for j in range(size):
        row = bytearray([0])
        for i in range(size):
            acc = [0, 0, 0, 0]
            for sj in range(ss):
                for si in range(ss):
                    c = shade((i + (si + 0.5) / ss) / size, (j + (sj + 0.5) / ss) / size)
                    a = c[3]
                    acc[0] += c[0] * a
                    acc[1] += c[1] * a
                    acc[2] += c[2] * a
                    acc[3] += a
            a = acc[3]
            px = [acc[k] // a if a else 0 for k in range(3)] + [a // (ss * ss)]
            row.extend(px)
        rows.append(bytes(row))
    raw = b"".join(rows)

    def chunk(tag, data):
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)

    ihdr = struct.pack(">IIBBBBB", size, size, 8, 6, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")


if __name__ == "__main__":
    OUT.mkdir(exist_ok=True)
    for name, size in [("32x32.png", 32), ("128x128.png", 128), ("128x128@2x.png", 256), ("icon.png", 512)]:
        (OUT / name).write_bytes(render(size))
        print("wrote", OUT / name)
