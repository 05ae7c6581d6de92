/* The rules page's pictures: the nine-pairs (and a joker) under "The cards", each special
   card's picture beside its paragraph, and the cards of each worked example beside it
   (`data-cards`: codes, a joker in a floor as "?=7"). The text names every card, so the
   pictures are decoration for screen readers. The cards are the server's (/api/meta). */

import { numberFace, pictogram } from "./art.js";
import { h } from "./dom.js";
import { cardOf, cardsOf, isFloorCard, isJoker, jokerValue, useFacts } from "./facts.js";

function figure(...cards) {
  return h(
    "span",
    { class: "rules-cards", "aria-hidden": "true" },
    ...cards.map((c) => h("span", { class: "mini rules-card" }, c)),
  );
}

/* A card's picture from its code: a floor card's face (a joker's with what it stands for),
   else the special card's pictogram. */
function face(code) {
  const [card, value] = code.split("=");
  return isFloorCard(card) ? numberFace(card, value ?? null) : pictogram(card);
}

/* Each number with its partner (the smaller first), then a joker beside the last pair's
   partner, standing for its number. */
function pairs() {
  const shown = cardsOf("number")
    .filter((c) => c.number < cardOf(c.partner)?.number)
    .map((c) => [c.code, c.partner]);
  const [joker] = cardsOf("joker");
  const beside = shown.at(-1)?.[1];
  return joker && beside ? [...shown, [joker.code, beside]] : shown;
}

async function loadFacts() {
  const got = await (await fetch("/api/meta", { headers: { Accept: "application/json" } })).json();
  useFacts({ cards: got.cards, actions: got.actions, jokerValues: got.joker_values });
}

document.addEventListener("DOMContentLoaded", async () => {
  try {
    await loadFacts();
  } catch {
    return;
  } // (the words say it all without pictures)
  for (const li of document.querySelectorAll("li[data-card]"))
    li.prepend(figure(pictogram(li.dataset.card)));
  for (const ex of document.querySelectorAll(".example[data-cards]")) {
    const words = h("span", {}, ...ex.childNodes);
    ex.replaceChildren(figure(...ex.dataset.cards.split(" ").map(face)), words);
  }
  const cards = document.querySelectorAll("main h2")[1];
  const first = cards?.nextElementSibling;
  if (first) {
    first.after(
      h(
        "p",
        { class: "rules-pairs" },
        ...pairs().map(([a, b]) =>
          figure(numberFace(a, isJoker(a) ? jokerValue(b) : null), numberFace(b)),
        ),
      ),
    );
  }
});
