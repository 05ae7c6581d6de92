/* The HTTP and WebSocket client of the GoTown API (JSON on the wire). No DOM here. */
import { hello, take } from "./boot.js";
import { setServerNow } from "./clock.js";

/* One request; resolves to the JSON body (null for 204), rejects with the API's error object
   ({code, message, rule?}), or {code: "network"} when the server cannot be reached. `token`:
   a seat's token, or `{ key }`, this device's player key (which opens the player's seats). */
export async function api(method, path, body, token) {
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (token && typeof token === "object") headers["X-Player-Key"] = token.key;
  else if (token) headers["X-Seat-Token"] = token;
  let res;
  try {
    res = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw { code: "network" };
  }
  if (res.status === 204) return null;
  let data = null;
  try {
    data = await res.json();
  } catch {
    /* not JSON */
  }
  if (!res.ok) {
    const err = data?.error || { code: `http-${res.status}`, message: res.statusText };
    // A key the server no longer knows (its device link was revoked): this device lost it.
    if (err.code === "wrong-key" && token && typeof token === "object") player.forget(token.key);
    throw err;
  }
  return data;
}

/* This device's player ({player_id, name, key}): made with the first table made or joined
   with a name, so that the seat is the player's on each of their devices (device links). */
export const player = {
  get() {
    try {
      const p = JSON.parse(localStorage.getItem("gotown.player"));
      return p && typeof p.key === "string" ? p : null;
    } catch {
      return null;
    }
  },
  set(p) {
    try {
      localStorage.setItem(
        "gotown.player",
        JSON.stringify({ player_id: p.player_id, name: p.name, key: p.key }),
      );
    } catch {
      /* private mode */
    }
  },
  forget(key) {
    const p = player.get();
    if (p && (!key || p.key === key)) {
      try {
        localStorage.removeItem("gotown.player");
      } catch {
        /* private mode */
      }
    }
  },
};

/* The device's key as a credential for `api` (null: none). */
export const keyAuth = () => {
  const p = player.get();
  return p ? { key: p.key } : null;
};

/* The device's player, made now if it has none, named `name` (renamed when it was another):
   null when the server cannot make one (the table is made without). */
export async function ensurePlayer(name) {
  const known = player.get();
  if (known) {
    if (name && known.name !== name) {
      api("PATCH", "/api/me", { name }, { key: known.key }).then(
        (p) => player.set({ ...p, key: known.key }),
        () => {
          /* kept as it was */
        },
      );
    }
    return known;
  }
  try {
    const made = await api("POST", "/api/players", { name });
    player.set(made);
    return made;
  } catch {
    return null;
  }
}

/* `request(auth)` made as this device's player named `name` (made now when the device has
   none): a table made or joined so is the player's on each of their devices. A key the
   server no longer knows is forgotten, and a new player made. */
export async function asPlayer(name, request) {
  const me = await ensurePlayer(name);
  try {
    return await request(me ? { key: me.key } : null);
  } catch (err) {
    if (!me || !err || err.code !== "wrong-key") throw err;
    const again = await ensurePlayer(name);
    return request(again ? { key: again.key } : null);
  }
}

/* A seat's secret token per game, kept on this device. */
export const tokens = {
  get(gameId) {
    try {
      return localStorage.getItem(`gotown.token.${gameId}`);
    } catch {
      return null;
    }
  },
  set(gameId, token) {
    try {
      localStorage.setItem(`gotown.token.${gameId}`, token);
    } catch {
      /* private mode */
    }
  },
};

/* A seat's own link, to continue on another device (as the API's play_url): at the address
   the server gives its links (the lobby's, as its invitation), not the one this page was
   opened at (127.0.0.1 opens on no other device). */
export const seatUrl = (lobby, token) =>
  `${lobby.watch_url.replace(/\/w\/[^/]*$/, `/g/${lobby.game_id}`)}#t=${token}`;

/* The server's facts (/api/meta): the languages, bot levels, the R23 options, and the rules'
   card facts (facts.js: the card table, each action type's, what a joker stands for). The
   page states none of them itself: without the server it offers none. */
export async function loadMeta() {
  /* (The server's ceilings on a turn limit until it says them.) */
  const meta = {
    languages: [],
    levels: [],
    options: {},
    cards: [],
    actions: {},
    jokerValues: {},
    turnLimitMax: 10000,
    turnLimitNone: 10000,
    paces: [],
    botRatings: {},
  };
  try {
    const early = take("meta"); // (asked for by boot.js as the page loaded)
    const got = early
      ? await early.then(
          (res) => (res.ok ? res.json() : api("GET", "/api/meta")),
          () => api("GET", "/api/meta"),
        )
      : await api("GET", "/api/meta");
    meta.languages = got.languages || [];
    meta.levels = got.bot_levels;
    meta.paces = Array.isArray(got.paces) ? got.paces : [];
    setServerNow(got.now);
    meta.cards = got.cards || [];
    meta.actions = got.actions || {};
    meta.jokerValues = got.joker_values || {};
    meta.botRatings = got.bot_ratings || {}; // (each level's [mu, sigma], on the people's scale)
    for (const [key, o] of Object.entries(got.options || {})) {
      if (Array.isArray(o.choices) && key !== "win_floors" && key !== "first_player")
        meta.options[key] = o.choices;
    }
    const limit = got.options?.turn_limit;
    if (limit && Number.isInteger(limit.maximum)) meta.turnLimitMax = limit.maximum;
    /* The turn limit the server gives a game with people created without one: a game with it
       had no limit chosen, and the page does not count turns towards it. */
    if (limit && Number.isInteger(limit.people_default)) meta.turnLimitNone = limit.people_default;
  } catch {
    /* the home page says the server cannot be reached when it is asked */
  }
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
    const early = take(`socket:${this.gameId}`);
    if (early && early.hello === hello(this.token) && early.ws.readyState <= WebSocket.OPEN) {
      this.listen(early.ws, early.held);
      return;
    }
    if (early) early.ws.close();
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    this.listen(new WebSocket(`${proto}//${location.host}/ws/games/${this.gameId}`), null);
  }
  /* Take `ws` on; `held`: what an early socket received before (it sent the token itself if
     it is open: the page held no events then). */
  listen(ws, held) {
    this.ws = ws;
    let resumed = false;
    const opened = () => {
      performance.mark("gotown:socket-open"); // (for benchmarks/page_speed.py)
      this.retry = 0;
      // Back after a lost connection: only the events the page does not hold yet.
      const events = this.heldEvents();
      resumed = events > 0 && !this.noResume;
      const first = JSON.parse(hello(this.token));
      ws.send(JSON.stringify(resumed ? { ...first, events_from: events } : first));
    };
    if (held && ws.readyState === WebSocket.OPEN) this.retry = 0;
    else ws.onopen = opened;
    // (Once the caller has its socket: the states that came early are its first.)
    if (held?.length)
      queueMicrotask(() => {
        for (const msg of held) if (this.ws === ws && !this.closed) ws.onmessage(msg);
      });
    ws.onmessage = (msg) => {
      const data = JSON.parse(msg.data);
      if (data.type === "state" && !performance.getEntriesByName("gotown:first-state").length)
        performance.mark("gotown:first-state");
      if (data.type === "state") this.onState(data.state);
      else if (data.type === "error") this.onError(data.error);
    };
    ws.onclose = (ev) => {
      if (this.closed || this.ws !== ws) return;
      // A resume the server refused (it never should): connect again for every event.
      if (ev.code === 4422 && resumed) {
        this.noResume = true;
        this.connect();
        return;
      }
      if (ev.code >= 4400 && ev.code < 4500) return;
      // 1012 "service restart": the server stops in order and another one takes the game on,
      // so connect again at once (spread over a quarter second: not all its sockets together).
      const restart = ev.code === 1012;
      const delay = restart ? Math.random() * 250 : Math.min(8000, 500 * 2 ** this.retry++);
      if (!restart) this.onLost();
      setTimeout(() => {
        if (!this.closed && this.ws === ws) this.connect();
      }, delay);
    };
  }
  close() {
    this.closed = true;
    if (this.ws) {
      try {
        this.ws.close();
      } catch {
        /* ignore */
      }
      this.ws = null;
    }
  }
}
