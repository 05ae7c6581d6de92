/* The table drawn from one seat's state: the strip (whose turn, what just happened), the
   towers (opponents across the top, yours large), the piles, your hand with what it can do
   (table-hand.js), the end, and the drawer (log, options, settings). `model` is the table's
   (table-model.js): the state drawn and the handlers of the gestures. */
import { api, seatUrl, tokens } from "../api.js";
import { backCard, miniCard } from "../cards.js";
import { clockEl } from "../clock.js";
import { h } from "../dom.js";
import { errorText, t } from "../i18n.js";
import { copyText, toast } from "../notices.js";
import { settingsPanel } from "../settings.js";
import { markTargets } from "../targets.js";
import { seatBox } from "../towers.js";
import { eventLines, optionsSummary, outcomeText, seatName, turnText } from "../words.js";
import { ratingChanges } from "./ratings.js";
import { handPanel } from "./table-hand.js";

/* The lines of what just happened: the moves of the last turns (not the draws, unless
   nothing else happened), newest last, at most three. */
function recentLines(lines) {
  const moves = [];
  let headers = 0;
  for (let i = lines.length - 1; i >= 0 && moves.length < 3; i--) {
    const l = lines[i];
    if (l.cls === "turn") {
      if (++headers === 2 && moves.length) break;
      continue;
    }
    if (!l.own && !l.draw) moves.unshift(l);
  }
  if (moves.length) return moves;
  const last = [...lines].reverse().find((l) => l.cls !== "turn" && !l.own);
  return last ? [last] : [];
}

export function drawGame(app, model) {
  const st = model.state,
    v = st.view,
    lobby = st.lobby,
    me = st.seat;
  const past = model.mode === "replay";
  // A replay shows a past turn: it is nobody's to play now, the viewer's included.
  const mine = v.active === me && !v.over && !past;
  // (Not a live region itself: the table is rebuilt at every change, and a region that is
  // replaced is not reliably read out. #announce, which stays, says what changed.) The page's
  // main heading, where the page has no other (a replay and a lesson have theirs).
  const status = h(
    past || model.mode === "lesson" ? "div" : "h1",
    { class: `status${mine ? " mine" : ""}`, id: "status" },
    v.over
      ? t("game_over")
      : mine
        ? t("your_turn")
        : t("turn_of", { actor: seatName(lobby, v.active, null) }),
  );
  // (The table page keeps its log as the game goes on: eventlog.js.)
  const lines = model.eventLog ? model.eventLog.linesFor(st) : eventLines(v.events, st);
  const recent = v.over ? [] : recentLines(lines);
  // A turn-based table: the time left to the turn under way (the server's deadline), live.
  const clock =
    !v.over && !past && lobby.deadline
      ? h(
          "p",
          { class: "turn-clock", id: "turn-clock-line" },
          clockEl(lobby.deadline, { id: "turn-clock", pace: lobby.pace }),
        )
      : null;
  const strip = h(
    "div",
    { class: "strip", id: "strip" },
    status,
    clock,
    recent.length
      ? h(
          "ul",
          { class: "lastmove", id: "last-move" },
          ...recent.map((l) => h("li", { class: l.aimed ? "aimed" : "" }, l.text)),
        )
      : null,
  );
  // (style.css lays the board out by the number of seats: one screen, opponents around.)
  const board = h("section", {
    class: `board seats-${v.players}${me === null ? " watching" : ""}`,
    "aria-label": t("table"),
  });
  const side = h("aside", { class: "side", "aria-label": t("log") });
  const notes = h("div", { class: "notes" });
  board.append(strip);
  if (model.mode === "watch" && !v.over)
    notes.append(h("p", { class: "help", id: "watching" }, t("watching_notice")));
  if (v.over) notes.append(endPanel(model));
  if (me !== null && lobby.seats[me].standin && !v.over)
    notes.append(h("p", { class: "warn", id: "standin-you", role: "note" }, t("standin_you")));
  if (me !== null && lobby.seats[me].kind === "bot" && !v.over) {
    notes.append(
      h(
        "div",
        { class: "panel" },
        t("bot_plays_you"),
        " ",
        h(
          "button",
          {
            id: "reclaim",
            onclick: () =>
              api("POST", `/api/games/${model.gameId}/reclaim`, {}, model.token).catch((e) =>
                toast(errorText(e)),
              ),
          },
          t("reclaim"),
        ),
      ),
    );
  }
  // Two whole rounds of nothing but ended turns in a game that goes on: say that somebody can
  // still play (where nobody ever could, the game ends by itself, R20b). Not to a player who
  // can play now: they know it.
  const still = v.over ? 0 : st.frozen_turns || 0; // the engine's count (View.frozen_turns)
  const canPlay = (st.legal || []).some((a) => a.type !== "end-turn");
  if (still >= 2 * v.players && !canPlay)
    notes.append(
      h(
        "p",
        { class: "warn", id: "stuck-notice", role: "note" },
        t("stuck_notice", { turns: still }),
      ),
    );
  if (notes.firstChild) board.append(notes);
  // Opponents across the top, in play order from the viewer's left; the viewer's own tower large.
  const order = Array.from(
    { length: v.players },
    (_, k) => (k + (me ?? -1) + 1) % v.players,
  ).filter((x) => x !== me);
  // (On a laptop, a table seen from the viewer's seat: the next player on the left, the piles
  // in the middle; style.css places them.)
  const towers = h(
    "div",
    { class: `towers seats-${v.players}${me === null ? " watching" : ""}`, id: "towers" },
    h("div", { class: "others" }, ...order.map((x) => seatBox(x, model))),
    pilesEl(v, model),
    me !== null ? h("div", { class: "mine" }, seatBox(me, model)) : null,
  );
  board.append(towers);
  if (me !== null) board.append(handPanel(model));
  if (me !== null && !v.over && model.chancesPanel) board.append(model.chancesPanel());
  const keep = model.logKeep;
  const log = model.eventLog
    ? model.eventLog.element(st, !keep || keep.atEnd)
    : logEl(lines, model);
  if (model.on.announce) model.on.announce(lines, status.textContent);
  const options = optionsSummary(v.options, lobby, model.meta);
  options.open = model.open.options;
  options.addEventListener("toggle", () => {
    model.open.options = options.open;
  });
  const drawer = h(
    "details",
    { class: "drawer panel", id: "log-drawer", open: model.open.drawer },
    h("summary", {}, t("log")),
    log,
    options,
    past ? null : settingsPanel(),
    past || me === null || v.over ? null : seatLinkEl(model, lobby),
    me === null || !lobby.pace || !model.notifyPanel ? null : model.notifyPanel(),
    h("p", { class: "help" }, `${t("game_id")} ${st.game_id} · v${st.version}`),
  );
  drawer.addEventListener("toggle", () => {
    model.open.drawer = drawer.open;
  });
  side.append(drawer);
  app.append(h("div", { class: `table${me === null ? " watching" : ""}` }, board, side));
  log.scrollTop = keep && !keep.atEnd ? keep.top : log.scrollHeight;
  if (mine) markTargets(app, model);
}

/* The log. Most updates only add lines: the list drawn before is kept and the new lines
   appended (a long game's log is most of the table's work to draw); when an earlier line
   changed (a language, another seat's draws joined into one line), it is drawn anew. */
function logEl(lines, model) {
  const keys = lines.map((l) => `${l.cls || ""}|${l.text}`);
  const old = model.logCache;
  const item = (l) => h("li", { class: l.cls || "" }, l.text);
  let log;
  if (old && old.keys.length <= keys.length && old.keys.every((k, i) => k === keys[i])) {
    log = old.el;
    log.append(...lines.slice(old.keys.length).map(item));
  } else {
    // (Focusable: a scrolling region must be reachable by keyboard.)
    log = h(
      "ul",
      { class: "log", id: "log", tabindex: "0", "aria-label": t("log") },
      ...lines.map(item),
    );
  }
  model.logCache = { keys, el: log };
  return log;
}

function pilesEl(v, model) {
  // The pile's cards are drawn when it is opened (it stays open across redraws).
  const row = () =>
    h(
      "div",
      { class: "row" },
      ...(v.discard.length ? [...v.discard].reverse().map((c) => miniCard(c, "?")) : [t("empty")]),
    );
  const discard = h(
    "details",
    { id: "discard", open: model.open.discard },
    h("summary", {}, `${t("discard_pile")}: ${v.discard.length}`),
    model.open.discard ? row() : null,
  );
  discard.addEventListener("toggle", () => {
    model.open.discard = discard.open;
    if (discard.open && !discard.querySelector(".row")) discard.append(row());
  });
  const top = v.discard.length ? miniCard(v.discard[v.discard.length - 1], "?") : null;
  if (top) top.setAttribute("aria-hidden", "true");
  return h(
    "div",
    { class: "pile" },
    h("span", { id: "turn", class: "turn-count" }, turnText(v, model.meta)),
    h(
      "span",
      { class: "drawpile", id: "draw-pile" },
      backCard({ "aria-hidden": "true" }),
      h(
        "span",
        { id: "draw-size" },
        h("span", { class: "pile-words" }, `${t("draw_pile")}: `),
        String(v.draw_size),
      ),
    ),
    h("span", { class: "discardpile", id: "discard-pile" }, top, discard),
  );
}

/* This seat's own link (to continue on another device): private, like a key. Its QR code is
   drawn when asked for (the encoder loads then, not with the table). */
export function seatLinkEl(model, lobby) {
  // (A seat opened by the device's player key has no link of its own: "Use on another
  // device", on the home page, carries every table.)
  if (typeof model.token !== "string") return null;
  const url = seatUrl(lobby, model.token);
  const code = h("code", { id: "seat-url" }, url);
  const qrBox = h("div", { class: "qr-box" });
  const box = h(
    "details",
    { class: "seat-link", id: "seat-link" },
    h("summary", {}, t("seat_link")),
    h("p", { class: "warn" }, t("seat_link_private")),
    qrBox,
    h("p", {}, code),
    h("button", { type: "button", id: "copy-seat", onclick: () => copyText(url, code) }, t("copy")),
  );
  box.addEventListener("toggle", () => {
    if (box.open && !qrBox.firstChild)
      import("../qr.js").then(({ qrSvg }) =>
        qrBox.replaceChildren(qrSvg(url, t("seat_qr_alt"), "seat-qr")),
      );
  });
  return box;
}

function endPanel(model) {
  const st = model.state,
    lobby = st.lobby;
  const box = h(
    "div",
    { class: `winner${st.view.winner === null ? " nowinner" : ""}`, id: "winner" },
    outcomeText(st.view, lobby, st.seat),
  );
  const row = h("div", { class: "row" });
  // (A replay's end, and a lesson's, offers no other game.)
  if (model.mode === "replay" || model.mode === "lesson")
    return h("div", { class: "panel endpanel" }, box);
  row.append(
    h("a", { href: `/r/${model.gameId}`, id: "replay-link", class: "button" }, t("replay")),
  );
  if (st.seat !== null) {
    row.prepend(
      h(
        "button",
        {
          class: "primary",
          id: "rematch",
          onclick: async () => {
            // This browser joined the rematch already (another tab, or back from it): go there.
            if (lobby.rematch_id && tokens.get(lobby.rematch_id)) {
              model.on.navigate(`/g/${lobby.rematch_id}`);
              return;
            }
            try {
              const res = await api("POST", `/api/games/${model.gameId}/rematch`, {}, model.token);
              tokens.set(res.game_id, res.token);
              model.on.navigate(`/g/${res.game_id}`);
            } catch (err) {
              toast(errorText(err));
            }
          },
        },
        lobby.rematch_id ? t("join_rematch") : t("rematch"),
      ),
    );
  }
  return h("div", { class: "panel endpanel" }, box, ratingChanges(st, model.ratings), row);
}
