/* The HTTP and WebSocket client of the GoTown API (JSON on the wire). No DOM here. */
import { take } from "./boot.js";

/* One request; resolves to the JSON body (null for 204), rejects with the API's error object
   ({code, message, rule?}), or {code: "network"} when the server cannot be reached. */
export async function api(method, path, body, token) {
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (token) headers["X-Seat-Token"] = token;
  let res;
  try {
    res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (e) {
    throw { code: "network" };
  }
  if (res.status === 204) return null;
  let data = null;
  try { data = await res.json(); } catch (e) { /* not JSON */ }
  if (!res.ok) throw (data && data.error) || { code: "http-" + res.status, message: res.statusText };
  return data;
}

/* A seat's secret token per game, kept on this device. */
export const tokens = {
  get(gameId) { try { return localStorage.getItem("gotown.token." + gameId); } catch (e) { return null; } },
  set(gameId, token) { try { localStorage.setItem("gotown.token." + gameId, token); } catch (e) { /* private mode */ } },
};

/* A seat's own link, to continue on another device (as the API's play_url): at the address
   the server gives its links (the lobby's, as its invitation), not the one this page was
   opened at (127.0.0.1 opens on no other device). */
export const seatUrl = (lobby, token) => lobby.watch_url.replace(/\/w\/[^/]*$/, "/g/" + lobby.game_id) + "#t=" + token;

/* The server's facts the page offers (/api/meta): bot levels, the R23 options and what a joker
   stands for (R5). The page states none of them itself: without the server it offers none. */
export async function loadMeta() {
  /* (The server's ceilings on a turn limit until it says them.) */
  const meta = { levels: [], options: {}, jokerValues: {}, turnLimitMax: 10000, turnLimitNone: 10000 };
  try {
    const early = take("meta");  // (asked for by boot.js as the page loaded)
    const got = early ? await early.then((res) => (res.ok ? res.json() : api("GET", "/api/meta")), () => api("GET", "/api/meta"))
      : await api("GET", "/api/meta");
    meta.levels = got.bot_levels;
    meta.jokerValues = got.joker_values || {};
    for (const [key, o] of Object.entries(got.options || {})) {
      if (Array.isArray(o.choices) && key !== "win_floors" && key !== "first_player") meta.options[key] = o.choices;
    }
    const limit = got.options && got.options.turn_limit;
    if (limit && Number.isInteger(limit.maximum)) meta.turnLimitMax = limit.maximum;
    /* The turn limit the server gives a game with people created without one: a game with it
       had no limit chosen, and the page does not count turns towards it. */
    if (limit && Number.isInteger(limit.people_default)) meta.turnLimitNone = limit.people_default;
  } catch (e) { /* the home page says the server cannot be reached when it is asked */ }
  return Object.freeze(meta);
}

/* The game's socket: sends the seat's token first (and `events_from` to resume), hands each
   state and error to the callbacks, and reconnects with a growing delay after a lost
   connection (at once after 1012, a server's restart). `heldEvents()` says how many events
   the caller holds. */
export class GameSocket {
  constructor(gameId, token, { onState, onError, onLost, heldEvents }) {
    Object.assign(this, { gameId, token, onState, onError, onLost, heldEvents });
    this.retry = 0;
    this.closed = false;
    this.noResume = false;
    this.connect();
  }
  connect() {
    // The socket boot.js opened for this seat as the page loaded, if it still stands.
    const early = take("socket:" + this.gameId);
    if (early && early.token === this.token && early.ws.readyState <= WebSocket.OPEN) { this.listen(early.ws, early.held); return; }
    if (early) early.ws.close();
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    this.listen(new WebSocket(proto + "//" + location.host + "/ws/games/" + this.gameId), null);
  }
  /* Take `ws` on; `held`: what an early socket received before (it sent the token itself if
     it is open: the page held no events then). */
  listen(ws, held) {
    this.ws = ws;
    let resumed = false;
    const opened = () => {
      performance.mark("gotown:socket-open");  // (for benchmarks/page_speed.py)
      this.retry = 0;
      // Back after a lost connection: only the events the page does not hold yet.
      const events = this.heldEvents();
      resumed = events > 0 && !this.noResume;
      ws.send(JSON.stringify(resumed ? { token: this.token, events_from: events } : { token: this.token }));
    };
    if (held && ws.readyState === WebSocket.OPEN) this.retry = 0; else ws.onopen = opened;
    // (Once the caller has its socket: the states that came early are its first.)
    if (held && held.length) queueMicrotask(() => { for (const msg of held) if (this.ws === ws && !this.closed) ws.onmessage(msg); });
    ws.onmessage = (msg) => {
      const data = JSON.parse(msg.data);
      if (data.type === "state" && !performance.getEntriesByName("gotown:first-state").length) performance.mark("gotown:first-state");
      if (data.type === "state") this.onState(data.state);
      else if (data.type === "error") this.onError(data.error);
    };
    ws.onclose = (ev) => {
      if (this.closed || this.ws !== ws) return;
      // A resume the server refused (it never should): connect again for every event.
      if (ev.code === 4422 && resumed) { this.noResume = true; this.connect(); return; }
      if (ev.code >= 4400 && ev.code < 4500) return;
      // 1012 "service restart": the server stops in order and another one takes the game on,
      // so connect again at once (spread over a quarter second: not all its sockets together).
      const restart = ev.code === 1012;
      const delay = restart ? Math.random() * 250 : Math.min(8000, 500 * 2 ** this.retry++);
      if (!restart) this.onLost();
      setTimeout(() => { if (!this.closed && this.ws === ws) this.connect(); }, delay);
    };
  }
  close() {
    this.closed = true;
    if (this.ws) { try { this.ws.close(); } catch (e) { /* ignore */ } this.ws = null; }
  }
}
