"""Small PNG files of every layout, written with the standard library."""

import struct
import zlib


def png(width, height, colour_type, rows, bit_depth=8, palette=None, transparency=None):
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    body = chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, bit_depth, colour_type, 0, 0, 0))
    if palette:
        body += chunk(b"PLTE", bytes(palette))
    if transparency:
        body += chunk(b"tRNS", bytes(transparency))
    raw = b"".join(b"\0" + bytes(row) for row in rows)
    return b"\x89PNG\r\n\x1a\n" + body + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")


def solid(width, height, rgba, layout="rgba8"):
    """A solid image of straight 8-bit RGBA, stored in the given PNG layout."""
    r, g, b, a = rgba
    if layout == "rgba8":
        return png(width, height, 6, [[r, g, b, a] * width] * height)
    if layout == "rgba16":
        return png(width, height, 6, [[r, r, g, g, b, b, a, a] * width] * height, bit_depth=16)
    if layout == "palette":
        return png(width, height, 3, [[0] * width] * height, palette=[r, g, b], transparency=[a])
    if layout == "grey-alpha":
        assert r == g == b
        return png(width, height, 4, [[r, a] * width] * height)
    if layout == "rgb":
        assert a == 255
        return png(width, height, 2, [[r, g, b] * width] * height)
    raise ValueError(layout)


def write_png_header_only(path, width, height):
    """A PNG that says it is `width` x `height` (RGBA) and holds no pixels: what a decoder would
    allocate for before it finds out."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    header = chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0))
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + header + chunk(b"IDAT", zlib.compress(b"")) + chunk(b"IEND", b""))
