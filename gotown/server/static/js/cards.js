/* Cards in words and on the table: names in the reader's language, what each does (with its
   rule), and the card elements (art.js draws their faces). What a card is comes from facts.js. */

import { cardBack, numberFace, pictogram } from "./art.js";
import { h, plain } from "./dom.js";
import { cardOf, isFloorCard, isJoker, isNumber, pairColourOf, partnerOf } from "./facts.js";
import { t } from "./i18n.js";

/* Its category's class ("cnumber", "cjoker" or "cspecial"), and a number's colour group's. */
export function cardClass(code) {
  const card = cardOf(code);
  if (!card) return "cspecial";
  return `c${card.category}${isNumber(code) ? ` colour${pairColourOf(code)}` : ""}`;
}

export const cardName = (code) => plain(t(isNumber(code) ? "card_floor" : `card_${code}`));

/* What a card is called where a sentence names it: a number is its number. */
export const cardLabel = (code) => (isNumber(code) ? code : t(`card_${code}`));

/* What a card does, for a card that can do nothing now (tapped while greyed): the rule, in a
   sentence, so that a player learns why. The dog and the bone follow the game's R23 options. */
export function useText(code, options = {}) {
  return t("card_use", { card: plain(cardLabel(code)), use: useOf(code, options) });
}

/* What a card does, without its name. */
export function useOf(code, options = {}) {
  const category = cardOf(code)?.category;
  let kind = category === "special" ? code : category;
  if (code === "dog")
    kind +=
      (options.dog_placement === "any" ? "_any" : "") +
      (options.dogs_per_floor === "unlimited" ? "_unlimited" : "");
  if (code === "bone" && options.bone_targets === "any") kind += "_any";
  return t(`use_${kind}`, isNumber(code) ? { n: code, m: partnerOf(code) } : {});
}

/* A card as held: a floor card is its face alone ("floor card" is in its label for screen
   readers); the joker and the special cards carry their name, which may break at its soft
   hyphens. */
export function cardEl(code, extra = {}) {
  const num = isFloorCard(code);
  const label = isNumber(code) ? `${cardName(code)} ${code}` : plain(cardLabel(code));
  return h(
    "span",
    { class: `card ${cardClass(code)}${num ? "" : " special"}`, "aria-label": label, ...extra },
    num ? numberFace(code) : pictogram(code),
    isNumber(code) ? null : h("span", { class: "name" }, cardLabel(code)),
  );
}

/* A small card in a tower or a pile: a joker shows what it stands for. */
export function miniCard(code, value) {
  const title =
    isJoker(code) && value !== "?"
      ? t("joker_value", { n: value })
      : isNumber(code)
        ? `${cardName(code)} ${code}`
        : cardName(code);
  return h(
    "span",
    { class: `mini ${cardClass(code)}`, title, "data-card": code },
    isFloorCard(code) ? numberFace(code, value) : pictogram(code),
  );
}

/* Face-down cards: another seat's hand, or the draw pile. */
export const backCard = (extra = {}) => h("span", { class: "mini back", ...extra }, cardBack());
