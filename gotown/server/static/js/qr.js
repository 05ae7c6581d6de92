/* A QR code of a link, drawn here (a seat's own link must not travel to the server in a
   request for its picture): uqr encodes, this draws the dark modules as one SVG path. */
import { encode } from "../vendor/uqr-0.1.3.js";
import { s } from "./dom.js";

export function qrSvg(text, label, id) {
  const qr = encode(text, { ecc: "M", border: 2 });
  let d = "";
  qr.data.forEach((row, y) => {
    row.forEach((dark, x) => {
      if (dark) d += `M${x} ${y}h1v1h-1z`;
    });
  });
  return s(
    "svg",
    {
      viewBox: `0 0 ${qr.size} ${qr.size}`,
      class: "qr",
      role: "img",
      "aria-label": label,
      id,
      "shape-rendering": "crispEdges",
    },
    s("rect", { width: qr.size, height: qr.size, fill: "#fff" }),
    s("path", { d, fill: "#000" }),
  );
}
