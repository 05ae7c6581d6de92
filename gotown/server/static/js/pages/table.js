/* A game's table (/g/<id> for a seat, /w/<id> to watch): its socket, the state it holds, and
   what a tap asks of the server. One Table per open table page; drawing is table-view.js. */
import { h, store } from "../dom.js";
import { chosenLang, errorText, lang, loadLang, t } from "../i18n.js";
import { GameSocket, api, keyAuth, player, tokens } from "../api.js";
import { useText } from "../cards.js";
import { clearNotices, toast } from "../notices.js";
import { eventLines, usesOf } from "../words.js";
import { EventLog } from "../eventlog.js";
import { drawGame, drawLobby, meter } from "./table-view.js";
import { listenTargets, markTargets } from "../targets.js";
import { animate, snapshot, stillMotion } from "../motion.js";
import { fitTable } from "../fit.js";
import { setServerNow, tickClocks } from "../clock.js";
import { markTurn } from "../tab.js";
import { notifyPanel } from "../notify.js";
import { askRatings } from "./ratings.js";

function showOffline(lost) {
  let el = document.getElementById("offline");
  if (!lost) { if (el) el.remove(); return; }
  if (!el) { el = h("div", { id: "offline", role: "status" }); document.body.prepend(el); }
  el.textContent = t("reconnecting");
}

export class Table {
  constructor(app, gameId, spectator, ctx) {
    Object.assign(this, { app, gameId, spectator, meta: ctx.meta, navigate: ctx.navigate });
    this.state = null; this.selected = []; this.hints = null; this.prevFloors = {};
    this.closed = false; this.busy = false; this.replay = false; this.logKeep = null; this.handoverAt = {};
    this.chances = null; this.chancesAsked = -1; this.chancesBusy = false; this.chancesFailed = false;
    this.chancesRetry = null; this.chancesDelay = 0; this.wasMyTurn = false;
    this.resyncing = false; this.gapped = null; this.heard = null; this.heardStatus = null;
    this.eventLog = new EventLog();  // the events held and the log drawn from them
    this.optionsOpen = false; this.drawerOpen = window.matchMedia("(min-width: 761px)").matches;
    this.ticker = setInterval(() => this.tickAway(), 1000);
    listenTargets(app, this);
    const m = location.hash.match(/t=([A-Za-z0-9_-]+)/);
    if (m && !spectator) { tokens.set(gameId, m[1]); history.replaceState({}, "", location.pathname); }
    // The seat's token kept on this device, else the device's player key (a seat of theirs).
    this.token = spectator ? null : tokens.get(gameId) || keyAuth();
    this.deadline = null;
    // (One panel kept across the table's redraws: open, it stays open; anew in a new language.)
    this.notifyPanel = () => {
      if (!this.notify || this.notify.lang !== lang()) this.notify = { lang: lang(), el: notifyPanel() };
      return this.notify.el;
    };
    if (!spectator && !this.token) { this.noSeat(); return; }
    app.append(h("p", { class: "loading" }, t("connecting")));
    this.socket = new GameSocket(gameId, this.token, {
      onState: (state) => this.update(state),
      onError: (err) => {
        // The device's player holds no seat here (or lost its key): as without a seat.
        if (!this.state && this.token && typeof this.token === "object" && ["wrong-key", "wrong-token"].includes(err && err.code)) {
          if (err.code === "wrong-key") player.forget(this.token.key);
          this.socket.close(); this.token = null; this.app.replaceChildren(); this.noSeat(); return;
        }
        toast(errorText(err)); if (!this.state) this.app.replaceChildren(h("p", { class: "panel" }, errorText(err)));
      },
      onLost: () => { document.body.dataset.connection = "lost"; showOffline(true); },
      heldEvents: () => this.heldEvents(),
    });
  }

  /* No seat here: offer to watch, if there is such a game at all. */
  noSeat() {
    const panel = h("div", { class: "panel", id: "no-seat" }, h("p", {}, t("connecting")));
    this.app.append(panel);
    api("GET", "/api/games/" + encodeURIComponent(this.gameId) + "/state").then(
      () => panel.replaceChildren(h("p", {}, t("no_token")), h("a", { href: "/w/" + this.gameId }, t("watch"))),
      (err) => panel.replaceChildren(h("p", {}, errorText(err)), h("a", { href: "/" }, t("new_game"))));
  }

  close() {
    this.closed = true;
    if (this.socket) this.socket.close();
    clearInterval(this.ticker);
    clearTimeout(this.chancesRetry);
    showOffline(false);
    markTurn(false);
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
    if (this.state && state.version < this.state.version && state.status === this.state.status) return;
    const log = this.eventLog, held = log.count;
    let fresh = [];
    if (state.view) {
      const from = state.events_from || 0, events = state.view.events || [];
      if (from > held) { this.resync(state); return; }
      if (from === 0) { fresh = events.slice(held); log.reset(events, state); }
      else { fresh = events.slice(held - from); log.append(fresh, state); }
      state = { ...state, events_from: 0, view: { ...state.view, events: log.events } };
    }
    const versionChanged = !this.state || state.version !== this.state.version;
    if (this.state && this.state.view) this.state.view.towers.forEach((tw, s) => { this.prevFloors[s] = tw.length; });
    const before = this.state;
    this.state = state;
    // Seconds until an away seat may be handed to a bot: counted down here (tickAway).
    const now = performance.now();
    this.handoverAt = {};
    for (const s of state.lobby.seats) if (Number.isFinite(s.handover_in)) this.handoverAt[s.seat] = now + s.handover_in * 1000;
    // A new deadline: the server's clock read again (this device's may have drifted, or a
    // test moved the server's on), so that the time left is the server's.
    if (state.lobby.deadline && state.lobby.deadline !== this.deadline) {
      api("GET", "/api/meta").then((m) => { setServerNow(m.now); if (!this.closed) tickClocks(this.app); }, () => { /* the last offset stays */ });
    }
    this.deadline = state.lobby.deadline || null;
    // A notice belongs to its turn: a new turn (or the end, or the lobby's end) takes it away.
    const moment = (st) => (st && st.view ? st.view.turn + ":" + st.view.active + ":" + st.view.over : st && st.status);
    if (versionChanged && before && moment(before) !== moment(state)) clearNotices();
    const shown = versionChanged && before && before.view && state.view ? fresh : [];
    this.tellAimed(shown, state);
    document.body.dataset.connection = "ok";
    showOffline(false);
    document.body.dataset.version = String(state.version);
    if (versionChanged) { this.selected = []; this.hints = null; }
    this.maybeAskChances();
    // A circle's table that ended: how it moved the ratings (for the end screen).
    if (state.view && state.view.over && state.lobby.circle_id && state.seat !== null && !this.ratingsAsked) { this.ratingsAsked = true; askRatings(this); }
    if (!chosenLang() && state.lobby.language && state.lobby.language !== lang()) {
      loadLang(state.lobby.language).then(() => this.draw());
      return;
    }
    this.draw(shown);
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
      full = await api("GET", "/api/games/" + gameId + "/state", undefined, this.token);
    } catch (err) {
      toast(errorText(err));
    } finally { this.resyncing = false; }
    if (this.closed) return;
    const later = this.gapped;
    this.gapped = null;
    if (full) this.update({ ...full, events_from: 0 });
    if (full && later && later.version > full.version) this.update(later);
  }

  /* The win-probability bar (a per-device choice): asked on this seat's turn and after it. */
  chancesOn() { return store.get("chances") === "1"; }
  setChances(on) {
    store.set("chances", on ? "1" : "0");
    if (on) { this.chancesAsked = -1; this.maybeAskChances(); }
    this.draw();
  }

  /* A move aimed at this seat by someone else (a card stolen, a floor knocked down, a
     milkshake...) among the `fresh` events is told at once, in a notice that leaves with its
     turn. */
  tellAimed(fresh, state) {
    if (state.seat === null || !fresh.length || state.view.over) return;  // (the end says it all)
    const lines = eventLines(fresh, state).filter((l) => l.aimed);
    if (lines.length) toast(lines.slice(-3).map((l) => l.text).join(" "), true);
  }

  handoverLeft(seat) {
    const at = this.handoverAt[seat];
    return at === undefined ? 0 : Math.max(0, Math.ceil((at - performance.now()) / 1000));
  }
  awayText(seat) {
    const left = this.handoverLeft(seat);
    const st = this.state;
    return left > 0 && st && st.seat !== null && st.seat !== seat ? t("away_bot_in", { n: left }) : t("away");
  }
  /* Every second: the turn's clocks, the away seats' countdowns, and their hand-over buttons
     once allowed. */
  tickAway() {
    if (!this.state) return;
    tickClocks(this.app);
    for (const el of this.app.querySelectorAll("[data-away-seat]")) el.textContent = this.awayText(Number(el.dataset.awaySeat));
    for (const el of this.app.querySelectorAll("button[data-bot-seat]")) el.disabled = this.handoverLeft(Number(el.dataset.botSeat)) > 0;
  }
  async handToBot(seat) {
    try { await api("POST", "/api/games/" + this.gameId + "/seats/" + seat + "/bot", { level: "medium" }, this.token); } catch (err) { toast(errorText(err)); }
  }

  maybeAskChances() {
    const st = this.state;
    if (!st || this.spectator || st.seat === null || !st.view || st.view.over) return;
    const mine = st.view.active === st.seat;
    const justEnded = this.wasMyTurn && !mine;
    this.wasMyTurn = mine;
    if (!this.chancesOn() || this.chancesBusy) return;
    if (!(mine || justEnded || this.chancesAsked < 0)) return;
    if (this.chancesAsked === st.version) return;
    this.askChances(st.version);
  }
  async askChances(version) {
    this.chancesAsked = version;
    this.chancesBusy = true;
    clearTimeout(this.chancesRetry); this.chancesRetry = null;
    let failed = false;
    try {
      this.chances = await api("GET", "/api/games/" + this.gameId + "/chances", undefined, this.token);
      this.chancesFailed = false; this.chancesDelay = 0;
    } catch (err) {
      // The bar is a nicety: say it is unavailable, and ask again at the next state, when the
      // socket comes back, or after a while (2 s, doubling up to a minute).
      failed = true;
      this.chancesAsked = -1;
      this.chancesFailed = true;
      this.chancesDelay = Math.min(60000, this.chancesDelay ? this.chancesDelay * 2 : 2000);
      if (!this.closed) this.chancesRetry = setTimeout(() => { this.chancesRetry = null; this.maybeAskChances(); }, this.chancesDelay);
    } finally { this.chancesBusy = false; }
    if (this.closed) return;
    if (!failed && this.state && this.state.version !== version && this.state.view && this.state.view.active === this.state.seat) this.askChances(this.state.version);
    else if (this.state) this.draw();
  }
  chancesPanel() {
    const on = this.chancesOn();
    const box = h("input", { type: "checkbox", id: "chances-toggle", checked: on, onchange: (ev) => this.setChances(ev.target.checked) });
    const row = h("div", { class: "panel chances" }, h("div", { class: "row" }, box, h("label", { for: "chances-toggle" }, t("chances_toggle"))));
    if (!on) return row;
    const c = this.chances;
    if (c && c.basis === "none") return row;
    const none = !c || c.win_probability === null || c.win_probability === undefined;
    if (this.chancesFailed && none) row.append(h("p", { class: "help", id: "chances-unavailable" }, t("chances_unavailable")));
    else if (none) row.append(h("p", { class: "help", id: "chances-wait" }, t("chances_computing")));
    else {
      const pct = Math.round(c.win_probability * 100);
      row.append(h("div", { class: "field", id: "chances" }, h("span", { id: "chances-text" }, t("win_chance", { p: pct })), meter(pct, t("win_chance", { p: pct }))));
    }
    return row;
  }

  /* Send a move. A move made on a stale table (the server's version moved on) fetches the
     state again at once, so that the player sees what changed and can retry. */
  async act(action) {
    if (this.busy) return;
    this.busy = true;
    try {
      const body = { version: this.state.version, action, events_from: this.heldEvents() };
      this.update(await api("POST", "/api/games/" + this.gameId + "/actions", body, this.token));
    } catch (err) {
      toast(errorText(err));
      if (err && err.code === "stale-version") this.resync(null);
    } finally { this.busy = false; }
  }
  toggle(i) {
    const k = this.selected.indexOf(i);
    if (k >= 0) this.selected.splice(k, 1); else this.selected.push(i);
    this.draw();
    const el = document.getElementById("card-" + i); if (el) el.focus();
  }
  /* A tap on a tower that no selected card can reach: what the card does (its rule). */
  explain() {
    const code = this.state.view.hand[this.selected[this.selected.length - 1]];
    if (code) toast(useText(code, this.state.view.options), true);
  }
  dragStart(ev, i) {
    const code = this.state.view.hand[i];
    ev.dataTransfer.setData("text/plain", code);
    ev.dataTransfer.effectAllowed = "move";
    markTargets(this.app, this.state, this, [code]);
  }
  dragEnd() { if (this.state && this.state.view) markTargets(this.app, this.state, this); }
  async hint() {
    try {
      const res = await api("GET", "/api/games/" + this.gameId + "/hint", undefined, this.token);
      if (res.version !== this.state.version) return;
      this.hints = res.hints;
      if (res.hints.length) {
        const hand = [...this.state.view.hand];
        this.selected = [];
        for (const c of usesOf(res.hints[0].action)) { const i = hand.findIndex((x, j) => x === c && !this.selected.includes(j)); if (i >= 0) this.selected.push(i); }
      }
      this.draw();
    } catch (err) { toast(errorText(err)); }
  }

  /* Redraw the whole table (keeping the focus and the log's place), then play the gestures
     of the `fresh` events. */
  draw(fresh = []) {
    const st = this.state, app = this.app;
    const focusId = document.activeElement && document.activeElement.id;
    const oldLog = app.querySelector("#log");
    // The log keeps the reader's place, unless they were at (or near) its end.
    this.logKeep = oldLog ? { top: oldLog.scrollTop, atEnd: oldLog.scrollHeight - oldLog.scrollTop - oldLog.clientHeight < 24 } : null;
    // (Read before the old table goes: only when a move will be shown travelling.)
    const before = fresh.some((e) => e.type === "action" || e.type === "stolen") && !stillMotion() ? snapshot(app) : null;
    app.replaceChildren();
    if (st.status === "lobby") drawLobby(app, st, this);
    else { drawGame(app, st, this); fitTable(app); }
    const v = st.view;
    const mine = st.seat !== null && st.lobby.seats[st.seat];
    markTurn(Boolean(v && !v.over && mine && v.active === st.seat && mine.kind === "human" && !mine.standin));
    if (focusId) {
      const el = document.getElementById(focusId)
        || (/^(card-|act-|end-turn|hint)/.test(focusId) && (document.querySelector('#hand .card[aria-disabled="false"]') || document.getElementById("end-turn")));
      if (el) el.focus();
    }
    if (v && fresh.length) animate(app, before, fresh, st);
  }

  /* Screen readers: the log's new lines (what the others did) and the status when it changes
     ("Your turn"), in the page's one lasting live region. */
  announce(lines, statusText) {
    const fresh = this.heard === null || this.heard > lines.length ? []
      : lines.slice(this.heard).filter((l) => (l.cls !== "turn" || l.say) && !l.aimed).map((l) => l.text);
    this.heard = lines.length;
    if (statusText !== this.heardStatus) { fresh.push(statusText); this.heardStatus = statusText; }
    const el = document.getElementById("announce");
    if (el && fresh.length) el.textContent = fresh.join(" ");
  }
}
