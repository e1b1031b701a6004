"""A small grouped bar chart written as a PNG with zlib and struct only (no plotting
library is a dependency). Text uses a built-in 3x5 pixel font, drawn at 2x."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path
from typing import Sequence

Color = tuple[int, int, int]
WHITE, BLACK, GREY = (255, 255, 255), (30, 30, 30), (200, 200, 200)
SERIES_COLORS: tuple[Color, ...] = ((46, 110, 190), (230, 140, 40), (90, 170, 90), (170, 80, 160))

_FONT = {
    "0": "111101101101111", "1": "010110010010111", "2": "111001111100111", "3": "111001111001111",
    "4": "101101111001001", "5": "111100111001111", "6": "111100111101111", "7": "111001010010010",
    "8": "111101111101111", "9": "111101111001111", "A": "010101111101101", "B": "110101110101110",
    "C": "011100100100011", "D": "110101101101110", "E": "111100110100111", "F": "111100110100100",
    "G": "011100101101011", "H": "101101111101101", "I": "111010010010111", "J": "001001001101010",
    "K": "101101110101101", "L": "100100100100111", "M": "101111111101101", "N": "110101101101101",
    "O": "010101101101010", "P": "110101110100100", "Q": "010101101110011", "R": "110101110101101",
    "S": "011100010001110", "T": "111010010010010", "U": "101101101101111", "V": "101101101101010",
    "W": "101101111111101", "X": "101101010101101", "Y": "101101010010010", "Z": "111001010100111",
    ".": "000000000000010", "%": "101001010100101", "-": "000000111000000", ":": "000010000010000",
    "/": "001001010100100", "(": "010100100100010", ")": "010001001001010", "'": "010010000000000",
    "_": "000000000000111", " ": "000000000000000", ",": "000000000010100", "=": "000111000111000",
    "[": "110100100100110", "]": "011001001001011", "{": "011010110010011", "}": "110010011010110",
    "<": "001010100010001", ">": "100010001010100", "!": "010010010000010", "?": "111001010000010",
    "+": "000010111010000", "#": "101111101111101", '"': "101101000000000", ";": "000010000010100",
}
_SCALE = 2
CHAR_W = 4 * _SCALE


class Canvas:
    def __init__(self, width: int, height: int) -> None:
        self.width, self.height = width, height
        self.pixels = bytearray(WHITE * (width * height))

    def rect(self, x0: int, y0: int, x1: int, y1: int, color: Color) -> None:
        x0, x1 = max(0, min(x0, x1)), min(self.width, max(x0, x1))
        y0, y1 = max(0, min(y0, y1)), min(self.height, max(y0, y1))
        row = bytes(color) * (x1 - x0)
        for y in range(y0, y1):
            start = (y * self.width + x0) * 3
            self.pixels[start:start + len(row)] = row

    def text(self, x: int, y: int, text: str, color: Color = BLACK) -> None:
        for char in text.upper():
            glyph = _FONT.get(char, _FONT[" "])
            for i, bit in enumerate(glyph):
                if bit == "1":
                    gx, gy = x + (i % 3) * _SCALE, y + (i // 3) * _SCALE
                    self.rect(gx, gy, gx + _SCALE, gy + _SCALE, color)
            x += CHAR_W

    def save(self, path: str | Path) -> None:
        raw = b"".join(b"\x00" + bytes(self.pixels[y * self.width * 3:(y + 1) * self.width * 3])
                       for y in range(self.height))

        def chunk(kind: bytes, data: bytes) -> bytes:
            return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

        header = struct.pack(">IIBBBBB", self.width, self.height, 8, 2, 0, 0, 0)
        Path(path).write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
                               + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def grouped_bars(path: str | Path, groups: Sequence[str], series: Sequence[str],
                 panels: Sequence[tuple[str, Sequence[Sequence[float]], str]]) -> None:
    """One panel per (title, values[series][group], format) with a bar per series in
    each group, value labels on top and a legend."""
    bar, gap, label_chars = 36, 18, 11
    group_w = max(len(series) * bar + gap, label_chars * CHAR_W + 6)
    left, panel_h, plot_h = 20, 230, 150
    width = left * 2 + group_w * len(groups)
    width = max(width, 40 + sum((len(s) + 4) * CHAR_W for s in series))
    canvas = Canvas(width, 40 + panel_h * len(panels))
    x = left
    for i, name in enumerate(series):  # legend
        canvas.rect(x, 12, x + 12, 24, SERIES_COLORS[i % len(SERIES_COLORS)])
        canvas.text(x + 16, 14, name)
        x += (len(name) + 4) * CHAR_W
    for p, (title, values, fmt) in enumerate(panels):
        top = 40 + p * panel_h
        base = top + 24 + plot_h
        canvas.text(left, top + 4, title)
        peak = max((v for row in values for v in row), default=1.0) or 1.0
        canvas.rect(left, base, width - left, base + 1, GREY)
        for g, group in enumerate(groups):
            gx = left + g * group_w + 4
            for s in range(len(series)):
                value = values[s][g]
                height = int(plot_h * value / peak)
                x0 = gx + s * bar
                canvas.rect(x0, base - height, x0 + bar - 3, base, SERIES_COLORS[s % len(SERIES_COLORS)])
                label = format(value, fmt)
                canvas.text(x0, base - height - 12, label[:4])
            canvas.text(gx, base + 6, group[:label_chars])
    canvas.save(path)
