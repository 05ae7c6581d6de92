/* Our own card art, drawn as SVG: one visual family (the same stroke, palette and flat
   colours). A floor card shows its number large in the middle and small in two corners, on the
   colour of its nine-pair (the card table's pair colour), over a row of windows (a storey of a
   building); each special card a pictogram a child recognises at 40 px wide. Colour is never
   the only cue: the number, or the picture, says it too. */
import { s } from "./dom.js";
import { isJoker, pairColourOf } from "./facts.js";

const INK = "#2b2118";
const STROKE = {
  stroke: INK,
  "stroke-width": 2.5,
  "stroke-linejoin": "round",
  "stroke-linecap": "round",
};
/* Each pair colour's paint (the engine numbers them 1 to 4). */
const PAIR_COLOURS = { 1: "#c0392b", 2: "#1e6fb8", 3: "#1f7a3a", 4: "#7b3fa0" };
const JOKER = "#8a6d00";

/* The pictograms, in a 48×48 box. */
const PICTURES = {
  dog: () => [
    // a dog sitting, seen from the side
    s("path", { d: "M8 42 H42", ...STROKE, fill: "none" }),
    s("path", { d: "M15 30 Q7 27 8 18", ...STROKE, fill: "none" }),
    s("path", { d: "M13 41 Q10 28 19 24 L28 21 Q33 30 31 41 Z", fill: "#b7793f", ...STROKE }),
    s("path", { d: "M29 27 L29 41", ...STROKE }),
    s("circle", { cx: 31, cy: 15, r: 8, fill: "#b7793f", ...STROKE }),
    s("ellipse", { cx: 38.5, cy: 18, rx: 5, ry: 3.6, fill: "#d9a066", ...STROKE }),
    s("path", { d: "M26 9 Q21 13 24 21 Q28 16 28 9 Z", fill: "#6b4423", ...STROKE }),
    s("circle", { cx: 42.5, cy: 17, r: 1.8, fill: INK }),
    s("circle", { cx: 33, cy: 13, r: 1.4, fill: INK }),
  ],
  bone: () => [
    s(
      "g",
      { transform: "rotate(-30 24 24)" },
      s("path", { d: "M12 20 H36 V28 H12 Z", fill: "#f3ead2", ...STROKE }),
      ...[
        [11, 19],
        [11, 29],
        [37, 19],
        [37, 29],
      ].map(([cx, cy]) => s("circle", { cx, cy, r: 5.5, fill: "#f3ead2", ...STROKE })),
      s("path", { d: "M12 20 H36 V28 H12 Z", fill: "#f3ead2" }),
    ),
  ],
  jackhammer: () => [
    s("path", { d: "M8 43 H40", ...STROKE, fill: "none" }),
    s("rect", { x: 10, y: 5, width: 28, height: 6, rx: 3, fill: "#555", ...STROKE }),
    s("rect", { x: 17, y: 11, width: 14, height: 19, rx: 2, fill: "#f2c230", ...STROKE }),
    s("rect", { x: 22, y: 30, width: 4, height: 11, fill: "#9aa0a6", ...STROKE }),
    s("path", {
      d: "M13 40 L9 35 M35 40 L39 35 M16 44 L12 46 M32 44 L36 46",
      ...STROKE,
      fill: "none",
    }),
  ],
  "wrecking-ball": () => [
    s("path", { d: "M4 6 H32", ...STROKE, "stroke-width": 4, fill: "none" }),
    s("path", { d: "M28 6 L31 25", ...STROKE, "stroke-dasharray": "3 2.5", fill: "none" }),
    s("circle", { cx: 31, cy: 34, r: 10, fill: "#4a4a55", ...STROKE }),
    s("circle", { cx: 27.5, cy: 30.5, r: 2.5, fill: "#c9ccd6" }),
    s("path", { d: "M13 28 Q10 33 13 38 M8 26 Q4 33 8 40", ...STROKE, fill: "none" }),
  ],
  milkshake: () => [
    s("path", { d: "M27 15 L35 3", ...STROKE, stroke: "#d62f2f", "stroke-width": 3.5 }),
    s("path", { d: "M13 18 L35 18 L31 44 L17 44 Z", fill: "#f7a8c8", ...STROKE }),
    s("path", { d: "M12 18 Q14 10 20 12 Q24 7 29 12 Q35 10 36 18 Z", fill: "#fffaf0", ...STROKE }),
    s("circle", { cx: 21, cy: 9, r: 3, fill: "#d62f2f", ...STROKE }),
    s("path", { d: "M16 27 H32", ...STROKE, fill: "none" }),
  ],
  "donut-truck": () => [
    s("rect", { x: 3, y: 22, width: 40, height: 16, rx: 3, fill: "#7fc8f8", ...STROKE }),
    s("rect", { x: 32, y: 25, width: 8, height: 6, rx: 1, fill: "#fffaf0", ...STROKE }),
    s("circle", { cx: 12, cy: 39, r: 4.5, fill: "#333", ...STROKE }),
    s("circle", { cx: 33, cy: 39, r: 4.5, fill: "#333", ...STROKE }),
    s("circle", { cx: 18, cy: 13, r: 8, fill: "#d98a3a", ...STROKE }),
    s("circle", { cx: 18, cy: 13, r: 6, fill: "#f58fb8" }),
    s("circle", { cx: 18, cy: 13, r: 2.4, fill: "#fffaf0", ...STROKE, "stroke-width": 1.5 }),
    s("path", {
      d: "M14 10 l1 1 M21 9 l1 -1 M21 16 l1 1 M14 16 l-1 1",
      stroke: "#fffaf0",
      "stroke-width": 1.5,
    }),
  ],
  thief: () => thiefFigure(false),
  "super-thief": () => thiefFigure(true),
};

function thiefFigure(cape) {
  return [
    cape
      ? s("path", { d: "M9 45 L14 25 Q24 21 34 25 L39 45 Z", fill: "#d62f2f", ...STROKE })
      : null,
    s("path", { d: "M12 45 Q12 28 24 27 Q36 28 36 45 Z", fill: "#3b4a6b", ...STROKE }),
    s("path", { d: "M14 34 H34 M13 40 H35", stroke: "#fffaf0", "stroke-width": 2 }),
    s("circle", { cx: 24, cy: 16, r: 9, fill: "#f1c59a", ...STROKE }),
    s("path", { d: "M15 13 Q15 5 24 5 Q33 5 33 13 Z", fill: "#222", ...STROKE }),
    s("rect", { x: 14, y: 13, width: 20, height: 6, rx: 3, fill: "#222" }),
    s("circle", { cx: 20, cy: 16, r: 1.7, fill: "#fffaf0" }),
    s("circle", { cx: 28, cy: 16, r: 1.7, fill: "#fffaf0" }),
    cape
      ? s("path", {
          d: "M24 30 l1.8 3.6 4 .6 -2.9 2.8 .7 4 -3.6 -1.9 -3.6 1.9 .7 -4 -2.9 -2.8 4 -.6 Z",
          fill: "#f2c230",
        })
      : null,
  ];
}

/* A special card's pictogram, alone (a dog on a floor, a milkshake by a seat...). */
export function pictogram(code, cls = "pict") {
  const draw = PICTURES[code];
  return s(
    "svg",
    { viewBox: "0 0 48 48", class: cls, "aria-hidden": "true", focusable: "false" },
    draw ? draw() : [],
  );
}

/* A 6 (or a 9) is underlined, as on real cards, so that the corner turned upside down reads
   right: a bar under the digit, from x1 to x2 at y (in the digit's own orientation). */
const UPSIDE_DOWN_TWINS = ["6", "9"];
const underline = (code, x1, x2, y, width) =>
  UPSIDE_DOWN_TWINS.includes(code)
    ? s("path", {
        d: `M${x1} ${y} H${x2}`,
        class: "underline",
        stroke: "#fff",
        "stroke-width": width,
        "stroke-linecap": "round",
      })
    : null;

/* A floor card's face (a joker's with `value`, what it stands for in a floor). */
export function numberFace(code, value = null) {
  const joker = isJoker(code);
  const fill = joker ? JOKER : (PAIR_COLOURS[pairColourOf(code)] ?? INK);
  const windows = [10, 22.5, 35].map((x) =>
    s("rect", {
      x,
      y: 55,
      width: 9,
      height: 9,
      rx: 1,
      fill: "#ffe08a",
      stroke: INK,
      "stroke-width": 1.5,
    }),
  );
  return s(
    "svg",
    {
      viewBox: "0 0 54 84",
      class: "face",
      "aria-hidden": "true",
      focusable: "false",
      preserveAspectRatio: "xMidYMid meet",
    },
    s("rect", {
      x: 1.5,
      y: 1.5,
      width: 51,
      height: 81,
      rx: 6,
      fill,
      stroke: INK,
      "stroke-width": 2,
    }),
    s("path", { d: "M4 51 H50", stroke: "#fffaf0", "stroke-width": 1.5, opacity: 0.7 }),
    ...windows,
    s("text", { x: 6, y: 15, class: "corner" }, code),
    underline(code, 6.5, 12.5, 18, 1.6),
    s(
      "g",
      { transform: "rotate(180 45.5 75.7)" }, // (turned about its own middle)
      s("text", { x: 42, y: 80, class: "corner" }, code),
      underline(code, 42.5, 48.5, 83, 1.6),
    ),
    s("text", { x: 27, y: 46, class: "big", "text-anchor": "middle" }, code),
    underline(code, 20, 34, 48.5, 2.6),
    joker && value !== null && value !== "?"
      ? s("text", { x: 25, y: 79, class: "stands", "text-anchor": "middle" }, `=${value}`)
      : null,
  );
}

/* The back of a card (the other hands, the draw pile): a small skyline. */
export function cardBack() {
  return s(
    "svg",
    { viewBox: "0 0 54 84", class: "face back", "aria-hidden": "true", focusable: "false" },
    s("rect", {
      x: 1.5,
      y: 1.5,
      width: 51,
      height: 81,
      rx: 6,
      fill: "#1d3557",
      stroke: INK,
      "stroke-width": 2,
    }),
    s("path", {
      d: "M8 70 V44 H18 V30 H28 V50 H36 V38 H46 V70 Z",
      fill: "#457b9d",
      stroke: "#a8dadc",
      "stroke-width": 1.5,
    }),
    s("path", { d: "M6 70 H48", stroke: "#a8dadc", "stroke-width": 2 }),
    s("circle", { cx: 40, cy: 18, r: 6, fill: "#f2c230" }),
  );
}
