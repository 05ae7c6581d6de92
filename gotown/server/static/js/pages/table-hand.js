/* Your hand at the table, and what it can do: each card (greyed when it can do nothing now,
   and then saying why), the cards that make nine with the one picked, the moves of the cards
   picked (the suggested one marked), ending the turn, and the hint. `model` is the table's
   (table-model.js). */
import { cardClass, cardEl, useText } from "../cards.js";
import { h } from "../dom.js";
import { cardOf, cardsPlayed, isFloorCard, isNumber, partnerOf } from "../facts.js";
import { t } from "../i18n.js";
import { toast } from "../notices.js";
import { contains, movesOf } from "../targets.js";
import { buttonText, whereText } from "../words.js";

export function handPanel(model) {
  const st = model.state,
    v = st.view,
    legal = st.legal,
    hand = v.hand || [],
    on = model.on;
  const panel = h(
    "section",
    { class: "panel", id: "hand-panel", "aria-labelledby": "hand-title" },
    h("h2", { id: "hand-title" }, t("your_hand")),
  );
  const usable = new Set(legal.flatMap(cardsPlayed));
  const sel = model.selected.map((i) => hand[i]);
  // One number selected: the cards that make nine with it are shown with it (R5).
  const partners =
    sel.length === 1 && isFloorCard(sel[0])
      ? new Set(
          legal
            .filter((a) => a.type === "build" && contains(a.cards, sel))
            .flatMap((a) => {
              const rest = [...a.cards];
              rest.splice(rest.indexOf(sel[0]), 1);
              return rest;
            }),
        )
      : new Set();
  const handEl = h("div", {
    class: "hand",
    id: "hand",
    role: "group",
    "aria-label": t("your_hand"),
  });
  hand.forEach((code, i) => {
    const pressed = model.selected.includes(i);
    const playable = legal.length > 0 && usable.has(code);
    const dim = legal.length > 0 && !playable;
    // A greyed card can still be tapped (or reached with the keyboard): it says what it
    // does, so that the player learns why it cannot be played now.
    const use = () => (playable ? on.toggle(i) : toast(useText(code, v.options), true));
    handEl.append(
      cardEl(code, {
        // (Its title: what it does, with its rule, on hover.)
        role: "button",
        tabindex: legal.length > 0 ? "0" : "-1",
        id: `card-${i}`,
        "data-card": code,
        "data-index": i,
        title: useText(code, v.options),
        "aria-pressed": pressed ? "true" : "false",
        "aria-disabled": playable ? "false" : "true",
        draggable: playable ? "true" : null,
        class:
          "card " +
          cardClass(code) +
          (isFloorCard(code) ? "" : " special") +
          (dim ? " dim" : "") +
          (!pressed && partners.has(code) ? " pair" : ""),
        onclick: () => legal.length > 0 && use(),
        onkeydown: (ev) => {
          if (legal.length > 0 && (ev.key === "Enter" || ev.key === " ")) {
            ev.preventDefault();
            use();
          }
        },
        ondragstart: (ev) => on.dragStart(ev, i),
      }),
    );
  });
  if (!hand.length) handEl.append(h("span", { class: "help" }, t("empty_hand")));
  panel.append(handEl);
  if (v.over) return panel;
  if (!legal.length) {
    if (model.mode === "seat") panel.append(h("p", { class: "help" }, t("wait_turn")));
    return panel;
  }
  const actions = h("div", { class: "actions", id: "actions" });
  const matching = movesOf(legal, sel);
  const hintKeys = new Set((model.hints || []).slice(0, 1).map((x) => JSON.stringify(x.action)));
  const suggested = matching.findIndex((a) => hintKeys.has(JSON.stringify(a)));
  const main = Math.max(suggested, 0); // the suggested move, when it is one of them
  // The main (filled) button is the first move the selected cards make; ending the turn,
  // which cannot be taken back, is the main one only when nothing else can be done. Several
  // moves of one card that differ only by where they go say only where (short buttons that
  // share a row); each button's name, and its title, is the whole move.
  const onlyWhere =
    matching.length > 1 &&
    matching[0].type !== "build" &&
    matching.every((a) => a.type === matching[0].type);
  matching.forEach((a, k) => {
    const said = buttonText(a, st);
    actions.append(
      h(
        "button",
        {
          class:
            "act" +
            (k === main ? " primary" : "") +
            (hintKeys.has(JSON.stringify(a)) ? " suggested" : ""),
          id: `act-${k}`,
          "data-type": a.type,
          "data-move": JSON.stringify(a),
          "aria-label": onlyWhere ? said : null,
          title: onlyWhere ? said : null,
          onclick: () => on.act(a),
        },
        onlyWhere ? whereText(a, st) : said,
      ),
    );
  });
  const endTurn = legal.find((a) => a.type === "end-turn");
  if (endTurn)
    actions.append(
      h(
        "button",
        {
          class:
            "act" +
            (legal.length === 1 ? " primary" : "") +
            (hintKeys.has(JSON.stringify(endTurn)) ? " suggested" : ""),
          id: "end-turn",
          "data-type": "end-turn",
          onclick: () => on.act(endTurn),
        },
        t("btn_end-turn"),
      ),
    );
  // Two numbers that are no floor: say their sum, and what a floor needs (R5).
  const apart = sel.length === 2 && sel.every(isNumber) && partnerOf(sel[0]) !== sel[1];
  const sum = apart ? cardOf(sel[0]).number + cardOf(sel[1]).number : null;
  const nothing = apart
    ? t("no_floor_sum", { a: sel[0], b: sel[1], sum })
    : t("no_action_for_selection");
  // The moves and the hint flow together (style.css): one block of buttons under the hand.
  const hintRow = h(
    "div",
    { class: "hint-row" },
    h("button", { id: "hint", onclick: () => on.hint() }, t("hint")),
  );
  // (No card to choose when none can be played: only "End turn".)
  const choose = legal.some((a) => a.type !== "end-turn") ? t("select_cards") : null;
  panel.append(
    h(
      "p",
      { class: `help${matching.length ? " pick" : ""}`, id: "select-help" },
      sel.length ? (matching.length ? t("pick_action") : nothing) : choose,
    ),
    h("div", { class: "moves" }, actions, hintRow),
  );
  if (model.hints?.length) {
    const pct = Math.round(model.hints[0].win_probability * 100);
    hintRow.append(
      h(
        "span",
        { id: "hint-text" },
        t("hint_says", { action: buttonText(model.hints[0].action, st) }),
      ),
    );
    // The chances of the suggested move (the chances panel's bar, when shown, is the
    // position's): said apart, so that two bars do not read as one number twice.
    panel.append(
      h(
        "div",
        { class: "field", id: "hint-chance" },
        h("span", {}, t("hint_chance", { p: pct })),
        meter(pct, t("hint_chance", { p: pct })),
      ),
    );
  }
  return panel;
}

/* A bar from 0 to 100 (its width set from script: no inline style in the markup). */
export function meter(pct, label) {
  const fill = h("div", {});
  fill.style.width = `${pct}%`;
  return h(
    "div",
    {
      class: "bar",
      role: "meter",
      "aria-valuemin": 0,
      "aria-valuemax": 100,
      "aria-valuenow": pct,
      "aria-label": label,
    },
    fill,
  );
}
