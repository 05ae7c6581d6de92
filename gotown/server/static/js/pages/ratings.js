/* Ratings as the page shows them: one number a player, openskill's cautious estimate (mu - 3
   sigma, the server's `ordinal`, which orders the leaderboard), the bots on the same scale; the
   level picker's rating of each bot, the end screen's changes, and a player's rating over
   their rated games, drawn as the review's graph is (graph.js: same axes, same classes). */

import { api } from "../api.js";
import { h, s } from "../dom.js";
import { lang, t } from "../i18n.js";
import { levelName, seatName } from "../words.js";

export const ordinalOf = (mu, sigma) => mu - 3 * sigma;

/* A rating (or, `signed`, a change of one) with one decimal, in the reader's language. */
export function ratingText(value, signed = false) {
  let v = Math.round(value * 10) / 10;
  if (Object.is(v, -0)) v = 0;
  try {
    return new Intl.NumberFormat(lang(), {
      minimumFractionDigits: 1,
      maximumFractionDigits: 1,
      signDisplay: signed ? "exceptZero" : "auto",
    }).format(v);
  } catch {
    return (signed && v > 0 ? "+" : "") + v.toFixed(1);
  }
}

/* A bot level's fixed rating (/api/meta's bot_ratings), or null (a trained policy has none). */
export function botRating(meta, level) {
  const r = meta.botRatings?.[level];
  return Array.isArray(r) ? ordinalOf(r[0], r[1]) : null;
}

/* The level picker's words for a level: its name, and its rating where it has one. */
export function levelLabel(meta, level) {
  const r = botRating(meta, level);
  return r === null
    ? levelName(level)
    : t("level_rated", { level: levelName(level), rating: ratingText(r) });
}

/* The end screen of a circle's table: ask how the game moved each seat's ratings. They are
   stored just after the end, so a game with a winner that is not rated yet is asked again, a
   few times, further apart each time. Resolves to the answer (null: none, or the table
   closed). */
export async function askRatings(table) {
  for (let delay = 250; delay <= 8000 && !table.closed; delay *= 2) {
    let got = null;
    try {
      got = await api("GET", `/api/games/${table.gameId}/ratings`, undefined, table.token);
    } catch {
      /* asked again */
    }
    if (table.closed) return null;
    const winner = table.state?.view ? table.state.view.winner : null;
    if (got && (got.rated || winner === null || winner === undefined)) return got;
    await new Promise((done) => setTimeout(done, delay));
  }
  return null;
}

/* Each rated seat's change, in the circle and over all (the viewer's row first); that the game
   did not count (it ended without a winner); or null before the server said (`got`, its
   answer to askRatings). */
export function ratingChanges(st, got) {
  if (!got) return null;
  if (!got.rated || !got.changes.length)
    return h("p", { class: "help rating-changes", id: "rating-unrated" }, t("rating_unrated"));
  const seats = [...new Set(got.changes.map((c) => c.seat))].sort((a, b) =>
    a === st.seat ? -1 : b === st.seat ? 1 : a - b,
  );
  const cell = (seat, circle) => {
    const c = got.changes.find((x) => x.seat === seat && x.circle === circle);
    if (!c) return h("td", {}, "–");
    const delta = c.after.ordinal - c.before.ordinal;
    return h(
      "td",
      { "data-delta": String(delta), "data-after": String(c.after.ordinal) },
      `${ratingText(c.before.ordinal)} → ${ratingText(c.after.ordinal)} `,
      h(
        "strong",
        { class: delta > 0 ? "rating-up" : delta < 0 ? "rating-down" : null },
        `(${ratingText(delta, true)})`,
      ),
    );
  };
  const circle = st.lobby.circle_id;
  return h(
    "div",
    { class: "rating-changes", id: "rating-changes" },
    h(
      "table",
      {},
      h("caption", {}, t("rating_changes")),
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          h("th", { scope: "col" }, t("rating_player")),
          h("th", { scope: "col" }, t("rating_in_circle")),
          h("th", { scope: "col" }, t("rating_overall")),
        ),
      ),
      h(
        "tbody",
        {},
        seats.map((seat) =>
          h(
            "tr",
            {
              "data-seat": seat,
              class: seat === st.seat ? "you" : null,
              id: seat === st.seat ? "rating-mine" : null,
            },
            h(
              "th",
              { scope: "row" },
              seatName(st.lobby, seat, null) + (seat === st.seat ? ` (${t("you")})` : ""),
            ),
            cell(seat, true),
            cell(seat, false),
          ),
        ),
      ),
    ),
    circle
      ? h(
          "a",
          { href: `/circle/${encodeURIComponent(circle)}`, class: "tap", id: "rating-circle-link" },
          t("circle_leaderboard"),
        )
      : null,
  );
}

/* Whole steps of 1, 2 or 5 times a power of ten, about `count` of them over [lo, hi]. */
function ticksOf(lo, hi, count = 4) {
  const raw = (hi - lo) / count;
  const power = 10 ** Math.floor(Math.log10(raw || 1));
  const step = [1, 2, 5, 10].map((m) => m * power).find((x) => x >= raw) || raw;
  const ticks = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + 1e-9; v += step)
    ticks.push(Math.round(v * 1e6) / 1e6);
  return ticks;
}

const W = 480,
  H = 230,
  LEFT = 50,
  RIGHT = 78,
  TOP = 10,
  BOTTOM = 46;

/* A player's rating after each rated game (`history`: [{game_id, mu, sigma}]) as a line, the
   bot levels as dashed lines across for scale, the same figures in a table for screen readers. */
export function ratingGraph(history, meta, who) {
  const values = history.map((p) => ordinalOf(p.mu, p.sigma));
  const bots = Object.keys(meta.botRatings || {})
    .map((level) => [level, botRating(meta, level)])
    .sort((a, b) => a[1] - b[1]);
  const all = [...values, ...bots.map((b) => b[1])];
  const lo = Math.floor(Math.min(...all) - 1),
    hi = Math.ceil(Math.max(...all) + 1);
  const n = values.length;
  const x = (i) => (n === 1 ? (LEFT + W - RIGHT) / 2 : LEFT + ((W - LEFT - RIGHT) * i) / (n - 1));
  const y = (v) => TOP + (H - TOP - BOTTOM) * (1 - (v - lo) / (hi - lo));
  const grid = ticksOf(lo, hi).map((v) => [
    s("line", { class: "review-grid", x1: LEFT, x2: W - RIGHT, y1: y(v), y2: y(v) }),
    s(
      "text",
      { class: "review-axis", x: LEFT - 6, y: y(v) + 5, "text-anchor": "end" },
      ratingText(v).replace(/[.,]0$/, ""),
    ),
  ]);
  // (Labels of bots close together would overlap: each at least a line below the one above.)
  let labelY = -Infinity;
  const botLines = [...bots].reverse().map(([level, r]) => {
    labelY = Math.max(y(r) + 5, labelY + 15);
    return [
      s("line", { class: "rating-bot", x1: LEFT, x2: W - RIGHT, y1: y(r), y2: y(r) }),
      s("text", { class: "review-axis", x: W - RIGHT + 4, y: labelY }, levelName(level)),
    ];
  });
  const xTicks = ticksOf(1, Math.max(n, 2), 5)
    .filter((g) => Number.isInteger(g) && g <= n)
    .map((g) =>
      s(
        "text",
        { class: "review-axis", x: x(g - 1), y: H - BOTTOM + 19, "text-anchor": "middle" },
        String(g),
      ),
    );
  const pointText = (v, i) => t("rating_after_game", { n: i + 1, rating: ratingText(v) });
  const line = s("polyline", {
    class: "review-line seat-c0",
    id: "rating-line",
    points: values.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(" "),
  });
  const dots = values.map((v, i) =>
    s(
      "circle",
      {
        class: "rating-point",
        cx: x(i).toFixed(1),
        cy: y(v).toFixed(1),
        r: 4,
        "data-game": history[i].game_id,
      },
      s("title", {}, pointText(v, i)),
    ),
  );
  const middle = (TOP + H - BOTTOM) / 2;
  const desc = t("rating_graph_desc", {
    who,
    n,
    from: ratingText(values[0]),
    to: ratingText(values[n - 1]),
  });
  const svg = s(
    "svg",
    {
      id: "rating-graph",
      viewBox: `0 0 ${W} ${H}`,
      role: "img",
      "aria-labelledby": "rating-graph-title rating-graph-desc",
    },
    s("title", { id: "rating-graph-title" }, t("rating_history")),
    s("desc", { id: "rating-graph-desc" }, desc),
    ...grid.flat(),
    ...botLines.flat(),
    ...xTicks,
    s(
      "text",
      {
        class: "review-axis review-axis-title",
        x: 12,
        y: middle,
        "text-anchor": "middle",
        transform: `rotate(-90 12 ${middle})`,
      },
      t("rating_axis"),
    ),
    s(
      "text",
      {
        class: "review-axis review-axis-title",
        x: (LEFT + W - RIGHT) / 2,
        y: H - 6,
        "text-anchor": "middle",
      },
      t("rating_axis_games"),
    ),
    line,
    ...dots,
  );
  const figures = h(
    "details",
    { class: "review-figures" },
    h("summary", {}, t("review_figures")),
    h(
      "table",
      { id: "rating-table" },
      h("caption", {}, t("rating_history")),
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          h("th", { scope: "col" }, t("rating_axis_games")),
          h("th", { scope: "col" }, t("rating_axis")),
        ),
      ),
      h(
        "tbody",
        {},
        values.map((v, i) =>
          h("tr", {}, h("th", { scope: "row" }, String(i + 1)), h("td", {}, ratingText(v))),
        ),
      ),
    ),
  );
  return h(
    "section",
    { class: "panel review", id: "rating-history", "aria-labelledby": "rating-history-title" },
    h("h2", { id: "rating-history-title" }, t("rating_history")),
    h("p", { class: "review-note" }, t("rating_explained")),
    svg,
    figures,
  );
}
