/* The table page's screen: its model (table-model.js) drawn by table-view.js at each state,
   keeping what the reader had (the focus, the log's place, the panels open); the new events'
   moves played (motion.js); screen readers told what changed; a move aimed at this seat told
   at once; the clocks and the away seats' countdowns ticked every second. */

import { tickClocks } from "../clock.js";
import { fitTable } from "../fit.js";
import { chosenLang, lang, loadLang } from "../i18n.js";
import { animate, snapshot, stillMotion } from "../motion.js";
import { clearNotices, toast } from "../notices.js";
import { notifyPanel } from "../notify.js";
import { markTurn } from "../tab.js";
import { handoverLeft } from "../table-model.js";
import { listenTargets, pickHandlers } from "../targets.js";
import { awayText } from "../towers.js";
import { eventLines } from "../words.js";
import { drawLobby } from "./table-lobby.js";
import { drawGame } from "./table-view.js";

/* The "your turn" notices panel, one kept across the table's redraws (open, it stays open),
   made anew in a new language. */
export function keptNotifyPanel() {
  let kept = null;
  return () => {
    if (!kept || kept.lang !== lang()) kept = { lang: lang(), el: notifyPanel() };
    return kept.el;
  };
}

/* A notice belongs to its turn: a new turn (or the end, or the lobby's end) takes it away. */
const momentOf = (st) =>
  st?.view ? `${st.view.turn}:${st.view.active}:${st.view.over}` : st?.status;

export class TableScreen {
  /* `model`'s handlers are completed with those that pick cards and tell screen readers. */
  constructor(app, model) {
    this.app = app;
    this.model = model;
    this.heard = null; // the log's lines told so far (null: none drawn yet)
    this.heardStatus = null;
    model.on = {
      ...pickHandlers(app, model, () => this.draw()),
      announce: (lines, status) => this.announce(lines, status),
      ...model.on,
    };
    listenTargets(app, model);
    this.ticker = setInterval(() => this.tick(), 1000);
  }

  close() {
    clearInterval(this.ticker);
    markTurn(false);
  }

  /* Show `state`, the new state, and the moves of `fresh`, its new events (none: nothing to
     play or tell, as at the first state). */
  show(state, fresh) {
    const model = this.model,
      before = model.state;
    if (before?.view)
      before.view.towers.forEach((tw, s) => {
        model.prevFloors[s] = tw.length;
      });
    model.state = state;
    // Seconds until an away seat may be handed to a bot: counted down here (tick).
    const now = performance.now();
    model.handoverAt = {};
    for (const s of state.lobby.seats)
      if (Number.isFinite(s.handover_in)) model.handoverAt[s.seat] = now + s.handover_in * 1000;
    const changed = !before || state.version !== before.version;
    if (changed && before && momentOf(before) !== momentOf(state)) clearNotices();
    this.tellAimed(fresh, state);
    if (changed) {
      model.selected = [];
      model.hints = null;
    }
    if (!chosenLang() && state.lobby.language && state.lobby.language !== lang()) {
      loadLang(state.lobby.language).then(() => this.draw());
      return;
    }
    this.draw(fresh);
  }

  /* A move aimed at this seat by someone else (a card stolen, a floor knocked down, a
     milkshake...) among the `fresh` events is told at once, in a notice that leaves with its
     turn. */
  tellAimed(fresh, state) {
    if (state.seat === null || !fresh.length || state.view.over) return; // (the end says it all)
    const lines = eventLines(fresh, state).filter((l) => l.aimed);
    if (lines.length)
      toast(
        lines
          .slice(-3)
          .map((l) => l.text)
          .join(" "),
        true,
      );
  }

  /* Redraw the whole table (keeping the focus and the log's place), then play the gestures
     of the `fresh` events. */
  draw(fresh = []) {
    const model = this.model,
      st = model.state,
      app = this.app;
    if (!st) return;
    const focusId = document.activeElement?.id;
    const oldLog = app.querySelector("#log");
    // The log keeps the reader's place, unless they were at (or near) its end.
    model.logKeep = oldLog
      ? {
          top: oldLog.scrollTop,
          atEnd: oldLog.scrollHeight - oldLog.scrollTop - oldLog.clientHeight < 24,
        }
      : null;
    // (Read before the old table goes: only when a move will be shown travelling.)
    const before =
      fresh.some((e) => e.type === "action" || e.type === "stolen") && !stillMotion()
        ? snapshot(app)
        : null;
    app.replaceChildren();
    if (st.status === "lobby") drawLobby(app, model);
    else {
      drawGame(app, model);
      fitTable(app);
    }
    const v = st.view;
    const mine = st.seat !== null && st.lobby.seats[st.seat];
    markTurn(
      Boolean(
        v && !v.over && mine && v.active === st.seat && mine.kind === "human" && !mine.standin,
      ),
    );
    if (focusId) {
      const el =
        document.getElementById(focusId) ||
        (/^(card-|act-|end-turn|hint)/.test(focusId) &&
          (document.querySelector('#hand .card[aria-disabled="false"]') ||
            document.getElementById("end-turn")));
      if (el) el.focus();
    }
    if (v && fresh.length) animate(app, before, fresh, st);
  }

  /* Screen readers: the log's new lines (what the others did) and the status when it changes
     ("Your turn"), in the page's one lasting live region. */
  announce(lines, statusText) {
    const fresh =
      this.heard === null || this.heard > lines.length
        ? []
        : lines
            .slice(this.heard)
            .filter((l) => (l.cls !== "turn" || l.say) && !l.aimed)
            .map((l) => l.text);
    this.heard = lines.length;
    if (statusText !== this.heardStatus) {
      fresh.push(statusText);
      this.heardStatus = statusText;
    }
    const el = document.getElementById("announce");
    if (el && fresh.length) el.textContent = fresh.join(" ");
  }

  /* Every second: the turn's clocks, the away seats' countdowns, and their hand-over buttons
     once allowed. */
  tick() {
    const model = this.model,
      app = this.app;
    if (!model.state) return;
    tickClocks(app);
    for (const el of app.querySelectorAll("[data-away-seat]"))
      el.textContent = awayText(model, Number(el.dataset.awaySeat));
    for (const el of app.querySelectorAll("button[data-bot-seat]"))
      el.disabled = handoverLeft(model, Number(el.dataset.botSeat)) > 0;
  }
}
