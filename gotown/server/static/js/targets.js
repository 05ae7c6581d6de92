/* Where a card can go: with cards selected (or one dragged), every tower or floor that one of
   their legal moves aims at glows and can be tapped (or dropped on) to make that move; the
   towers and floors that light up are exactly the legal ones. A tap on anything else says what
   the card does (its rule). `model` is the table's (table-model.js). */

import { useText } from "./cards.js";
import { cardsPlayed } from "./facts.js";
import { toast } from "./notices.js";
import { buttonText } from "./words.js";

/* The seat and floor an action lands on (a floor of null: the whole tower). */
export function landing(a, me, towers) {
  switch (a.type) {
    case "dog":
      return { seat: a.target ?? me, floor: a.floor };
    case "bone":
      return { seat: a.target, floor: a.floor };
    case "steal":
    case "jackhammer":
    case "wrecking-ball":
      return { seat: a.target, floor: towers[a.target].length - 1 };
    case "milkshake":
    case "thief":
      return { seat: a.target, floor: null };
    default:
      return { seat: me, floor: null }; // a build, the donut truck, the super-thief
  }
}

/* Whether the multiset `big` holds every card of `small`. */
export function contains(big, small) {
  const rest = [...big];
  for (const c of small) {
    const k = rest.indexOf(c);
    if (k < 0) return false;
    rest.splice(k, 1);
  }
  return true;
}

/* The legal moves that play the cards `codes` (and maybe more: a build's other card), builds
   and steals first; none for no card. */
export function movesOf(legal, codes) {
  const rank = { build: 0, steal: 1 };
  if (!codes.length) return [];
  return legal
    .filter((a) => contains(cardsPlayed(a), codes))
    .sort((a, b) => (rank[a.type] ?? 2) - (rank[b.type] ?? 2));
}

function targetEl(root, where) {
  const box = root.querySelector(`.seatbox[data-seat="${where.seat}"]`);
  if (!box) return null;
  return where.floor === null
    ? box.querySelector(".building")
    : box.querySelector(`.floor[data-floor="${where.floor}"]`);
}

/* Light up the targets of the moves of `codes` (default: the selected cards). */
export function markTargets(
  root,
  model,
  codes = model.selected.map((i) => model.state.view.hand[i]),
) {
  const st = model.state;
  for (const el of root.querySelectorAll(".glow")) {
    el.classList.remove("glow");
    el.removeAttribute("tabindex");
    delete el.dataset.move;
    if (!el.classList.contains("floor")) {
      el.removeAttribute("role");
      el.removeAttribute("aria-label");
    }
  }
  const seen = new Set();
  for (const a of movesOf(st.legal, codes)) {
    const where = landing(a, st.seat, st.view.towers);
    const el = targetEl(root, where);
    const key = `${where.seat}:${where.floor}`;
    if (!el || seen.has(key)) continue; // the first (main) move of a place is the one a tap makes
    seen.add(key);
    el.classList.add("glow");
    el.dataset.move = JSON.stringify(a);
    el.setAttribute("tabindex", "0");
    el.title = buttonText(a, st);
    // (A floor stays a list item, read as its sentence; the action's button says the move.)
    if (!el.classList.contains("floor")) {
      el.setAttribute("role", "button");
      el.setAttribute("aria-label", buttonText(a, st));
    }
  }
}

/* Taps, keys and drops on the towers: a glowing target makes its move; anything else, with a
   card selected, says what that card does. */
export function listenTargets(root, model) {
  const hit = (ev) => {
    const el = ev.target.closest(".glow");
    if (el?.dataset.move && model.on.act) {
      ev.preventDefault();
      model.on.act(JSON.parse(el.dataset.move));
      return true;
    }
    return false;
  };
  const dragEnd = () => model.on.dragEnd?.();
  root.addEventListener("click", (ev) => {
    if (!ev.target.closest("#towers") || hit(ev)) return;
    if (
      ev.target.closest(".seatbox") &&
      model.selected.length &&
      !ev.target.closest("button") &&
      model.on.explain
    )
      model.on.explain();
  });
  root.addEventListener("keydown", (ev) => {
    if ((ev.key === "Enter" || ev.key === " ") && ev.target.classList.contains("glow")) hit(ev);
  });
  root.addEventListener("dragover", (ev) => {
    if (ev.target.closest?.(".glow")) ev.preventDefault();
  });
  root.addEventListener("drop", (ev) => {
    hit(ev);
    dragEnd();
  });
  root.addEventListener("dragend", dragEnd);
}

/* The gestures that pick cards, for `model.on` (they change only the screen): a tap picks a
   card or puts it back (`redraw`, the focus kept on it); a tap on a tower that no picked card
   can reach says what the last one does (its rule); a drag lights its card's targets. */
export function pickHandlers(root, model, redraw) {
  return {
    toggle(i) {
      const k = model.selected.indexOf(i);
      if (k >= 0) model.selected.splice(k, 1);
      else model.selected.push(i);
      redraw();
      const el = document.getElementById(`card-${i}`);
      if (el) el.focus();
    },
    explain() {
      const code = model.state.view.hand[model.selected[model.selected.length - 1]];
      if (code) toast(useText(code, model.state.view.options), true);
    },
    dragStart(ev, i) {
      const code = model.state.view.hand[i];
      ev.dataTransfer.setData("text/plain", code);
      ev.dataTransfer.effectAllowed = "move";
      markTargets(root, model, [code]);
    },
    dragEnd() {
      if (model.state?.view) markTargets(root, model);
    },
  };
}
