/* "Your tables": every table this device's player sits at (on any of their devices), as the
   server orders them: your turn first, then the nearest deadline; each with whose turn it is
   and its time left (live), each opening its table; the tab's title and icon say when a turn
   is yours. Read again every minute while in view, and when the page comes back into view (a
   notification may have brought the reader). */

import { api, keyAuth } from "../api.js";
import { clockEl, paceText, setServerNow, tickClocks } from "../clock.js";
import { h } from "../dom.js";
import { lang, t } from "../i18n.js";
import { markTurn } from "../tab.js";

/* The table as its player knows it: the others at it ("With Bob and Carla", a bot as a bot),
   or, while nobody else sat down yet, that it waits for them. */
function tableText(g) {
  const names = g.names
    .map((name, seat) =>
      seat === g.seat ? null : name || (g.kinds[seat] === "bot" ? t("bot") : null),
    )
    .filter(Boolean);
  if (!names.length) return t("waiting_title");
  try {
    return t("table_with", {
      names: new Intl.ListFormat(lang(), { type: "conjunction" }).format(names),
    });
  } catch {
    return t("table_with", { names: names.join(", ") });
  }
}

function stateText(g) {
  if (g.status === "over") return t("game_over");
  if (g.status === "lobby")
    return g.names.some((name, seat) => seat !== g.seat && name) ? t("waiting_title") : null;
  if (g.your_turn) return t("your_turn");
  const seat = g.turn_seat;
  const who =
    seat === null
      ? "?"
      : g.names[seat] || (g.kinds[seat] === "bot" ? t("bot") : t("seat_n", { n: seat + 1 }));
  return t("turn_of", { actor: who });
}

function gameItem(g, ctx) {
  const open = (ev) => {
    ev.preventDefault();
    ctx.navigate(`/g/${g.game_id}`);
  };
  return h(
    "li",
    {
      class: `my-game${g.your_turn ? " mine" : ""}${g.status === "over" ? " over" : ""}`,
      "data-game": g.game_id,
    },
    h(
      "a",
      { href: `/g/${g.game_id}`, class: "my-game-link", onclick: open },
      h("strong", { class: "my-game-with" }, tableText(g)),
      stateText(g) ? h("span", { class: "my-game-state" }, stateText(g)) : null,
      g.deadline && g.status === "playing" ? clockEl(g.deadline, { pace: g.pace }) : null,
      h(
        "span",
        { class: "help my-game-pace" },
        g.pace ? t("pace_per_turn", { time: paceText(g.pace) }) : t("pace_live"),
      ),
    ),
  );
}

/* The panel, filled once the server answers (hidden while this player sits at no table). */
export function myGamesPanel(ctx) {
  const auth = keyAuth();
  if (!auth) return null;
  const list = h("ul", { class: "my-games", id: "my-games-list" });
  const panel = h(
    "section",
    { class: "panel", id: "my-games", "aria-labelledby": "my-games-title", hidden: true },
    h("h2", { id: "my-games-title" }, t("my_games")),
    list,
  );
  async function load() {
    let got;
    try {
      got = await api("GET", "/api/me/games", undefined, auth);
    } catch {
      panel.hidden = true;
      return;
    }
    setServerNow(got.now);
    // Every table under way, and the last few that ended.
    const shown = [
      ...got.games.filter((g) => g.status !== "over"),
      ...got.games.filter((g) => g.status === "over").slice(0, 3),
    ];
    if (!panel.isConnected) return;
    list.replaceChildren(...shown.map((g) => gameItem(g, ctx)));
    panel.hidden = !shown.length;
    markTurn(shown.some((g) => g.your_turn));
  }
  const again = () => {
    if (!panel.isConnected) {
      document.removeEventListener("visibilitychange", again);
      return;
    }
    if (!document.hidden) load();
  };
  document.addEventListener("visibilitychange", again);
  let ticks = 0;
  const timer = setInterval(() => {
    if (!panel.isConnected) {
      clearInterval(timer);
      return;
    }
    tickClocks(panel);
    if (++ticks % 60 === 0 && !document.hidden) load();
  }, 1000);
  load();
  return panel;
}
