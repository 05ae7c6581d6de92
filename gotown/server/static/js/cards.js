/* Cards in words and on the table: names in the reader's language, what each does (with its
   rule), and the card elements (art.js draws their faces). */
import { h, plain } from "./dom.js";
import { t } from "./i18n.js";
import { cardBack, numberFace, pictogram } from "./art.js";

export const NUMBERS = ["1", "2", "3", "4", "5", "6", "7", "8"];
export const isNumber = (code) => NUMBERS.includes(code);

/* The pair's class ("c18" for 1 and 8), "cjoker" or "cspecial". */
export function cardClass(code) {
  if (isNumber(code)) {
    const n = Number(code), lo = Math.min(n, 9 - n);
    return "c" + lo + (9 - lo);
  }
  return code === "?" ? "cjoker" : "cspecial";
}

export const cardName = (code) => plain(t(isNumber(code) ? "card_floor" : "card_" + code));

/* What a card is called where a sentence names it: a number is its number. */
export const cardLabel = (code) => (isNumber(code) ? code : t("card_" + code));

/* What a card does, for a card that can do nothing now (tapped while greyed): the rule, in a
   sentence, so that a player learns why. The dog and the bone follow the game's R23 options. */
export function useText(code, options = {}) {
  return t("card_use", { card: plain(cardLabel(code)), use: useOf(code, options) });
}

/* What a card does, without its name. */
export function useOf(code, options = {}) {
  let kind = isNumber(code) ? "number" : code === "?" ? "joker" : code;
  if (code === "dog") kind += (options.dog_placement === "any" ? "_any" : "") + (options.dogs_per_floor === "unlimited" ? "_unlimited" : "");
  if (code === "bone" && options.bone_targets === "any") kind += "_any";
  return t("use_" + kind, isNumber(code) ? { n: code, m: 9 - Number(code) } : {});
}

/* The rules that say what a card does (RULES.md): a number builds (R10) or steals (R11), a
   joker is wild (R5). */
const RULE_OF = { dog: "R12", bone: "R13", jackhammer: "R14", "wrecking-ball": "R15", thief: "R16",
  "super-thief": "R17", milkshake: "R18", "donut-truck": "R19" };
export const ruleOf = (code) => (isNumber(code) ? "R10, R11" : code === "?" ? "R5, R10" : RULE_OF[code]);

/* What a joker stands for beside each number (R5), as the engine says it (/api/meta). */
let jokerValues = {};
export function useJokerValues(values) {
  jokerValues = values || {};
}

/* What a joker stands for beside `partner` ("?" when it is not known). */
export const jokerValue = (partner) => jokerValues[partner] ?? "?";

/* A floor's cards, its dogs, and each card's value (a joker's, from the engine's table). */
export function floorValues(floor) {
  const cards = floor.filter((c) => c !== "dog");
  const dogs = floor.length - cards.length;
  const partner = cards.find((c) => c !== "?");
  const values = cards.map((c) => (c === "?" ? jokerValue(partner) : Number(c)));
  return { cards, dogs, values };
}

/* A card as held: a floor card is its face alone ("floor card" is in its label for screen
   readers); the joker and the special cards carry their name, which may break at its soft
   hyphens. */
export function cardEl(code, extra = {}) {
  const num = isNumber(code) || code === "?";
  const label = isNumber(code) ? cardName(code) + " " + code : plain(cardLabel(code));
  return h("span", { class: "card " + cardClass(code) + (num ? "" : " special"), "aria-label": label, ...extra },
    num ? numberFace(code) : pictogram(code),
    isNumber(code) ? null : h("span", { class: "name" }, cardLabel(code)));
}

/* A small card in a tower or a pile: a joker shows what it stands for. */
export function miniCard(code, value) {
  const title = code === "?" && value !== "?" ? t("joker_value", { n: value }) : isNumber(code) ? cardName(code) + " " + code : cardName(code);
  return h("span", { class: "mini " + cardClass(code), title, "data-card": code },
    isNumber(code) || code === "?" ? numberFace(code, value) : pictogram(code));
}

/* Face-down cards: another seat's hand, or the draw pile. */
export const backCard = (extra = {}) => h("span", { class: "mini back", ...extra }, cardBack());
