/* The rules page's pictures: the nine-pairs (and a joker) under "The cards", each special
   card's picture beside its paragraph, and the cards of each worked example beside it
   (`data-cards`: codes, a joker in a floor as "?=7"). The text names every card, so the
   pictures are decoration for screen readers. */
import { h } from "./dom.js";
import { numberFace, pictogram } from "./art.js";

function figure(...cards) {
  return h("span", { class: "rules-cards", "aria-hidden": "true" }, ...cards.map((c) => h("span", { class: "mini rules-card" }, c)));
}

/* A card's picture from its code: a floor card's face (a joker's with what it stands for),
   else the special card's pictogram. */
function face(code) {
  const [card, value] = code.split("=");
  return /^[1-8?]$/.test(card) ? numberFace(card, value ?? null) : pictogram(card);
}

document.addEventListener("DOMContentLoaded", () => {
  for (const li of document.querySelectorAll("li[data-card]")) li.prepend(figure(pictogram(li.dataset.card)));
  for (const ex of document.querySelectorAll(".example[data-cards]")) {
    const words = h("span", {}, ...ex.childNodes);
    ex.replaceChildren(figure(...ex.dataset.cards.split(" ").map(face)), words);
  }
  const cards = document.querySelectorAll("main h2")[1];
  const first = cards && cards.nextElementSibling;
  if (first) {
    first.after(h("p", { class: "rules-pairs" },
      ...[["1", "8"], ["2", "7"], ["3", "6"], ["4", "5"], ["?", "5"]].map(([a, b]) => figure(numberFace(a, a === "?" ? 4 : null), numberFace(b)))));
  }
});
