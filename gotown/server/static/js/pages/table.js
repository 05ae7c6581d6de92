/* A game's table (/g/<id> for a seat, /w/<id> to watch): its socket, the state it holds
   (each state's new events joined to those held), and what a tap asks of the server. One
   TablePage per open table page; its screen (table-screen.js) draws it, its Chances
   (table-chances.js) ask for the win-probability bar. */

import { api, GameSocket, keyAuth, player, tokens } from "../api.js";
import { setServerNow, tickClocks } from "../clock.js";
import { h } from "../dom.js";
import { EventLog } from "../eventlog.js";
import { cardsPlayed } from "../facts.js";
import { errorText, t } from "../i18n.js";
import { toast } from "../notices.js";
import { handIndices, tableModel } from "../table-model.js";
import { askRatings } from "./ratings.js";
import { Chances } from "./table-chances.js";
import { keptNotifyPanel, TableScreen } from "./table-screen.js";

function showOffline(lost) {
  let el = document.getElementById("offline");
  if (!lost) {
    if (el) el.remove();
    return;
  }
  if (!el) {
    el = h("div", { id: "offline", role: "status" });
    document.body.prepend(el);
  }
  el.textContent = t("reconnecting");
}

export class TablePage {
  constructor(app, gameId, spectator, ctx) {
    Object.assign(this, { app, gameId });
    this.closed = false;
    this.busy = false;
    this.resyncing = false;
    this.gapped = null;
    this.deadline = null;
    this.ratingsAsked = false;
    this.eventLog = new EventLog(); // the events held and the log drawn from them
    const m = location.hash.match(/t=([A-Za-z0-9_-]+)/);
    if (m && !spectator) {
      tokens.set(gameId, m[1]);
      history.replaceState({}, "", location.pathname);
    }
    // The seat's token kept on this device, else the device's player key (a seat of theirs).
    this.token = spectator ? null : tokens.get(gameId) || keyAuth();
    this.chances = new Chances(this, () => this.draw());
    this.screen = new TableScreen(
      app,
      tableModel({
        mode: spectator ? "watch" : "seat",
        meta: ctx.meta,
        gameId,
        token: this.token,
        eventLog: this.eventLog,
        open: { drawer: window.matchMedia("(min-width: 761px)").matches },
        chancesPanel: spectator ? null : () => this.chances.panel(),
        notifyPanel: keptNotifyPanel(),
        on: {
          act: (a) => this.act(a),
          hint: () => this.hint(),
          handToBot: (seat) => this.handToBot(seat),
          navigate: ctx.navigate,
        },
      }),
    );
    if (!spectator && !this.token) {
      this.noSeat();
      return;
    }
    app.append(h("p", { class: "loading" }, t("connecting")));
    this.socket = new GameSocket(gameId, this.token, {
      onState: (state) => this.update(state),
      onError: (err) => {
        // The device's player holds no seat here (or lost its key): as without a seat.
        if (
          !this.state &&
          this.token &&
          typeof this.token === "object" &&
          ["wrong-key", "wrong-token"].includes(err?.code)
        ) {
          if (err.code === "wrong-key") player.forget(this.token.key);
          this.socket.close();
          this.token = this.screen.model.token = null;
          this.app.replaceChildren();
          this.noSeat();
          return;
        }
        toast(errorText(err));
        if (!this.state) this.app.replaceChildren(h("p", { class: "panel" }, errorText(err)));
      },
      onLost: () => {
        document.body.dataset.connection = "lost";
        showOffline(true);
      },
      heldEvents: () => this.heldEvents(),
    });
  }

  /* No seat here: offer to watch, if there is such a game at all. */
  noSeat() {
    const panel = h("div", { class: "panel", id: "no-seat" }, h("p", {}, t("connecting")));
    this.app.append(panel);
    api("GET", `/api/games/${encodeURIComponent(this.gameId)}/state`).then(
      () =>
        panel.replaceChildren(
          h("p", {}, t("no_token")),
          h("a", { href: `/w/${this.gameId}` }, t("watch")),
        ),
      (err) =>
        panel.replaceChildren(h("p", {}, errorText(err)), h("a", { href: "/" }, t("new_game"))),
    );
  }

  /* The state drawn, the latest the page holds. */
  get state() {
    return this.screen.model.state;
  }

  close() {
    this.closed = true;
    if (this.socket) this.socket.close();
    this.screen.close();
    this.chances.stop();
    showOffline(false);
  }

  draw() {
    this.screen.draw();
  }

  /* How many of the game's events this page holds (the whole list, from the first). */
  heldEvents() {
    return this.eventLog.count;
  }

  /* A state may hold only the events from `events_from` on (the socket sends each event once,
     and an action's answer those after the ones the page holds): the ones not held yet are
     appended to the log's (its work, like this update's, is that of the new events only, not
     of the game so far), and the state's view.events is that list of every event. Events never
     change once made. A state that starts after the events held (a gap) is not shown: the
     whole state is asked for instead (resync); a whole state (from 0) replaces them. */
  update(state) {
    if (this.state && state.version < this.state.version && state.status === this.state.status)
      return;
    const log = this.eventLog,
      held = log.count;
    let fresh = [];
    if (state.view) {
      const from = state.events_from || 0,
        events = state.view.events || [];
      if (from > held) {
        this.resync(state);
        return;
      }
      if (from === 0) {
        fresh = events.slice(held);
        log.reset(events, state);
      } else {
        fresh = events.slice(held - from);
        log.append(fresh, state);
      }
      state = { ...state, events_from: 0, view: { ...state.view, events: log.events } };
    }
    const before = this.state;
    const versionChanged = !before || state.version !== before.version;
    // A new deadline: the server's clock read again (this device's may have drifted, or a
    // test moved the server's on), so that the time left is the server's.
    if (state.lobby.deadline && state.lobby.deadline !== this.deadline) {
      api("GET", "/api/meta").then(
        (m) => {
          setServerNow(m.now);
          if (!this.closed) tickClocks(this.app);
        },
        () => {
          /* the last offset stays */
        },
      );
    }
    this.deadline = state.lobby.deadline || null;
    document.body.dataset.connection = "ok";
    showOffline(false);
    document.body.dataset.version = String(state.version);
    this.screen.show(state, versionChanged && before?.view && state.view ? fresh : []);
    this.chances.poll();
    // A circle's table that ended: how it moved the ratings (for the end screen).
    if (state.view?.over && state.lobby.circle_id && state.seat !== null && !this.ratingsAsked) {
      this.ratingsAsked = true;
      askRatings(this).then((got) => {
        if (got && !this.closed) {
          this.screen.model.ratings = got;
          this.draw();
        }
      });
    }
  }

  /* The whole state, for a state that could not be joined to the events held (`gapped`); a
     newer one that could not either, arrived meanwhile, is tried once the whole state is in. */
  async resync(gapped) {
    if (gapped && (!this.gapped || gapped.version >= this.gapped.version)) this.gapped = gapped;
    if (this.resyncing) return;
    this.resyncing = true;
    const gameId = this.gameId;
    let full = null;
    try {
      full = await api("GET", `/api/games/${gameId}/state`, undefined, this.token);
    } catch (err) {
      toast(errorText(err));
    } finally {
      this.resyncing = false;
    }
    if (this.closed) return;
    const later = this.gapped;
    this.gapped = null;
    if (full) this.update({ ...full, events_from: 0 });
    if (full && later && later.version > full.version) this.update(later);
  }

  async handToBot(seat) {
    try {
      await api(
        "POST",
        `/api/games/${this.gameId}/seats/${seat}/bot`,
        { level: "medium" },
        this.token,
      );
    } catch (err) {
      toast(errorText(err));
    }
  }

  /* Send a move. A move made on a stale table (the server's version moved on) fetches the
     state again at once, so that the player sees what changed and can retry. */
  async act(action) {
    if (this.busy) return;
    this.busy = true;
    try {
      const body = { version: this.state.version, action, events_from: this.heldEvents() };
      this.update(await api("POST", `/api/games/${this.gameId}/actions`, body, this.token));
    } catch (err) {
      toast(errorText(err));
      if (err && err.code === "stale-version") this.resync(null);
    } finally {
      this.busy = false;
    }
  }

  async hint() {
    try {
      const res = await api("GET", `/api/games/${this.gameId}/hint`, undefined, this.token);
      if (res.version !== this.state.version) return;
      // The suggested move's cards picked, so that its targets glow.
      const model = this.screen.model;
      model.hints = res.hints;
      if (res.hints.length)
        model.selected = handIndices(this.state.view.hand, cardsPlayed(res.hints[0].action));
      this.draw();
    } catch (err) {
      toast(errorText(err));
    }
  }
}
