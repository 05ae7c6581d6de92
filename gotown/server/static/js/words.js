/* The game in sentences: seat names, the log's lines, the action buttons, how a game ended. */

import { cardLabel } from "./cards.js";
import { paceText } from "./clock.js";
import { h } from "./dom.js";
import { isJoker, jokerValue } from "./facts.js";
import { t } from "./i18n.js";

/* A bot level's name: a trained policy the server offers (`ppo:NAME`) by its name. */
export const levelName = (level) =>
  String(level).startsWith("ppo:") ? t("level_ppo", { name: level.slice(4) }) : t(`level_${level}`);

export function seatName(lobby, seat, viewer) {
  if (seat === null || seat === undefined) return "?";
  if (viewer !== null && viewer !== undefined && seat === viewer) return t("you");
  const info = lobby?.seats[seat];
  if (!info) return t("seat_n", { n: seat + 1 });
  if (info.name) return info.name;
  if (info.kind === "bot") return t("bot_name", { n: seat + 1, level: levelName(info.level) });
  return t("seat_n", { n: seat + 1 });
}

export function seatLabel(lobby, seat) {
  const info = lobby.seats[seat];
  const who =
    info.kind === "bot"
      ? t("bot_name", { n: seat + 1, level: levelName(info.level) })
      : info.name
        ? info.name
        : t("free_seat");
  return [
    h("span", {
      class: `dot${info.connected ? " on" : ""}`,
      title: info.connected ? t("online") : t("offline"),
    }),
    `${t("seat_n", { n: seat + 1 })}: ${who}`,
  ];
}

function buildLabels(cards) {
  const label = (c, other) =>
    isJoker(c) && !isJoker(other) ? `${cardLabel(c)} (${jokerValue(other)})` : cardLabel(c);
  return { a: label(cards[0], cards[1]), b: label(cards[1], cards[0]) };
}

/* The log's line for an action; `aimed`: it was aimed at the viewer by someone else. */
export function actionLine(a, state, actor) {
  const viewer = state.seat;
  const you = actor !== null && actor === viewer;
  const P = (seat) => seatName(state.lobby, seat, viewer);
  const target = a.target ?? null;
  const p = {
    actor: P(actor),
    target: P(target),
    card: a.card ? cardLabel(a.card) : "",
    n: (a.floor ?? 0) + 1,
  };
  if (a.type === "build") Object.assign(p, buildLabels(a.cards));
  if (a.type === "dog" && (target === null || target === actor))
    return { text: t(you ? "log_dog_own_you" : "log_dog_own", p) };
  if (!you && target !== null && target === viewer)
    return { text: t(`log_${a.type}_tyou`, p), aimed: true };
  return { text: t(`log_${a.type}${you ? "_you" : ""}`, p) };
}

export function buttonText(a, state) {
  const P = (seat) => seatName(state.lobby, seat, state.seat);
  const p = { target: P(a.target), card: a.card ? cardLabel(a.card) : "", n: (a.floor ?? 0) + 1 };
  if (a.type === "build") Object.assign(p, buildLabels(a.cards));
  if (a.type === "dog" && a.target !== undefined && a.target !== null && a.target !== state.seat)
    return t("btn_dog_other", p);
  return t(`btn_${a.type}`, p);
}

/* Where a move goes: for one of several moves of the same card that differ only by that (a
   thief for each opponent, a dog for each floor), whose button then says only this. */
export function whereText(a, state) {
  const floor = t("floor_n", { n: (a.floor ?? 0) + 1 });
  const own = a.target === undefined || a.target === null || a.target === state.seat;
  if (a.type === "dog" && own) return floor;
  const who = seatName(state.lobby, a.target, state.seat);
  return a.type === "dog" || a.type === "bone" ? `${who} · ${floor}` : who;
}

/* The log: one line per event (another seat's draws in a row are one line). A line may say
   `cls: "turn"` (a turn's header), `own` (the viewer's own draw), `aimed` (aimed at the
   viewer), `say` (a header a screen reader should hear), and `event` (its first event's
   index). */
export function eventLines(events, state) {
  const viewer = state.seat;
  const P = (seat) => seatName(state.lobby, seat, viewer);
  const lines = [];
  for (let i = 0; i < events.length; i++) {
    const e = events[i];
    const at = i;
    const push = (line) => lines.push({ ...line, event: at });
    if (e.type === "turn") {
      push({
        cls: "turn",
        say: e.extra,
        text: t(e.extra ? "log_turn_extra" : "log_turn", { turn: e.turn, actor: P(e.seat) }),
      });
    } else if (e.type === "draw") {
      if (e.card) {
        push({ own: true, text: t("log_draw_you", { card: cardLabel(e.card) }) });
        continue;
      }
      let count = 1;
      while (
        i + 1 < events.length &&
        events[i + 1].type === "draw" &&
        events[i + 1].seat === e.seat &&
        !events[i + 1].card
      ) {
        i++;
        count++;
      }
      push({
        draw: true,
        text:
          count === 1
            ? t("log_draw", { actor: P(e.seat) })
            : t("log_draw_n", { actor: P(e.seat), count }),
      });
    } else if (e.type === "milkshake-turn") {
      push({
        text: t(e.seat === viewer ? "log_milkshake_turn_you" : "log_milkshake_turn", {
          actor: P(e.seat),
        }),
      });
    } else if (e.type === "action") {
      const a = e.action;
      if (a.type === "thief" || a.type === "super-thief") {
        const stolen = [];
        while (i + 1 < events.length && events[i + 1].type === "stolen") stolen.push(events[++i]);
        if (!stolen.length) {
          push(actionLine(a, state, e.seat));
          continue;
        }
        for (const x of stolen) {
          const k = `_${a.type}`;
          if (x.seat === viewer && x.card)
            push({
              text: t(`log_stolen_by_you${k}`, { card: cardLabel(x.card), victim: P(x.victim) }),
            });
          else if (x.victim === viewer && x.card)
            push({
              text: t(`log_stolen_from_you${k}`, { actor: P(x.seat), card: cardLabel(x.card) }),
              aimed: true,
            });
          else push({ text: t(`log_stolen${k}`, { actor: P(x.seat), victim: P(x.victim) }) });
        }
      } else if (a.type === "end-turn") {
        push({
          text: t(e.seat === viewer ? "log_end-turn_you" : "log_end-turn", { actor: P(e.seat) }),
        });
      } else {
        push(actionLine(a, state, e.seat));
      }
    } else if (e.type === "stolen") {
      push({ text: t("log_stolen_thief", { actor: P(e.seat), victim: P(e.victim) }) });
    } else if (e.type === "reshuffle") {
      push({ text: t("log_reshuffle", { count: e.count ?? e.cards ?? "" }) });
    } else if (e.type === "end") {
      const nobody =
        e.reason === "stalemate"
          ? t("log_end_stalemate")
          : e.reason === "turn-limit"
            ? t("log_end_turn_limit")
            : t("log_end_nowinner");
      push({
        cls: "turn",
        say: true,
        text:
          e.winner === null
            ? nobody
            : t(e.winner === viewer ? "log_end_you" : "log_end", { actor: P(e.winner) }),
      });
    }
  }
  return lines;
}

/* How a game over ended, in words: its view's `reason` ("win", "stalemate" (R20b) or
   "turn-limit" (R23)). */
export function outcomeText(v, lobby, me) {
  if (v.winner !== null && v.winner !== undefined)
    return v.winner === me
      ? t("you_won")
      : t("winner_is", { actor: seatName(lobby, v.winner, me) });
  return v.reason === "stalemate"
    ? t("over_stalemate")
    : v.reason === "turn-limit"
      ? t("over_turn_limit")
      : t("over_nowinner");
}

function chosenLimit(options, meta) {
  const limit = options?.turn_limit;
  return limit && limit !== meta.turnLimitNone ? limit : null;
}

export function turnText(v, meta) {
  const limit = chosenLimit(v.options, meta);
  return limit ? t("turn_n_of", { n: v.turn, limit }) : t("turn_n", { n: v.turn });
}

/* The game's R23 options in words, folded: the table shows what was agreed. */
export function optionsSummary(options, lobby, meta) {
  const o = options || {};
  const rows = [];
  if (o.win_floors !== undefined) rows.push([t("opt_win_floors_n"), String(o.win_floors)]);
  for (const [key, values] of Object.entries(meta.options)) {
    if (o[key] === undefined) continue;
    const known = values.some((v) => String(v) === String(o[key]));
    rows.push([t(`opt_${key}`), known ? t(`opt_${key}_${String(o[key])}`) : String(o[key])]);
  }
  if (o.first_player !== undefined) {
    rows.push([
      t("opt_first_player"),
      o.first_player === "random" || o.first_player === null
        ? t("opt_first_player_random")
        : seatName(lobby, Number(o.first_player), null),
    ]);
  }
  if (lobby?.pace) rows.push([t("pace"), t("pace_per_turn", { time: paceText(lobby.pace) })]);
  if ("turn_limit" in o)
    rows.push([
      t("opt_turn_limit"),
      chosenLimit(o, meta) ? String(o.turn_limit) : t("opt_turn_limit_none"),
    ]);
  return h(
    "details",
    { class: "game-options", id: "game-options" },
    h("summary", {}, t("options")),
    h("dl", {}, ...rows.map(([k, v]) => [h("dt", {}, k), h("dd", {}, v)])),
  );
}
