/* The page's first requests, made while its other modules load (this one imports none, and
   runs as soon as it arrives, `async`): the server's facts (/api/meta), the English words
   (always needed: the page's words, or the fallback of another language's), and on a table's
   page its socket, which sends the seat's token once open and keeps what arrives until the
   table takes it. Each is taken once (`take`); a module that finds nothing asks itself. */
const started = {};

function tableRoute() {
  const [kind, id] = location.pathname.split("/").filter(Boolean);
  if ((kind !== "g" && kind !== "w") || !id) return null;
  if (kind === "w") return { id, token: null };
  const m = location.hash.match(/t=([A-Za-z0-9_-]+)/);
  let token = m ? m[1] : null;
  if (!token) {
    try {
      token = localStorage.getItem(`gotown.token.${id}`);
    } catch {
      /* private mode */
    }
  }
  // (Else the device's player key, which opens the player's seat: api.js's `player`.)
  if (!token) {
    try {
      const p = JSON.parse(localStorage.getItem("gotown.player"));
      if (p?.key) token = { key: p.key };
    } catch {
      /* none */
    }
  }
  return token ? { id, token } : null;
}

/* A socket's first message for a seat's token, or for the device's key (`{ key }`). */
export function hello(token) {
  return JSON.stringify(
    token && typeof token === "object" ? { token: null, key: token.key } : { token },
  );
}

function openSocket({ id, token }) {
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  const ws = new WebSocket(`${proto}//${location.host}/ws/games/${id}`);
  const early = { ws, hello: hello(token), held: [] };
  ws.onopen = () => {
    performance.mark("gotown:socket-open"); // (for benchmarks/page_speed.py)
    ws.send(early.hello);
  };
  ws.onmessage = (msg) => early.held.push(msg);
  return early;
}

started.meta = fetch("/api/meta", { headers: { Accept: "application/json" } });
// (Beside this module: the page loads its files from one versioned address.)
started.en = fetch(new URL("../i18n/en.json", import.meta.url));
const route = tableRoute();
if (route) {
  try {
    started[`socket:${route.id}`] = openSocket(route);
  } catch {
    /* the table opens its own */
  }
}
// (A request that fails here is asked again by the module that needs it: no unhandled error.)
for (const key of ["meta", "en"]) started[key].catch(() => {});

export function take(name) {
  const value = started[name];
  delete started[name];
  return value;
}
