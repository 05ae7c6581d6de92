/* What the rules say of the cards and the moves, as the server's engine states them in
   /api/meta: the card table (each card's category, number, partner that makes nine, pair
   colour and rules: R2, R5), each action type's rule and the hand cards it plays, and what a
   joker stands for (R5). The page states none of them itself: it asks these functions, which
   know nothing until `useFacts` gives them the server's (main.js, rules.js). */

const facts = { cards: new Map(), actions: {}, jokerValues: {} };

/* The server's facts: `cards` (its card table), `actions` (by type) and `jokerValues`. */
export function useFacts({ cards, actions, jokerValues }) {
  facts.cards = new Map((cards || []).map((card) => [card.code, card]));
  facts.actions = actions || {};
  facts.jokerValues = jokerValues || {};
}

/* A card's row of the table (undefined for a code it does not hold). */
export const cardOf = (code) => facts.cards.get(code);

export const isNumber = (code) => cardOf(code)?.category === "number";
export const isJoker = (code) => cardOf(code)?.category === "joker";
/* A card a floor is built of (a number or a joker). */
export const isFloorCard = (code) => isNumber(code) || isJoker(code);

/* The number card that makes nine with `code` (R5), or null. */
export const partnerOf = (code) => cardOf(code)?.partner ?? null;

/* A number card's colour group, shared with its partner (R2), or null. */
export const pairColourOf = (code) => cardOf(code)?.pair_colour ?? null;

/* The rules that say what a card does, as a refusal cites them ("R10, R11"). */
export const rulesOf = (code) => (cardOf(code)?.rules ?? []).join(", ");

/* The cards of a category ("number", "joker", "special"), in the table's order. */
export const cardsOf = (category) =>
  [...facts.cards.values()].filter((card) => card.category === category);

/* The cards of the hand an action plays: named by its field `cards` (a build's two), its
   field `card` (a steal-build's number) or its type (a special card); none for the end of a
   turn. */
export function cardsPlayed(action) {
  const plays = facts.actions[action.type]?.plays;
  if (plays === "cards") return [...action.cards];
  if (plays === "card") return [action.card];
  if (plays === "type") return [action.type];
  return [];
}

/* What a joker stands for beside `partner` ("?" when it is not known). */
export const jokerValue = (partner) => facts.jokerValues[partner] ?? "?";

/* A floor's cards, its dogs, and each card's value (a joker's, from the engine's table). */
export function floorValues(floor) {
  const cards = floor.filter((c) => c !== "dog");
  const dogs = floor.length - cards.length;
  const partner = cards.find((c) => !isJoker(c));
  const values = cards.map((c) => (isJoker(c) ? jokerValue(partner) : cardOf(c)?.number));
  return { cards, dogs, values };
}
