/* The rules page's pictures: the nine-pairs (and a joker) under "The cards", and each special
   card's picture beside its paragraph. The text names every card, so the pictures are
   decoration for screen readers. */
import { h } from "./dom.js";
import { numberFace, pictogram } from "./art.js";

function figure(...cards) {
  return h("span", { class: "rules-cards", "aria-hidden": "true" }, ...cards.map((c) => h("span", { class: "mini rules-card" }, c)));
}

document.addEventListener("DOMContentLoaded", () => {
  for (const li of document.querySelectorAll("li[data-card]")) li.prepend(figure(pictogram(li.dataset.card)));
  const cards = document.querySelectorAll("main h2")[1];
  const first = cards && cards.nextElementSibling;
  if (first) {
    first.after(h("p", { class: "rules-pairs" },
      ...[["1", "8"], ["2", "7"], ["3", "6"], ["4", "5"], ["?", "5"]].map(([a, b]) => figure(numberFace(a, a === "?" ? 4 : null), numberFace(b)))));
  }
});
