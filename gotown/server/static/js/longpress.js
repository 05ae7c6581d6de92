/* A long press on a card (touch): a bubble by the card says its name, what it does and its
   rule, and the press plays nothing (the tap that would follow it is swallowed). A mouse
   has the card's title on hover instead. The bubble goes at the next touch, or by itself. */

import { cardName, useOf } from "./cards.js";
import { $, h } from "./dom.js";
import { isNumber, rulesOf } from "./facts.js";

const HOLD_MS = 450; // (a tap is shorter; Chrome's own long press, with its menu, longer)
const SLOP_PX = 10; // a finger that moves further scrolls, it does not press
const SHOWN_MS = 8000;

const at = { press: null, swallow: false, timer: null };

export function hideCardInfo() {
  clearTimeout(at.timer);
  const el = $("#card-info");
  if (el) el.remove();
}

/* The bubble for `code`, above the card `anchor` (below it near the top of the screen). */
export function showCardInfo(anchor, code, options = {}) {
  hideCardInfo();
  const name = isNumber(code) ? `${cardName(code)} ${code}` : cardName(code);
  const el = h(
    "div",
    { id: "card-info", role: "status", "data-card": code },
    h("strong", { class: "card-info-name" }, name),
    // (The rule as errors cite it: "(R12)".)
    h("span", { class: "card-info-use" }, `${useOf(code, options)} (${rulesOf(code)})`),
  );
  document.body.append(el);
  const card = anchor.getBoundingClientRect(),
    box = el.getBoundingClientRect();
  const left = Math.max(
    8,
    Math.min(window.innerWidth - box.width - 8, card.left + card.width / 2 - box.width / 2),
  );
  const above = card.top - box.height - 8;
  el.style.left = `${left}px`;
  el.style.top = `${above >= 8 ? above : card.bottom + 8}px`;
  at.timer = setTimeout(hideCardInfo, SHOWN_MS);
}

/* Long presses on the cards under `root`; `optionsOf()` gives the game's R23 options (the dog
   and the bone say them). */
export function listenLongPress(root, optionsOf) {
  const cancel = () => {
    if (at.press) {
      clearTimeout(at.press.timer);
      at.press = null;
    }
  };
  document.addEventListener(
    "pointerdown",
    (ev) => {
      at.swallow = false;
      if (!ev.target.closest?.("#card-info")) hideCardInfo();
    },
    true,
  );
  root.addEventListener("pointerdown", (ev) => {
    cancel();
    const card = ev.pointerType === "touch" && ev.target.closest("[data-card]");
    if (!card) return;
    at.press = {
      x: ev.clientX,
      y: ev.clientY,
      timer: setTimeout(() => {
        at.press = null;
        at.swallow = true;
        showCardInfo(card, card.dataset.card, optionsOf());
      }, HOLD_MS),
    };
  });
  root.addEventListener("pointermove", (ev) => {
    if (at.press && Math.hypot(ev.clientX - at.press.x, ev.clientY - at.press.y) > SLOP_PX)
      cancel();
  });
  root.addEventListener("pointerup", cancel);
  root.addEventListener("pointercancel", cancel);
  // The tap that ends a long press, the browser's menu and a drag that starts from it: none.
  root.addEventListener(
    "click",
    (ev) => {
      if (at.swallow) {
        at.swallow = false;
        ev.preventDefault();
        ev.stopPropagation();
      }
    },
    true,
  );
  root.addEventListener("contextmenu", (ev) => {
    if (ev.target.closest?.("[data-card]")) ev.preventDefault();
  });
  root.addEventListener(
    "dragstart",
    (ev) => {
      if (at.press || at.swallow) ev.preventDefault();
    },
    true,
  );
}
