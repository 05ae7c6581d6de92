/* A seat at the table: its name, its hand's size, and its tower drawn as a building — floors
   stacked from the ground up, each its two cards side by side, a guard dog sitting on its
   floor, a roof at the winning height — with the floor count toward the goal (the leader
   marked), a milkshake beside a player it makes skip and the donut truck parked beside the
   player who plays twice. */

import { pictogram } from "./art.js";
import { backCard, miniCard } from "./cards.js";
import { clockEl } from "./clock.js";
import { h, plain, s } from "./dom.js";
import { floorValues, isJoker } from "./facts.js";
import { t } from "./i18n.js";
import { handoverLeft } from "./table-model.js";
import { levelName, seatName } from "./words.js";

/* The seats whose towers are highest (none while every tower is empty). */
export function leaders(towers) {
  const top = Math.max(...towers.map((x) => x.length));
  return top > 0 ? towers.map((x, i) => (x.length === top ? i : -1)).filter((i) => i >= 0) : [];
}

function floorEl(floor, i, top, fresh) {
  const { cards, dogs, values } = floorValues(floor);
  // Read as one sentence ("Floor 2: 1 + Joker worth 8, Guard dog"), not card by card.
  const said =
    t("floor_n", { n: i + 1 }) +
    ": " +
    cards.map((c, k) => (isJoker(c) ? t("joker_value", { n: values[k] }) : c)).join(" + ") +
    (dogs ? `, ${plain(t("card_dog"))}${dogs > 1 ? ` ×${dogs}` : ""}` : "");
  return h(
    "div",
    {
      class: `floor${top ? " top" : ""}${fresh ? " new" : ""}`,
      "data-floor": i,
      role: "listitem",
    },
    h("span", { class: "sr-only" }, said),
    h("span", { class: "storey", "aria-hidden": "true" }, i + 1),
    ...cards.map((c, k) => {
      const m = miniCard(c, values[k]);
      m.setAttribute("aria-hidden", "true");
      return m;
    }),
    dogs
      ? h(
          "span",
          { class: "guard", title: plain(t("card_dog")), "aria-hidden": "true" },
          pictogram("dog"),
          dogs > 1 ? `×${dogs}` : null,
        )
      : null,
  );
}

export function buildingEl(tower, prevFloors, goal) {
  const el = h("div", {
    class: "tower",
    role: tower.length ? "list" : null,
    "aria-label": t("tower"),
  });
  tower.forEach((floor, i) => {
    el.append(floorEl(floor, i, i === tower.length - 1, i >= prevFloors));
  });
  if (!tower.length) el.append(h("div", { class: "help ground-only" }, t("no_floor")));
  const roof =
    tower.length >= goal
      ? s(
          "svg",
          {
            viewBox: "0 0 100 24",
            class: "roof",
            "aria-hidden": "true",
            preserveAspectRatio: "none",
          },
          s("path", {
            d: "M2 23 L50 2 L98 23 Z",
            fill: "#c0392b",
            stroke: "#2b2118",
            "stroke-width": 2,
          }),
        )
      : null;
  return h(
    "div",
    { class: "building" },
    roof,
    el,
    h("div", { class: "ground", "aria-hidden": "true" }),
  );
}

/* The floors toward the goal, as pips: filled for each floor built. */
function goalEl(count, goal) {
  return h(
    "span",
    { class: "goal", role: "img", "aria-label": `${t("floors")}: ${count}/${goal}` },
    ...Array.from({ length: goal }, (_, i) => h("span", { class: `pip${i < count ? " on" : ""}` })),
    h("span", { class: "count", "aria-hidden": "true" }, `${count}/${goal}`),
  );
}

/* Once the game is over every hand is shown, as at a real table: when the view says them
   (`hands`, every seat's, sent by the server at the end), under each other seat's tower. */
function shownHand(v, seat, me) {
  const cards = v.over && Array.isArray(v.hands) && seat !== me ? v.hands[seat] : null;
  if (!cards) return null;
  return h(
    "div",
    { class: "shown-hand row", role: "list", "aria-label": t("hand_size") },
    ...cards.map((c) => {
      const m = miniCard(c, "?");
      m.setAttribute("role", "listitem");
      m.setAttribute("aria-label", m.title);
      return m;
    }),
  );
}

/* What an away seat's badge says: the countdown to when another seat may give it to a bot. */
export function awayText(model, seat) {
  const left = handoverLeft(model, seat);
  const me = model.state?.seat;
  return left > 0 && me !== null && me !== seat ? t("away_bot_in", { n: left }) : t("away");
}

/* One seat's box at the table `model` (table-model.js). */
export function seatBox(seat, model) {
  const st = model.state,
    v = st.view,
    lobby = st.lobby,
    me = st.seat;
  const past = model.mode === "replay";
  const info = lobby.seats[seat];
  const away = info.kind === "human" && !info.connected;
  const lead = leaders(v.towers).includes(seat);
  const name = seatName(lobby, seat, null);
  const playing = seat === v.active && !v.over;
  const beside = h(
    "div",
    { class: "beside" },
    v.milkshakes[seat]
      ? h(
          "span",
          { class: "badge milk", title: t("pending_milkshakes") },
          pictogram("milkshake", "pict small"),
          h("span", {}, `${t("pending_milkshakes")}: ${v.milkshakes[seat]}`),
        )
      : null,
    v.donut && playing
      ? h(
          "span",
          { class: "badge truck", id: "donut", title: t("donut_on_table") },
          pictogram("donut-truck", "pict small"),
          h("span", { class: "sr-only" }, t("donut_on_table")),
        )
      : null,
  );
  // (On a phone the words go, for screen readers only: the card's back says it.)
  const hand = h(
    "span",
    { class: "hand-size" },
    seat === me ? null : backCard({ "aria-hidden": "true" }),
    h("span", { class: "hand-size-words" }, `${t("hand_size")}: `),
    String(v.hand_sizes[seat]),
  );
  return h(
    "div",
    {
      class:
        "seatbox" +
        (playing ? " active" : "") +
        (seat === me ? " me" : "") +
        (lead ? " leader" : ""),
      "data-seat": seat,
    },
    h(
      "div",
      { class: "seathead" },
      h(
        "span",
        { class: "who" },
        h("span", { class: "seatname", title: name }, name),
        seat === me ? h("span", {}, `(${t("you")})`) : null,
      ),
      playing ? h("span", { class: "badge" }, t("active")) : null,
    ),
    h(
      "div",
      { class: "seatinfo" },
      goalEl(v.towers[seat].length, v.options.win_floors),
      hand,
      info.kind === "bot" && info.name && !v.over
        ? h(
            "span",
            { class: "badge standin", "data-standin-seat": seat },
            t("bot_stands_in", { level: levelName(info.level) }),
          )
        : null,
      // A turn-based table: the time left to this seat's turn, a bot playing a turn whose time
      // ran out (the strip says so to its own seat), the turns it missed in a row.
      playing && lobby.deadline && !past
        ? clockEl(lobby.deadline, { short: true, pace: lobby.pace, cls: "seat-clock" })
        : null,
      info.standin && !v.over && seat !== me
        ? h(
            "span",
            { class: "badge standin", "data-standin-for": seat },
            t("standin_for", { name }),
          )
        : null,
      info.missed && !v.over
        ? h(
            "span",
            { class: "missed", "data-missed-seat": seat },
            t("missed_turns", { n: info.missed }),
          )
        : null,
      away
        ? h(
            "span",
            { class: "away", "data-away-seat": v.over ? null : seat },
            v.over ? t("away") : awayText(model, seat),
          )
        : null,
    ),
    beside,
    buildingEl(
      v.towers[seat],
      model.prevFloors[seat] ?? v.towers[seat].length,
      v.options.win_floors,
    ),
    shownHand(v, seat, me),
    me !== null && seat !== me && away && !v.over && model.on.handToBot
      ? h(
          "button",
          {
            class: "fill-bot",
            "data-bot-seat": seat,
            disabled: handoverLeft(model, seat) > 0,
            onclick: () => model.on.handToBot(seat),
          },
          t("give_to_bot"),
        )
      : null,
  );
}
