#!/usr/bin/env python3
"""Checks that PNG files are valid, non-trivial images: each must exist, be larger than
10 kB, carry a well-formed PNG structure (signature, IHDR first, every chunk's CRC right,
IDAT data that inflates to exactly the size the header implies, IEND last), measure at
least 200 × 200 pixels, and show more than a handful (16) of distinct colours.

The structure is checked in pure Python (struct, zlib); the colours are counted on the
pixels decoded by matplotlib's image reader. Prints one line per file and exits 1 if any
file fails.

example:
  python3 scripts/tests/check_png.py results/smoke/curves.png results/smoke/mcts.png
"""

import argparse
import struct
import sys
import zlib
from pathlib import Path

SIGNATURE = b"\x89PNG\r\n\x1a\n"
MIN_BYTES = 10 * 1024
MIN_SIDE = 200
MIN_COLOURS = 16
# samples per pixel for each PNG colour type
CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}


class Bad(Exception):
    """The file is not a valid, non-trivial PNG image."""


def chunks(data):
    """(type, payload) for every chunk, checking lengths and CRCs."""
    pos = len(SIGNATURE)
    while pos < len(data):
        if pos + 8 > len(data):
            raise Bad("truncated chunk header")
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        end = pos + 8 + length + 4
        if end > len(data):
            raise Bad(f"chunk {kind!r} runs past the end of the file")
        payload = data[pos + 8:pos + 8 + length]
        (crc,) = struct.unpack(">I", data[end - 4:end])
        if zlib.crc32(kind + payload) & 0xFFFFFFFF != crc:
            raise Bad(f"chunk {kind!r} has a wrong CRC")
        yield kind, payload
        pos = end


def header(path):
    """Width, height and the facts of the structure check, in pure Python."""
    data = Path(path).read_bytes()
    if len(data) <= MIN_BYTES:
        raise Bad(f"only {len(data)} bytes (want more than {MIN_BYTES})")
    if not data.startswith(SIGNATURE):
        raise Bad("no PNG signature")
    found = list(chunks(data))
    if not found or found[0][0] != b"IHDR" or len(found[0][1]) != 13:
        raise Bad("the first chunk is not a 13-byte IHDR")
    if found[-1][0] != b"IEND":
        raise Bad("the last chunk is not IEND")
    width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", found[0][1])
    if colour not in CHANNELS:
        raise Bad(f"unknown colour type {colour}")
    idat = b"".join(p for k, p in found if k == b"IDAT")
    if not idat:
        raise Bad("no IDAT chunk")
    try:
        raw = zlib.decompress(idat)
    except zlib.error as err:
        raise Bad(f"image data does not inflate: {err}") from None
    if interlace == 0:
        row = (width * CHANNELS[colour] * depth + 7) // 8
        if len(raw) != height * (row + 1):
            raise Bad(f"image data is {len(raw)} bytes, the header implies {height * (row + 1)}")
    return width, height, len(data)


def colours(path):
    """The number of distinct pixel values, decoded by matplotlib (Pillow underneath)."""
    import matplotlib.image
    import numpy as np

    pixels = matplotlib.image.imread(path)
    if pixels.dtype.kind == "f":  # PNGs read as floats in [0, 1]
        pixels = np.round(pixels * 255)
    pixels = pixels.astype(np.uint64).reshape(pixels.shape[0] * pixels.shape[1], -1)
    packed = np.zeros(len(pixels), np.uint64)
    for channel in range(pixels.shape[1]):  # one 64-bit number per pixel
        packed = packed * np.uint64(65536) + pixels[:, channel]
    return len(np.unique(packed))


def check(path):
    if not Path(path).is_file():
        raise Bad("missing")
    width, height, size = header(path)
    if width < MIN_SIDE or height < MIN_SIDE:
        raise Bad(f"{width}x{height} pixels (want at least {MIN_SIDE} each way)")
    n = colours(path)
    if n <= MIN_COLOURS:
        raise Bad(f"only {n} distinct colours (want more than {MIN_COLOURS}): a blank plot?")
    return f"{width}x{height} px, {size / 1024:.0f} kB, {n} colours"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog="example:\n  python3 scripts/tests/check_png.py "
                                       "results/smoke/curves.png")
    p.add_argument("png", nargs="+", metavar="PNG")
    args = p.parse_args()
    bad = 0
    for path in args.png:
        try:
            print(f"ok   {path}: {check(path)}")
        except (Bad, OSError, ValueError) as err:
            print(f"FAIL {path}: {err}")
            bad += 1
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
