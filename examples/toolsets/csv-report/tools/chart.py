"""A bar chart of one numeric CSV column as a PNG, written with the
standard library only (zlib + struct), for the image renderer."""
import csv
import struct
import zlib
from pathlib import Path

WIDTH, HEIGHT, MARGIN = 480, 240, 16
BACKGROUND = (255, 255, 255)
BAR = (59, 130, 246)
AXIS = (102, 112, 133)


def _png(pixels: list) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    raw = b"".join(b"\x00" + bytes(v for px in row for v in px) for row in pixels)
    header = struct.pack(">IIBBBBB", WIDTH, HEIGHT, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")


def chart_column(workspace: Path, path: str, column: str) -> dict:
    with (workspace / path).open(newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        raise ValueError(f"{path} has no rows")
    if column not in rows[0]:
        raise ValueError(f"{path} has no column {column!r} (columns: {', '.join(rows[0])})")
    try:
        values = [float(r[column]) for r in rows]
    except ValueError as e:
        raise ValueError(f"column {column!r} of {path} is not numeric: {e}") from None

    pixels = [[BACKGROUND] * WIDTH for _ in range(HEIGHT)]
    top = max(max(values), 0.0) or 1.0
    plot_w, plot_h = WIDTH - 2 * MARGIN, HEIGHT - 2 * MARGIN
    slot = plot_w / len(values)
    for i, v in enumerate(values):
        bar_h = int(plot_h * max(v, 0.0) / top)
        x0, x1 = MARGIN + int(i * slot + slot * 0.15), MARGIN + int((i + 1) * slot - slot * 0.15)
        for y in range(HEIGHT - MARGIN - bar_h, HEIGHT - MARGIN):
            pixels[y][x0:x1] = [BAR] * (x1 - x0)
    for x in range(MARGIN, WIDTH - MARGIN):
        pixels[HEIGHT - MARGIN][x] = AXIS

    image = f"{Path(path).stem}-{column}.png"
    (workspace / image).write_bytes(_png(pixels))
    return {"image": image, "alt": f"{column} by row of {path} (max {max(values):g})", "bars": len(values)}
