/* The review under the replay: each seat's chance to win over the game as an SVG line (one
   per seat, in the seats' colours, every hand shown as after the game, which the graph says),
   its axes labelled (chance to win, turn), the turning points marked on the line of the seat
   they moved and named by what swung the game (a decision, the cards drawn, a theft), the same
   figures for screen readers in a table. A marked point, a turning point's button and a
   mistake's button jump the replay to the position after that action (`onJump(step)`: the
   frame after action i is step i + 1). Drawn with classes only: the page's policy allows no
   inline style. */

import { cardLabel } from "./cards.js";
import { h, plain, s } from "./dom.js";
import { t } from "./i18n.js";
import { actionLine, buttonText, seatName } from "./words.js";

const W = 480,
  H = 230,
  LEFT = 60,
  RIGHT = 10,
  TOP = 10,
  BOTTOM = 46;
const pct = (p) => `${Math.round(100 * p)}%`;

/* A loss of a chance to win in words a child understands (as gotown.bots.review.loss_words). */
export function lossText(loss) {
  if (loss < 0.45)
    return t("review_one_in", { n: Math.max(2, Math.round(1 / Math.max(loss, 0.01))) });
  return t("review_in_ten", { count: Math.min(10, Math.round(10 * loss)) });
}

/* Steps where a turn begins, [step, turn], each at least `gap` from the one before on the
   graph (`x(step)` its place): turns take more steps or fewer. */
function turnTicks(turns, x, gap) {
  const ticks = [];
  turns.forEach((turn, step) => {
    const starts = step === 0 || turn !== turns[step - 1];
    if (starts && (ticks.length === 0 || x(step) - x(ticks[ticks.length - 1][0]) >= gap))
      ticks.push([step, turn]);
  });
  return ticks;
}

/* The graph for `review` (GET /api/games/{id}/review), seats named as in `state` ({seat,
   lobby}), `turns[step]` the turn at each step of the replay. Answers {el, setStep(step)}:
   the step the replay shows is marked on the graph. */
export function reviewGraph(review, state, onJump, turns) {
  const chances = review.chances;
  const last = Math.max(1, chances.length - 1);
  const x = (step) => LEFT + ((W - LEFT - RIGHT) * step) / last;
  const y = (p) => TOP + (H - TOP - BOTTOM) * (1 - p);
  const name = (seat) => seatName(state.lobby, seat, state.seat);
  const seats = [...Array(review.players).keys()];
  const lines = seats.map((seat) =>
    s("polyline", {
      class: `review-line seat-c${seat}`,
      points: chances.map((c, step) => `${x(step).toFixed(1)},${y(c[seat]).toFixed(1)}`).join(" "),
    }),
  );
  const cards = (codes) => codes.map((c) => plain(cardLabel(c))).join(", ");
  const pointText = (tp) => {
    const p = { turn: tp.turn, who: name(tp.who), from: pct(tp.before), to: pct(tp.after) };
    if (tp.cause === "draw")
      return t("review_tp_draw", {
        ...p,
        drew: tp.cards.map((c) => `${name(c.seat)}: ${cards(c.cards)}`).join("; "),
      });
    const text = actionLine(tp.action, state, tp.seat).text;
    if (tp.cause === "theft")
      return t("review_tp_theft", { ...p, text, cards: cards(tp.cards.flatMap((c) => c.cards)) });
    return t("review_tp_decision", { ...p, text });
  };
  const marks = review.turning_points.map((tp) => {
    const step = tp.index + 1;
    const mark = s(
      "circle",
      {
        class: "review-turn",
        cx: x(step).toFixed(1),
        cy: y(chances[step][tp.who]).toFixed(1),
        r: 7,
        "data-step": step,
      },
      s("title", {}, pointText(tp)),
    );
    mark.addEventListener("click", () => onJump(step));
    return mark;
  });
  // The axes: 0, 50 and 100% with a faint line at each quarter; the turns along the bottom.
  const grid = [0, 0.25, 0.5, 0.75, 1].map((p) =>
    s("line", {
      class: p === 0.5 ? "review-half" : "review-grid",
      x1: LEFT,
      x2: W - RIGHT,
      y1: y(p),
      y2: y(p),
    }),
  );
  const yLabels = [0, 0.5, 1].map((p) =>
    s("text", { class: "review-axis", x: LEFT - 6, y: y(p) + 5, "text-anchor": "end" }, pct(p)),
  );
  const ticks = turnTicks(turns || chances.map((_, step) => step), x, 36);
  const xLabels = ticks.map(([step, turn]) =>
    s(
      "text",
      { class: "review-axis", x: x(step), y: H - BOTTOM + 19, "text-anchor": "middle" },
      String(turn),
    ),
  );
  const xTicks = ticks.map(([step]) =>
    s("line", {
      class: "review-grid",
      x1: x(step),
      x2: x(step),
      y1: H - BOTTOM,
      y2: H - BOTTOM + 5,
    }),
  );
  const middle = (TOP + H - BOTTOM) / 2;
  const titles = [
    s(
      "text",
      {
        class: "review-axis review-axis-title",
        id: "review-axis-chance",
        x: 12,
        y: middle,
        "text-anchor": "middle",
        transform: `rotate(-90 12 ${middle})`,
      },
      t("review_axis_chance"),
    ),
    s(
      "text",
      {
        class: "review-axis review-axis-title",
        id: "review-axis-turn",
        x: (LEFT + W - RIGHT) / 2,
        y: H - 6,
        "text-anchor": "middle",
      },
      t("review_axis_turn"),
    ),
  ];
  const cursor = s("line", { class: "review-cursor", x1: x(0), x2: x(0), y1: TOP, y2: H - BOTTOM });
  const final = chances[chances.length - 1];
  const summary =
    t("review_desc", {
      n: chances.length - 1,
      seats: seats
        .map((seat) => `${name(seat)} ${pct(chances[0][seat])} → ${pct(final[seat])}`)
        .join(", "),
    }) +
    " " +
    t("review_basis");
  const svg = s(
    "svg",
    {
      id: "review-graph",
      viewBox: `0 0 ${W} ${H}`,
      role: "img",
      "aria-labelledby": "review-graph-title review-graph-desc",
    },
    s("title", { id: "review-graph-title" }, t("review_title")),
    s("desc", { id: "review-graph-desc" }, summary),
    ...grid,
    ...xTicks,
    ...yLabels,
    ...xLabels,
    ...titles,
    ...lines,
    cursor,
    ...marks,
  );
  const legend = h(
    "ul",
    { class: "review-legend" },
    seats.map((seat) =>
      h("li", {}, h("span", { class: `swatch seat-c${seat}`, "aria-hidden": "true" }), name(seat)),
    ),
  );
  const jump = (step, label, id) =>
    h(
      "button",
      { class: "tap review-jump", id, "data-step": step, onclick: () => onJump(step) },
      label,
    );
  const turning = h(
    "div",
    {},
    h("h3", {}, t("review_turning_points")),
    h(
      "ol",
      { class: "review-list", id: "review-turns" },
      review.turning_points.map((tp, i) =>
        h("li", {}, jump(tp.index + 1, pointText(tp), `review-turn-${i}`)),
      ),
    ),
  );
  const mistakes =
    review.seat === null
      ? null
      : h(
          "div",
          {},
          h("h3", {}, t("review_mistakes_of", { who: name(review.seat) })),
          h("p", { class: "review-note", id: "review-judged" }, t("review_judged")),
          review.mistakes.length === 0
            ? h("p", { id: "review-no-mistakes" }, t("review_no_mistakes"))
            : h(
                "ol",
                { class: "review-list", id: "review-mistakes" },
                review.mistakes.map((m, i) =>
                  h(
                    "li",
                    {},
                    jump(
                      m.index + 1,
                      t(m.kind === "a blunder" ? "review_blunder_sized" : "review_mistake_sized", {
                        turn: m.turn,
                        played: buttonText(m.played, state),
                        best: buttonText(m.best, state),
                        size: lossText(m.loss),
                      }),
                      `review-mistake-${i}`,
                    ),
                  ),
                ),
              ),
        );
  const figures = h(
    "details",
    { class: "review-figures" },
    h("summary", {}, t("review_figures")),
    h(
      "table",
      { id: "review-table" },
      h("caption", {}, t("review_title")),
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          h("th", { scope: "col" }, t("step")),
          seats.map((seat) => h("th", { scope: "col" }, name(seat))),
        ),
      ),
      h(
        "tbody",
        {},
        chances.map((c, step) =>
          h(
            "tr",
            {},
            h("th", { scope: "row" }, String(step)),
            c.map((p) => h("td", {}, pct(p))),
          ),
        ),
      ),
    ),
  );
  const el = h(
    "section",
    { class: "panel review", id: "review", "aria-labelledby": "review-heading" },
    h("h2", { id: "review-heading" }, t("review_title")),
    h("p", { class: "review-note", id: "review-basis" }, t("review_basis")),
    svg,
    legend,
    turning,
    mistakes,
    figures,
  );
  const setStep = (step) => {
    const at = x(Math.max(0, Math.min(last, step))).toFixed(1);
    cursor.setAttribute("x1", at);
    cursor.setAttribute("x2", at);
  };
  return { el, setStep };
}
