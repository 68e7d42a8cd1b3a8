#!/usr/bin/env python3
"""Draws onair's sample watermark, web/logo.png: a translucent dark badge with a red "live"
dot and ONAIR in white, antialiased by 4x supersampling. Python's standard library only."""

import struct
import sys
import zlib
from pathlib import Path

WIDTH, HEIGHT, SUPER = 252, 72, 4
FONT = {  # 5x7, high bit leftmost
    "O": [0x0E, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E], "N": [0x11, 0x11, 0x19, 0x15, 0x13, 0x11, 0x11],
    "A": [0x0E, 0x11, 0x11, 0x1F, 0x11, 0x11, 0x11], "I": [0x0E, 0x04, 0x04, 0x04, 0x04, 0x04, 0x0E],
    "R": [0x1E, 0x11, 0x11, 0x1E, 0x14, 0x12, 0x11],
}


def coverage(x, y):
    """(r, g, b, a) in 0..1 of the drawing at a supersampled point."""
    radius = 18
    # Rounded badge.
    cx = min(max(x, radius), WIDTH - radius)
    cy = min(max(y, radius), HEIGHT - radius)
    if (x - cx) ** 2 + (y - cy) ** 2 > radius ** 2:
        return (0, 0, 0, 0)
    # Red dot.
    if (x - 36) ** 2 + (y - 36) ** 2 <= 14 ** 2:
        return (0.90, 0.11, 0.14, 1)
    # Letters, 6 px per font pixel, from x = 64.
    column, row = int((x - 62) // 6), int((y - 15) // 6)
    if 0 <= row < 7 and column >= 0:
        letter, bit = divmod(column, 6)
        if letter < 5 and bit < 5 and FONT["ONAIR"[letter]][row] & (0x10 >> bit):
            return (1, 1, 1, 1)
    return (0.07, 0.08, 0.10, 0.78)


def pixel(px, py):
    total = [0.0, 0.0, 0.0, 0.0]
    for sy in range(SUPER):
        for sx in range(SUPER):
            r, g, b, a = coverage(px + (sx + 0.5) / SUPER, py + (sy + 0.5) / SUPER)
            total = [total[0] + r * a, total[1] + g * a, total[2] + b * a, total[3] + a]
    alpha = total[3] / SUPER ** 2
    if alpha == 0:
        return bytes(4)
    return bytes([round(c / total[3] * 255) for c in total[:3]] + [round(alpha * 255)])


def png(width, height, rows):
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    raw = b"".join(b"\0" + row for row in rows)
    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")


if __name__ == "__main__":
    target = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parents[1] / "web/logo.png")
    rows = [b"".join(pixel(x, y) for x in range(WIDTH)) for y in range(HEIGHT)]
    target.write_bytes(png(WIDTH, HEIGHT, rows))
    print(f"wrote {target} ({WIDTH}x{HEIGHT} RGBA)")
