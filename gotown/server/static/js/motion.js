/* Motion that explains (each gesture 250–400 ms, scaled by the speed setting): a played card
   travels from the hand (or the player's seat) to where it lands; a steal lifts the card off
   the other tower and the leftover slides to the discard pile; the jack-hammer shakes a floor
   off, the wrecking ball swings into it; the thief's card slides between seats (face down
   unless this seat saw it); a turn of several moves plays out one move after the other. With
   `prefers-reduced-motion`, nothing travels: what changed is highlighted briefly. */
import { pictogram } from "./art.js";
import { backCard, miniCard } from "./cards.js";
import { speed } from "./settings.js";
import { play, SOUND_OF } from "./sound.js";

const BASE_MS = 320;
const REDUCED = window.matchMedia ? window.matchMedia("(prefers-reduced-motion: reduce)") : null;
export const stillMotion = () => Boolean(REDUCED?.matches);

/* What the table looked like before a redraw: the floors (and copies of them, to animate once
   they are gone), the seats, the hand and the discard pile. */
export function snapshot(root) {
  const floors = new Map();
  for (const el of root.querySelectorAll(".seatbox[data-seat] .floor[data-floor]")) {
    const seat = el.closest(".seatbox").dataset.seat;
    floors.set(`${seat}:${el.dataset.floor}`, {
      rect: el.getBoundingClientRect(),
      node: el.cloneNode(true),
    });
  }
  return { floors };
}

const rectOf = (root, sel) => {
  const el = root.querySelector(sel);
  return el ? el.getBoundingClientRect() : null;
};
const seatRect = (root, seat) => rectOf(root, `.seatbox[data-seat="${seat}"]`);

/* A copy of `node` over the page at `rect`, removed when its animation ends. */
function ghost(node, rect) {
  const g = node.cloneNode(true);
  g.classList.add("ghost");
  g.removeAttribute("id");
  g.setAttribute("aria-hidden", "true");
  Object.assign(g.style, {
    left: `${rect.left}px`,
    top: `${rect.top}px`,
    width: `${rect.width}px`,
    height: `${rect.height}px`,
  });
  document.body.append(g);
  return g;
}

const shift = (from, to) =>
  "translate(" +
  (from.left + from.width / 2 - to.left - to.width / 2) +
  "px," +
  (from.top + from.height / 2 - to.top - to.height / 2) +
  "px)";

/* `el` (in its new place) arrives from `from`. */
function arrive(el, from, delay, ms) {
  if (!el || !from) return;
  const to = el.getBoundingClientRect();
  el.animate(
    [
      { transform: `${shift(from, to)} scale(.7)`, opacity: 0.6 },
      { transform: "none", opacity: 1 },
    ],
    { duration: ms, delay, easing: "cubic-bezier(.2,.7,.3,1)", fill: "backwards" },
  );
}

/* A gone thing (`node` once at `rect`) leaves for `to` (the discard pile), with a gesture. */
function leave(node, rect, to, delay, ms, how = "slide") {
  if (!node || !rect) return;
  const g = ghost(node, rect);
  const end = to ? shift(to, rect) : "translate(0, 60px)";
  const frames = {
    slide: [
      { transform: "none", opacity: 1 },
      { transform: `${end} scale(.5)`, opacity: 0 },
    ],
    shake: [
      { transform: "none" },
      { transform: "translateX(-4px)" },
      { transform: "translateX(4px)" },
      { transform: "translateX(-4px)" },
      { transform: "translateY(4px)", opacity: 1 },
      { transform: `${end} rotate(12deg) scale(.5)`, opacity: 0 },
    ],
    swing: [
      { transform: "none" },
      { transform: "rotate(-14deg)", offset: 0.35 },
      { transform: `${end} rotate(40deg) scale(.5)`, opacity: 0 },
    ],
  }[how];
  g.animate(frames, {
    duration: how === "slide" ? ms : ms * 1.4,
    delay,
    easing: "ease-in",
    fill: "both",
  }).onfinish = () => g.remove();
}

/* Something small (a pictogram, a card) travels from one place to another. */
function travel(node, from, to, delay, ms) {
  if (!from || !to) return;
  const size = 40;
  const start = {
    left: from.left + from.width / 2 - size / 2,
    top: from.top + from.height / 2 - size / 2,
    width: size,
    height: size,
  };
  const g = ghost(node, start);
  g.animate(
    [
      { transform: "none", opacity: 1 },
      { transform: shift(to, start), opacity: 0.9 },
    ],
    { duration: ms, delay, easing: "ease-in-out", fill: "both" },
  ).onfinish = () => g.remove();
}

function flash(el, delay) {
  if (el)
    el.animate([{ boxShadow: "0 0 0 4px #ff9f1c" }, { boxShadow: "0 0 0 0 transparent" }], {
      duration: 600,
      delay,
    });
}

/* Play the gestures of `events` (the new ones) on the redrawn table. */
export function animate(root, before, events, st) {
  const still = stillMotion();
  if ((!before && !still) || !events.length) return;
  const ms = BASE_MS * speed();
  const me = st.seat;
  const origin = (seat) => (seat === me ? rectOf(root, "#hand") : seatRect(root, seat));
  const discard = rectOf(root, "#discard-pile");
  let step = 0;
  for (let k = 0; k < events.length; k++) {
    const e = events[k];
    if (e.type === "end" && e.winner !== null && e.winner !== undefined) {
      // a win: its roof, a cheer
      const roof = root.querySelector(`.seatbox[data-seat="${e.winner}"] .roof`);
      setTimeout(() => play("cheer"), step * ms * 0.9);
      if (roof)
        roof.animate(
          [
            { transform: "translateY(-30px)", opacity: 0 },
            { transform: "none", opacity: 1 },
          ],
          { duration: still ? 1 : ms * 2, delay: step * ms * 0.9, fill: "backwards" },
        );
    }
    if (e.type !== "action" && e.type !== "stolen") continue;
    const delay = step * ms * 0.9;
    const a = e.action || {};
    if (e.type === "action" && a.type === "end-turn") continue;
    step += 1;
    const kind = e.type === "stolen" ? "thief" : a.type;
    setTimeout(() => play(SOUND_OF[kind] || "card"), delay);
    const target = a.target ?? null;
    const box = (seat) => root.querySelector(`.seatbox[data-seat="${seat}"]`);
    const top = (seat) => (box(seat) ? box(seat).querySelector(".floor.top") : null);
    const old = (seat) => {
      const n = [...before.floors.keys()].filter((x) => x.startsWith(`${seat}:`)).length;
      return before.floors.get(`${seat}:${n - 1}`);
    };
    if (still) {
      flash(
        kind === "build" || kind === "steal" || kind === "dog"
          ? top(e.seat) || box(e.seat)
          : box(target ?? e.seat),
        delay,
      );
      continue;
    }
    if (kind === "build" || kind === "steal") {
      if (kind === "steal") {
        const gone = old(target);
        if (gone) leave(gone.node, gone.rect, discard, delay, ms);
      }
      arrive(top(e.seat), origin(e.seat), delay, ms);
    } else if (kind === "jackhammer" || kind === "wrecking-ball") {
      const gone = old(target);
      if (gone)
        leave(gone.node, gone.rect, discard, delay, ms, kind === "jackhammer" ? "shake" : "swing");
      if (gone) travel(pictogram(kind, "pict flying"), origin(e.seat), gone.rect, delay, ms * 0.6);
    } else if (kind === "dog") {
      const seat = target ?? e.seat;
      const guard = box(seat)?.querySelector(`.floor[data-floor="${a.floor}"] .guard`);
      arrive(guard, origin(e.seat), delay, ms);
    } else if (kind === "bone") {
      const was = before.floors.get(`${target}:${a.floor}`);
      travel(pictogram("bone", "pict flying"), origin(e.seat), was?.rect, delay, ms);
      const dog = was?.node.querySelector(".guard");
      if (dog) leave(dog, was.rect, discard, delay + ms, ms);
    } else if (kind === "thief") {
      const card = e.card ? miniCard(e.card, "?") : backCard();
      travel(card, seatRect(root, e.victim), origin(e.seat), delay, ms);
    } else if (kind === "milkshake" || kind === "donut-truck") {
      travel(
        pictogram(kind, "pict flying"),
        origin(e.seat),
        seatRect(root, target ?? e.seat),
        delay,
        ms,
      );
    }
  }
}
