/* The review under the replay: each seat's chance to win over the game as an SVG line (one
   per seat, in the seats' colours), the turning points marked, and the same figures for
   screen readers in a table. A marked point, a turning point's button and a mistake's button
   jump the replay to the position after that action (`onJump(step)`: the frame after action
   i is step i + 1). Drawn with classes only: the page's policy allows no inline style. */
import { h, s } from "./dom.js";
import { t } from "./i18n.js";
import { actionLine, buttonText, seatName } from "./words.js";

const W = 600, H = 160, PAD = 6;
const pct = (p) => Math.round(100 * p) + "%";

/* The graph for `review` (GET /api/games/{id}/review), seats named as in `state` ({seat,
   lobby}). Answers {el, setStep(step)}: the step the replay shows is marked on the graph. */
export function reviewGraph(review, state, onJump) {
  const chances = review.chances;
  const last = Math.max(1, chances.length - 1);
  const x = (step) => PAD + ((W - 2 * PAD) * step) / last;
  const y = (p) => PAD + (H - 2 * PAD) * (1 - p);
  const name = (seat) => seatName(state.lobby, seat, state.seat);
  const seats = [...Array(review.players).keys()];
  const lines = seats.map((seat) => s("polyline", {
    class: "review-line seat-c" + seat,
    points: chances.map((c, step) => x(step).toFixed(1) + "," + y(c[seat]).toFixed(1)).join(" "),
  }));
  const turnText = (tp) => t("review_turning_point", { turn: tp.turn, text: actionLine(tp.action, state, tp.seat).text, swing: pct(tp.swing) });
  const marks = review.turning_points.map((tp) => {
    const step = tp.index + 1;
    const seat = seats.reduce((a, b) => (Math.abs(chances[step][b] - chances[step - 1][b]) > Math.abs(chances[step][a] - chances[step - 1][a]) ? b : a), 0);
    const mark = s("circle", { class: "review-turn", cx: x(step).toFixed(1), cy: y(chances[step][seat]).toFixed(1), r: 7, "data-step": step }, s("title", {}, turnText(tp)));
    mark.addEventListener("click", () => onJump(step));
    return mark;
  });
  const cursor = s("line", { class: "review-cursor", x1: x(0), x2: x(0), y1: PAD, y2: H - PAD });
  const half = s("line", { class: "review-half", x1: PAD, x2: W - PAD, y1: y(0.5), y2: y(0.5) });
  const final = chances[chances.length - 1];
  const summary = t("review_desc", {
    n: chances.length - 1,
    seats: seats.map((seat) => name(seat) + " " + pct(chances[0][seat]) + " → " + pct(final[seat])).join(", "),
  });
  const svg = s("svg", { id: "review-graph", viewBox: "0 0 " + W + " " + H, role: "img", "aria-labelledby": "review-graph-title review-graph-desc", },
    s("title", { id: "review-graph-title" }, t("review_title")),
    s("desc", { id: "review-graph-desc" }, summary),
    half, ...lines, cursor, ...marks);
  const legend = h("ul", { class: "review-legend" }, seats.map((seat) =>
    h("li", {}, h("span", { class: "swatch seat-c" + seat, "aria-hidden": "true" }), name(seat))));
  const jump = (step, label, id) => h("button", { class: "tap review-jump", id, "data-step": step, onclick: () => onJump(step) }, label);
  const turning = h("div", {}, h("h3", {}, t("review_turning_points")),
    h("ol", { class: "review-list", id: "review-turns" }, review.turning_points.map((tp, i) => h("li", {}, jump(tp.index + 1, turnText(tp), "review-turn-" + i)))));
  const mistakes = review.seat === null ? null : h("div", {},
    h("h3", {}, t("review_mistakes_of", { who: name(review.seat) })),
    review.mistakes.length === 0 ? h("p", { id: "review-no-mistakes" }, t("review_no_mistakes")) :
      h("ol", { class: "review-list", id: "review-mistakes" }, review.mistakes.map((m, i) => h("li", {},
        jump(m.index + 1, t(m.kind === "a blunder" ? "review_blunder" : "review_mistake", {
          turn: m.turn, played: buttonText(m.played, state), best: buttonText(m.best, state),
          from: pct(m.best_chance), to: m.played_chance === null ? "?" : pct(m.played_chance),
        }), "review-mistake-" + i)))));
  const figures = h("details", { class: "review-figures" }, h("summary", {}, t("review_figures")),
    h("table", { id: "review-table" }, h("caption", {}, t("review_title")),
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("step")), seats.map((seat) => h("th", { scope: "col" }, name(seat))))),
      h("tbody", {}, chances.map((c, step) => h("tr", {}, h("th", { scope: "row" }, String(step)), c.map((p) => h("td", {}, pct(p))))))));
  const el = h("section", { class: "panel review", id: "review", "aria-labelledby": "review-heading" },
    h("h2", { id: "review-heading" }, t("review_title")), svg, legend, turning, mistakes, figures);
  const setStep = (step) => {
    const at = x(Math.max(0, Math.min(last, step))).toFixed(1);
    cursor.setAttribute("x1", at);
    cursor.setAttribute("x2", at);
  };
  return { el, setStep };
}
