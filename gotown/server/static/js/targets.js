/* Where a card can go: with cards selected (or one dragged), every tower or floor that one of
   their legal moves aims at glows and can be tapped (or dropped on) to make that move; the
   towers and floors that light up are exactly the legal ones. A tap on anything else says what
   the card does (its rule). */
import { contains, buttonText, usesOf } from "./words.js";

/* The seat and floor an action lands on (a floor of null: the whole tower). */
export function landing(a, me, towers) {
  switch (a.type) {
    case "dog": return { seat: a.target ?? me, floor: a.floor };
    case "bone": return { seat: a.target, floor: a.floor };
    case "steal": case "jackhammer": case "wrecking-ball": return { seat: a.target, floor: towers[a.target].length - 1 };
    case "milkshake": case "thief": return { seat: a.target, floor: null };
    default: return { seat: me, floor: null };  // a build, the donut truck, the super-thief
  }
}

/* The legal moves that play exactly the cards `codes` (builds and steals first). */
export function movesOf(legal, codes) {
  const rank = { build: 0, steal: 1 };
  return legal.filter((a) => a.type !== "end-turn" && contains(usesOf(a), codes))
    .sort((a, b) => (rank[a.type] ?? 2) - (rank[b.type] ?? 2));
}

function targetEl(root, where) {
  const box = root.querySelector('.seatbox[data-seat="' + where.seat + '"]');
  if (!box) return null;
  return where.floor === null ? box.querySelector(".building") : box.querySelector('.floor[data-floor="' + where.floor + '"]');
}

/* Light up the targets of the moves of `codes` (default: the selected cards). */
export function markTargets(root, st, ui, codes = ui.selected.map((i) => st.view.hand[i])) {
  for (const el of root.querySelectorAll(".glow")) {
    el.classList.remove("glow");
    el.removeAttribute("tabindex");
    delete el.dataset.move;
    if (!el.classList.contains("floor")) { el.removeAttribute("role"); el.removeAttribute("aria-label"); }
  }
  if (!codes.length) return;
  const seen = new Set();
  for (const a of movesOf(st.legal, codes)) {
    const where = landing(a, st.seat, st.view.towers);
    const el = targetEl(root, where);
    const key = where.seat + ":" + where.floor;
    if (!el || seen.has(key)) continue;  // the first (main) move of a place is the one a tap makes
    seen.add(key);
    el.classList.add("glow");
    el.dataset.move = JSON.stringify(a);
    el.setAttribute("tabindex", "0");
    el.title = buttonText(a, st);
    // (A floor stays a list item, read as its sentence; the action's button says the move.)
    if (!el.classList.contains("floor")) { el.setAttribute("role", "button"); el.setAttribute("aria-label", buttonText(a, st)); }
  }
}

/* Taps, keys and drops on the towers: a glowing target makes its move; anything else, with a
   card selected, says what that card does. */
export function listenTargets(root, ui) {
  const hit = (ev) => {
    const el = ev.target.closest(".glow");
    if (el && el.dataset.move) { ev.preventDefault(); ui.act(JSON.parse(el.dataset.move)); return true; }
    return false;
  };
  root.addEventListener("click", (ev) => {
    if (!ev.target.closest("#towers") || hit(ev)) return;
    if (ev.target.closest(".seatbox") && ui.selected.length && !ev.target.closest("button")) ui.explain();
  });
  root.addEventListener("keydown", (ev) => { if ((ev.key === "Enter" || ev.key === " ") && ev.target.classList.contains("glow")) hit(ev); });
  root.addEventListener("dragover", (ev) => { if (ev.target.closest && ev.target.closest(".glow")) ev.preventDefault(); });
  root.addEventListener("drop", (ev) => { hit(ev); ui.dragEnd(); });
  root.addEventListener("dragend", () => ui.dragEnd());
}

