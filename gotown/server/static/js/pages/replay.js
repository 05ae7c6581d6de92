/* A finished (or running) game step by step: every frame is drawn as the table would have
   shown it, from this seat's view or the public one. */

import { api, tokens } from "../api.js";
import { h } from "../dom.js";
import { reviewGraph } from "../graph.js";
import { errorText, t } from "../i18n.js";
import { tableModel } from "../table-model.js";
import { drawGame } from "./table-view.js";

export async function renderReplay(app, gameId, ctx) {
  const token = tokens.get(gameId);
  const at = { usePrivate: Boolean(token), step: 0, timer: null, data: null, lobby: null };
  const load = async () => {
    at.data = await api(
      "GET",
      `/api/games/${gameId}/replay`,
      undefined,
      at.usePrivate ? token : null,
    );
    at.lobby = await api("GET", `/api/games/${gameId}/lobby`);
    at.lobby.seats.forEach((x) => {
      x.connected = true;
    });
  };
  try {
    await load();
  } catch (err) {
    app.append(h("p", { class: "panel" }, errorText(err)));
    return;
  }
  const last = () => at.data.frames.length - 1;
  const slider = h("input", {
    type: "range",
    min: 0,
    max: last(),
    value: 0,
    id: "replay-slider",
    "aria-label": t("step"),
  });
  const stage = h("div", { id: "replay-stage" });
  const counter = h("span", { id: "replay-step" });
  // A past moment: nobody's turn, no gesture.
  const model = tableModel({ mode: "replay", meta: ctx.meta, gameId });
  function show() {
    const frame = at.data.frames[at.step];
    const events = at.data.frames.slice(0, at.step + 1).flatMap((f) => f.view.events);
    const view = { ...frame.view, events, over: at.step === last() && frame.view.over };
    model.state = {
      seat: at.data.seat,
      lobby: at.lobby,
      view,
      legal: [],
      version: frame.version,
      status: "over",
      game_id: gameId,
    };
    counter.textContent = t("step_of", { i: at.step, n: last() });
    slider.value = String(at.step);
    const holder = h("div", {});
    drawGame(holder, model);
    stage.replaceChildren(holder);
    const log = stage.querySelector("#log");
    if (log) log.scrollTop = log.scrollHeight;
    if (at.graph) at.graph.setStep(at.step);
  }
  const go = (n) => {
    at.step = Math.max(0, Math.min(last(), n));
    show();
  };
  slider.addEventListener("input", () => go(Number(slider.value)));
  const playing = (on) => {
    play.textContent = on ? "II" : "▶";
    play.setAttribute("aria-label", t(on ? "pause" : "play"));
  };
  const play = h(
    "button",
    {
      id: "replay-play",
      "aria-label": t("play"),
      onclick: () => {
        if (at.timer) {
          clearInterval(at.timer);
          at.timer = null;
          playing(false);
          return;
        }
        playing(true);
        at.timer = setInterval(() => {
          if (at.step >= last() || !stage.isConnected) {
            clearInterval(at.timer);
            at.timer = null;
            playing(false);
          } else go(at.step + 1);
        }, 700);
      },
    },
    "▶",
  );
  const viewSel = token
    ? h(
        "select",
        {
          id: "replay-view",
          "aria-label": t("replay_view"),
          onchange: async (ev) => {
            at.usePrivate = ev.target.value === "mine";
            await load();
            go(at.step);
          },
        },
        h("option", { value: "mine" }, t("my_view")),
        h("option", { value: "public" }, t("public_view")),
      )
    : null;
  app.append(
    h(
      "div",
      { class: "panel" },
      h("h1", {}, t("replay")),
      h(
        "div",
        { class: "replay-controls" },
        // ▶ plays; one step back or on is ‹ ›, the first and last steps « » (labelled for
        // screen readers, and as tooltips).
        h(
          "button",
          { id: "replay-first", "aria-label": t("first"), title: t("first"), onclick: () => go(0) },
          "«",
        ),
        h(
          "button",
          {
            id: "replay-prev",
            "aria-label": t("previous"),
            title: t("previous"),
            onclick: () => go(at.step - 1),
          },
          "‹",
        ),
        play,
        h(
          "button",
          {
            id: "replay-next",
            "aria-label": t("next"),
            title: t("next"),
            onclick: () => go(at.step + 1),
          },
          "›",
        ),
        h(
          "button",
          {
            id: "replay-last",
            "aria-label": t("last"),
            title: t("last"),
            onclick: () => go(last()),
          },
          "»",
        ),
        slider,
        counter,
        viewSel,
      ),
      h(
        "p",
        {},
        h("a", { href: `/g/${gameId}`, class: "tap", id: "replay-back" }, t("back_to_table")),
      ),
    ),
    stage,
  );
  // The review under the table (every hand shown: the game is over, R22), with the seat's own
  // mistakes when it has its token.
  const review = h(
    "div",
    { id: "review-holder", "aria-live": "polite" },
    h("p", { class: "panel" }, t("review_loading")),
  );
  app.append(review);
  show();
  const reviewed = at.data.seat === null ? "" : `?seat=${at.data.seat}`;
  try {
    const data = await api("GET", `/api/games/${gameId}/review${reviewed}`);
    if (!review.isConnected) return;
    const turns = at.data.frames.map((f) => f.view.turn);
    at.graph = reviewGraph(
      data,
      { seat: at.data.seat, lobby: at.lobby },
      (step) => go(step),
      turns,
    );
    review.replaceChildren(at.graph.el);
    at.graph.setStep(at.step);
  } catch (err) {
    review.replaceChildren(h("p", { class: "panel", id: "review-error" }, errorText(err)));
  }
}
