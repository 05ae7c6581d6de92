"""Our card art, as the web table draws it (``gotown/server/static/js/art.js``), painted with
Pillow for :mod:`gotown.rl.render`: the same shapes, strokes and palette. A floor card shows its
number large on the colour of its nine-pair over a row of windows, a special card a pictogram,
a face-down card a small skyline.

The pictograms are art.js's SVG shapes copied as data (a test compares the two), in a 48x48
box; :func:`paint` reads the few SVG elements and path commands they use. Each image is drawn
four times larger and scaled down, for smooth edges, and kept (:func:`card`, :func:`pictogram`).
"""

from __future__ import annotations

import itertools
import math
import re
from functools import cache
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw, ImageFont

from gotown.engine import CARDS

INK = "#2b2118"
CREAM = "#fffaf0"
#: The colour of each nine-pair by the engine's pair colour (R2: 1 for 1/8, 2 for 2/7, 3 for
#: 3/6, 4 for 4/5), and the joker's.
PAIR_COLOURS = {1: "#c0392b", 2: "#1e6fb8", 3: "#1f7a3a", 4: "#7b3fa0"}
JOKER = "#8a6d00"
_STROKE = {
    "stroke": INK,
    "stroke-width": 2.5,
    "stroke-linejoin": "round",
    "stroke-linecap": "round",
}

Shape = tuple[str, dict[str, Any]]


def _thief(cape: bool) -> list[Shape]:
    shapes: list[Shape] = []
    if cape:
        shapes.append(
            ("path", {"d": "M9 45 L14 25 Q24 21 34 25 L39 45 Z", "fill": "#d62f2f", **_STROKE})
        )
    shapes += [
        ("path", {"d": "M12 45 Q12 28 24 27 Q36 28 36 45 Z", "fill": "#3b4a6b", **_STROKE}),
        ("path", {"d": "M14 34 H34 M13 40 H35", "stroke": "#fffaf0", "stroke-width": 2}),
        ("circle", {"cx": 24, "cy": 16, "r": 9, "fill": "#f1c59a", **_STROKE}),
        ("path", {"d": "M15 13 Q15 5 24 5 Q33 5 33 13 Z", "fill": "#222", **_STROKE}),
        ("rect", {"x": 14, "y": 13, "width": 20, "height": 6, "rx": 3, "fill": "#222"}),
        ("circle", {"cx": 20, "cy": 16, "r": 1.7, "fill": "#fffaf0"}),
        ("circle", {"cx": 28, "cy": 16, "r": 1.7, "fill": "#fffaf0"}),
    ]
    if cape:
        star = "M24 30 l1.8 3.6 4 .6 -2.9 2.8 .7 4 -3.6 -1.9 -3.6 1.9 .7 -4 -2.9 -2.8 4 -.6 Z"
        shapes.append(("path", {"d": star, "fill": "#f2c230"}))
    return shapes


_BONE_END = {"r": 5.5, "fill": "#f3ead2", **_STROKE}

#: art.js's PICTURES: each special card's pictogram in a 48x48 box.
PICTURES: dict[str, list[Shape]] = {
    "dog": [  # a dog sitting, seen from the side
        ("path", {"d": "M8 42 H42", **_STROKE, "fill": "none"}),
        ("path", {"d": "M15 30 Q7 27 8 18", **_STROKE, "fill": "none"}),
        ("path", {"d": "M13 41 Q10 28 19 24 L28 21 Q33 30 31 41 Z", "fill": "#b7793f", **_STROKE}),
        ("path", {"d": "M29 27 L29 41", **_STROKE}),
        ("circle", {"cx": 31, "cy": 15, "r": 8, "fill": "#b7793f", **_STROKE}),
        ("ellipse", {"cx": 38.5, "cy": 18, "rx": 5, "ry": 3.6, "fill": "#d9a066", **_STROKE}),
        ("path", {"d": "M26 9 Q21 13 24 21 Q28 16 28 9 Z", "fill": "#6b4423", **_STROKE}),
        ("circle", {"cx": 42.5, "cy": 17, "r": 1.8, "fill": INK}),
        ("circle", {"cx": 33, "cy": 13, "r": 1.4, "fill": INK}),
    ],
    "bone": [
        ("g", {"transform": "rotate(-30 24 24)", "children": [
            ("path", {"d": "M12 20 H36 V28 H12 Z", "fill": "#f3ead2", **_STROKE}),
            *[("circle", {"cx": x, "cy": y, **_BONE_END}) for x, y in
              [(11, 19), (11, 29), (37, 19), (37, 29)]],
            ("path", {"d": "M12 20 H36 V28 H12 Z", "fill": "#f3ead2"}),
        ]}),
    ],
    "jackhammer": [
        ("path", {"d": "M8 43 H40", **_STROKE, "fill": "none"}),
        ("rect", {"x": 10, "y": 5, "width": 28, "height": 6, "rx": 3, "fill": "#555", **_STROKE}),
        ("rect", {"x": 17, "y": 11, "width": 14, "height": 19, "rx": 2, "fill": "#f2c230",
                  **_STROKE}),
        ("rect", {"x": 22, "y": 30, "width": 4, "height": 11, "fill": "#9aa0a6", **_STROKE}),
        ("path", {"d": "M13 40 L9 35 M35 40 L39 35 M16 44 L12 46 M32 44 L36 46", **_STROKE,
                  "fill": "none"}),
    ],
    "wrecking-ball": [
        ("path", {"d": "M4 6 H32", **_STROKE, "stroke-width": 4, "fill": "none"}),
        ("path", {"d": "M28 6 L31 25", **_STROKE, "stroke-dasharray": "3 2.5", "fill": "none"}),
        ("circle", {"cx": 31, "cy": 34, "r": 10, "fill": "#4a4a55", **_STROKE}),
        ("circle", {"cx": 27.5, "cy": 30.5, "r": 2.5, "fill": "#c9ccd6"}),
        ("path", {"d": "M13 28 Q10 33 13 38 M8 26 Q4 33 8 40", **_STROKE, "fill": "none"}),
    ],
    "milkshake": [
        ("path", {"d": "M27 15 L35 3", **_STROKE, "stroke": "#d62f2f", "stroke-width": 3.5}),
        ("path", {"d": "M13 18 L35 18 L31 44 L17 44 Z", "fill": "#f7a8c8", **_STROKE}),
        ("path", {"d": "M12 18 Q14 10 20 12 Q24 7 29 12 Q35 10 36 18 Z", "fill": "#fffaf0",
                  **_STROKE}),
        ("circle", {"cx": 21, "cy": 9, "r": 3, "fill": "#d62f2f", **_STROKE}),
        ("path", {"d": "M16 27 H32", **_STROKE, "fill": "none"}),
    ],
    "donut-truck": [
        ("rect", {"x": 3, "y": 22, "width": 40, "height": 16, "rx": 3, "fill": "#7fc8f8",
                  **_STROKE}),
        ("rect", {"x": 32, "y": 25, "width": 8, "height": 6, "rx": 1, "fill": "#fffaf0",
                  **_STROKE}),
        ("circle", {"cx": 12, "cy": 39, "r": 4.5, "fill": "#333", **_STROKE}),
        ("circle", {"cx": 33, "cy": 39, "r": 4.5, "fill": "#333", **_STROKE}),
        ("circle", {"cx": 18, "cy": 13, "r": 8, "fill": "#d98a3a", **_STROKE}),
        ("circle", {"cx": 18, "cy": 13, "r": 6, "fill": "#f58fb8"}),
        ("circle", {"cx": 18, "cy": 13, "r": 2.4, "fill": "#fffaf0", **_STROKE,
                    "stroke-width": 1.5}),
        ("path", {"d": "M14 10 l1 1 M21 9 l1 -1 M21 16 l1 1 M14 16 l-1 1", "stroke": "#fffaf0",
                  "stroke-width": 1.5}),
    ],
    "thief": _thief(cape=False),
    "super-thief": _thief(cape=True),
}  # fmt: skip

#: A face-down card (art.js's cardBack), in a 54x84 box.
BACK: list[Shape] = [
    ("rect", {"x": 1.5, "y": 1.5, "width": 51, "height": 81, "rx": 6, "fill": "#1d3557",
              "stroke": INK, "stroke-width": 2}),
    ("path", {"d": "M8 70 V44 H18 V30 H28 V50 H36 V38 H46 V70 Z", "fill": "#457b9d",
              "stroke": "#a8dadc", "stroke-width": 1.5}),
    ("path", {"d": "M6 70 H48", "stroke": "#a8dadc", "stroke-width": 2}),
    ("circle", {"cx": 40, "cy": 18, "r": 6, "fill": "#f2c230"}),
]  # fmt: skip

#: Drawn this many times larger, then scaled down (smooth edges without an antialiasing pen).
_OVERSAMPLE = 4
_CURVE_STEPS = 12
_FONT_FILES = {"bold": "DejaVuSans-Bold.ttf", "regular": "DejaVuSans.ttf"}

Point = tuple[float, float]


@cache
def font(size: int, weight: str = "bold") -> ImageFont.FreeTypeFont:
    """DejaVu Sans, the web table's sans-serif on Linux (matplotlib ships it)."""
    import matplotlib

    path = Path(matplotlib.get_data_path()) / "fonts" / "ttf" / _FONT_FILES[weight]
    return ImageFont.truetype(str(path), size)


def _path_points(d: str) -> list[tuple[list[Point], bool]]:
    """The subpaths of SVG path data (M, L, H, V, Q and Z, absolute or relative), a quadratic
    curve as a polyline: (points, closed)."""
    tokens = re.findall(r"[MLHVQZmlhvqz]|-?(?:\d+\.?\d*|\.\d+)", d)
    subpaths: list[tuple[list[Point], bool]] = []
    points: list[Point] = []
    x = y = 0.0
    command = ""
    i = 0

    def number() -> float:
        nonlocal i
        i += 1
        return float(tokens[i - 1])

    while i < len(tokens):
        if tokens[i].isalpha():
            command = tokens[i]
            i += 1
        relative = command.islower()
        kind = command.upper()
        if kind == "Z":
            subpaths.append((points, True))
            points = []
            command = ""  # (Z takes no numbers)
            continue
        dx, dy = (x, y) if relative else (0.0, 0.0)
        if kind == "M":
            if points:
                subpaths.append((points, False))
            x, y = dx + number(), dy + number()
            points = [(x, y)]
            command = "l" if relative else "L"  # (more pairs after M are lines)
        elif kind == "L":
            x, y = dx + number(), dy + number()
            points.append((x, y))
        elif kind == "H":
            x = dx + number()
            points.append((x, y))
        elif kind == "V":
            y = dy + number()
            points.append((x, y))
        elif kind == "Q":
            cx, cy = dx + number(), dy + number()
            ex, ey = dx + number(), dy + number()
            sx, sy = x, y
            for step in range(1, _CURVE_STEPS + 1):
                t = step / _CURVE_STEPS
                points.append(
                    (
                        (1 - t) ** 2 * sx + 2 * (1 - t) * t * cx + t * t * ex,
                        (1 - t) ** 2 * sy + 2 * (1 - t) * t * cy + t * t * ey,
                    )
                )
            x, y = ex, ey
        else:
            raise ValueError(f"path command {command!r} is not drawn")
    if points:
        subpaths.append((points, False))
    return subpaths


def _ellipse(cx: float, cy: float, rx: float, ry: float) -> list[Point]:
    steps = 48
    return [
        (cx + rx * math.cos(2 * math.pi * k / steps), cy + ry * math.sin(2 * math.pi * k / steps))
        for k in range(steps)
    ]


def _rounded_rect(x: float, y: float, w: float, h: float, r: float) -> list[Point]:
    if r <= 0:
        return [(x, y), (x + w, y), (x + w, y + h), (x, y + h)]
    r = min(r, w / 2, h / 2)
    points: list[Point] = []
    for cx, cy, start in ((x + w - r, y + r, -90), (x + w - r, y + h - r, 0),
                          (x + r, y + h - r, 90), (x + r, y + r, 180)):  # fmt: skip
        for k in range(9):
            angle = math.radians(start + 90 * k / 8)
            points.append((cx + r * math.cos(angle), cy + r * math.sin(angle)))
    return points


def _outline(kind: str, a: dict[str, Any]) -> list[tuple[list[Point], bool]]:
    if kind == "path":
        return _path_points(a["d"])
    if kind == "circle":
        return [(_ellipse(a["cx"], a["cy"], a["r"], a["r"]), True)]
    if kind == "ellipse":
        return [(_ellipse(a["cx"], a["cy"], a["rx"], a["ry"]), True)]
    if kind == "rect":
        return [(_rounded_rect(a["x"], a["y"], a["width"], a["height"], a.get("rx", 0)), True)]
    raise ValueError(f"SVG element {kind!r} is not drawn")


def _rotation(transform: str) -> tuple[float, float, float]:
    found = re.fullmatch(r"rotate\((-?[\d.]+) (-?[\d.]+) (-?[\d.]+)\)", transform)
    if found is None:
        raise ValueError(f"transform {transform!r} is not drawn")
    angle, cx, cy = (float(v) for v in found.groups())
    return math.radians(angle), cx, cy


def _dashes(points: list[Point], pattern: list[float]) -> list[list[Point]]:
    """A polyline cut into dashes (on, off, on, ...)."""
    out: list[list[Point]] = []
    index, left, on = 0, pattern[0], True
    current: list[Point] = [points[0]]
    for (x0, y0), (x1, y1) in itertools.pairwise(points):
        length = math.hypot(x1 - x0, y1 - y0)
        done = 0.0
        while length - done > left:
            done += left
            t = done / length
            point = (x0 + (x1 - x0) * t, y0 + (y1 - y0) * t)
            if on:
                out.append([*current, point])
            current = [point]
            index = (index + 1) % len(pattern)
            left, on = pattern[index], not on
        left -= length - done
        current.append((x1, y1))
    if on and len(current) > 1:
        out.append(current)
    return out


def paint(
    image: Image.Image,
    shapes: list[Shape],
    box: tuple[float, float, float],
    rotation: tuple[float, float, float] | None = None,
) -> None:
    """Draw SVG ``shapes`` on ``image``: user unit (0, 0) at ``box[:2]``, ``box[2]`` pixels a
    unit. Fills first, then strokes, per shape, in order, as SVG paints them."""
    draw = ImageDraw.Draw(image)
    left, top, scale = box
    for kind, attributes in shapes:
        if kind == "g":
            paint(image, attributes["children"], box, _rotation(attributes["transform"]))
            continue
        subpaths = _outline(kind, attributes)
        if rotation is not None:
            angle, cx, cy = rotation
            cos, sin = math.cos(angle), math.sin(angle)
            subpaths = [
                ([(cx + (x - cx) * cos - (y - cy) * sin, cy + (x - cx) * sin + (y - cy) * cos)
                  for x, y in points], closed)
                for points, closed in subpaths
            ]  # fmt: skip
        pixels = [
            ([(left + x * scale, top + y * scale) for x, y in points], closed)
            for points, closed in subpaths
        ]
        fill = attributes.get("fill", "#000")  # (SVG's default fill)
        if fill != "none":
            for points, _ in pixels:
                if len(points) > 2:
                    draw.polygon(points, fill=fill)
        stroke = attributes.get("stroke")
        if stroke is None:
            continue
        width = max(1, round(attributes.get("stroke-width", 1) * scale))
        dash = attributes.get("stroke-dasharray")
        for points, closed in pixels:
            line = [*points, points[0]] if closed else points
            pieces = _dashes(line, [float(v) * scale for v in dash.split()]) if dash else [line]
            for piece in pieces:
                draw.line(piece, fill=stroke, width=width, joint="curve")
                if attributes.get("stroke-linecap") == "round" and not closed:
                    for x, y in (piece[0], piece[-1]):
                        r = width / 2
                        draw.ellipse((x - r, y - r, x + r, y + r), fill=stroke)


def _oversampled(width: int, height: int) -> Image.Image:
    return Image.new("RGBA", (width * _OVERSAMPLE, height * _OVERSAMPLE), (0, 0, 0, 0))


def _scaled_down(image: Image.Image, width: int, height: int) -> Image.Image:
    return image.resize((width, height), Image.Resampling.LANCZOS)


@cache
def pictogram(code: str, size: int) -> Image.Image:
    """A special card's pictogram alone (a dog on a floor, a milkshake by a seat), RGBA."""
    image = _oversampled(size, size)
    paint(image, PICTURES[code], (0, 0, size * _OVERSAMPLE / 48))
    return _scaled_down(image, size, size)


def _blend(top: str, under: str, opacity: float) -> str:
    """``top`` painted at ``opacity`` over ``under`` (colours as #rrggbb)."""
    mixed = (
        round(opacity * int(top[i : i + 2], 16) + (1 - opacity) * int(under[i : i + 2], 16))
        for i in (1, 3, 5)
    )
    return "#" + "".join(f"{channel:02x}" for channel in mixed)


def face_colour(code: str) -> str:
    """A floor card's colour: its nine-pair's (the engine's card table), or the joker's."""
    colour = CARDS[code].pair_colour
    return JOKER if colour is None else PAIR_COLOURS[colour]


@cache
def card(code: str, width: int, value: int | None = None) -> Image.Image:
    """A card face up as the table shows it (RGBA, 54:84): a floor card's number on its
    pair's colour over a row of windows (a joker with ``value``, what it stands for in a floor,
    R5), a special card's pictogram on cream, or face down with ``code`` None-like ``"back"``."""
    height = round(width * 84 / 54)
    unit = width * _OVERSAMPLE / 54
    image = _oversampled(width, height)
    if code == "back":
        paint(image, BACK, (0, 0, unit))
        return _scaled_down(image, width, height)
    frame = {"x": 1.5, "y": 1.5, "width": 51, "height": 81, "rx": 6, "stroke": INK}
    if code not in PICTURES:  # a floor card (art.js's numberFace)
        _number_face(image, code, value, unit, frame)
    else:
        paint(image, [("rect", {**frame, "fill": CREAM, "stroke-width": 2})], (0, 0, unit))
        paint(image, PICTURES[code], (3 * unit, 18 * unit, unit))
    return _scaled_down(image, width, height)


def _number_face(
    image: Image.Image, code: str, value: int | None, unit: float, frame: dict[str, Any]
) -> None:
    windows: list[Shape] = [
        ("rect", {"x": x, "y": 55, "width": 9, "height": 9, "rx": 1, "fill": "#ffe08a",
                  "stroke": INK, "stroke-width": 1.5})
        for x in (10, 22.5, 35)
    ]  # fmt: skip
    shapes: list[Shape] = [
        ("rect", {**frame, "fill": face_colour(code), "stroke-width": 2}),
        (
            "path",
            {
                "d": "M4 51 H50",
                "stroke": _blend(CREAM, face_colour(code), 0.7),
                "stroke-width": 1.5,
            },
        ),
        *windows,
    ]
    if code == "6":  # (underlined, as on real cards, so that a 6 upside down reads right)
        shapes.append(("path", {"d": "M20 48.5 H34", "stroke": "#fff", "stroke-width": 2.6}))
    paint(image, shapes, (0, 0, unit))
    draw = ImageDraw.Draw(image)
    corner = font(round(12 * unit))
    draw.text((27 * unit, 46 * unit), code, fill="#fff", font=font(round(34 * unit)), anchor="ms")
    draw.text((6 * unit, 15 * unit), code, fill="#fff", font=corner, anchor="ls")
    turned = Image.new("RGBA", image.size, (0, 0, 0, 0))
    ImageDraw.Draw(turned).text((6 * unit, 15 * unit), code, fill="#fff", font=corner, anchor="ls")
    image.alpha_composite(turned.rotate(180))
    if code == "?" and value is not None:
        draw.text((25 * unit, 79 * unit), f"={value}", fill="#fff", font=corner, anchor="ms")
