/* A player's page: yours (/me, over all your games) or a fellow member's as your circle sees
   it (/circle/ID?p=PLAYER, its games only). Their rating and the bot level they play about
   like, games and wins by number of players, the rating over time as a graph, head to head
   against each person and each bot level, the special cards they play most, their recent games
   with their replays; on your own page, your best moves from the reviews of your last two
   games (asked for when opened: a review takes seconds of the server's time), and "delete me". */

import { api, keyAuth, player } from "../api.js";
import { cardName, miniCard } from "../cards.js";
import { h } from "../dom.js";
import { errorText, lang, t } from "../i18n.js";
import { toast } from "../notices.js";
import { actionLine, levelName } from "../words.js";
import { confirmAction, here } from "./circles.js";
import { ratingGraph, ratingText } from "./ratings.js";

const REVIEWED_GAMES = 2;
const pct = (p) => `${Math.round(100 * p)}%`;

function dateText(seconds) {
  if (!seconds) return "";
  try {
    return new Intl.DateTimeFormat(lang(), { dateStyle: "medium" }).format(
      new Date(seconds * 1000),
    );
  } catch {
    return new Date(seconds * 1000).toLocaleDateString();
  }
}

const panel = (id, title, ...children) =>
  h(
    "section",
    { class: "panel", id, "aria-labelledby": `${id}-title` },
    h("h2", { id: `${id}-title` }, title),
    ...children,
  );

function numbers(head, rows, id) {
  return h(
    "table",
    { class: "leaderboard", id },
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        head.map((x, i) => h("th", { scope: "col", class: i ? "num" : null }, x)),
      ),
    ),
    h(
      "tbody",
      {},
      rows.map((r) =>
        h(
          "tr",
          r.attrs || {},
          h("th", { scope: "row" }, r.cells[0]),
          r.cells.slice(1).map((c) => h("td", { class: "num" }, c)),
        ),
      ),
    ),
  );
}

function summary(page, own) {
  const who = own ? null : page.name;
  const r = page.rating;
  return panel(
    "player-summary",
    t("player_summary"),
    h(
      "p",
      { id: "player-rating" },
      r ? t("player_rating", { rating: ratingText(r.ordinal), count: r.games }) : t("rating_none"),
    ),
    page.plays_like
      ? h(
          "p",
          { id: "plays-like", class: "plays-like" },
          own
            ? t("plays_like_you", { level: levelName(page.plays_like) })
            : t("plays_like", { name: who, level: levelName(page.plays_like) }),
        )
      : null,
    h(
      "p",
      { id: "player-games" },
      t("player_games", { count: page.games }),
      " · ",
      t("player_floors", { n: page.floors_built }),
    ),
    Object.keys(page.wins_by_players).length
      ? numbers(
          [t("players"), t("leaderboard_games"), t("player_wins"), "%"],
          Object.entries(page.wins_by_players).map(([n, w]) => ({
            attrs: { "data-players": n },
            cells: [
              t("play_friends_n", { n }),
              String(w.games),
              String(w.wins),
              w.games ? pct(w.wins / w.games) : "–",
            ],
          })),
          "player-wins",
        )
      : null,
  );
}

function headToHead(page) {
  if (!page.head_to_head.length) return null;
  return panel(
    "player-h2h",
    t("player_head_to_head"),
    numbers(
      [t("player_opponent"), t("leaderboard_games"), t("player_wins"), t("player_losses")],
      page.head_to_head.map((x) => ({
        attrs: { "data-kind": x.kind, "data-opponent": x.opponent },
        cells: [
          x.kind === "bot" ? t("leaderboard_bot", { level: levelName(x.opponent) }) : x.opponent,
          String(x.games),
          String(x.wins),
          String(x.losses),
        ],
      })),
      "player-h2h-table",
    ),
  );
}

function playedCardsPanel(page) {
  if (!page.cards.length) return null;
  return panel(
    "player-cards",
    t("player_cards"),
    h(
      "ul",
      { class: "played-cards", id: "player-cards-list" },
      page.cards.map((c) =>
        h(
          "li",
          { "data-card": c.card },
          miniCard(c.card),
          h("span", {}, cardName(c.card)),
          h("strong", {}, `× ${c.plays}`),
        ),
      ),
    ),
  );
}

function recentGames(page, ctx) {
  if (!page.recent.length) return null;
  return panel(
    "player-recent",
    t("player_recent"),
    h(
      "ul",
      { class: "my-games", id: "player-recent-list" },
      page.recent.map((g) => {
        const names = g.names.map((n) => n || t("bot")).join(", ");
        const result = g.you_won
          ? t("player_won")
          : g.winner
            ? t("winner_is", { actor: g.winner })
            : t("over_nowinner");
        return h(
          "li",
          { class: "my-game", "data-game": g.game_id },
          h(
            "a",
            {
              href: `/r/${g.game_id}`,
              class: "my-game-link",
              onclick: (ev) => {
                ev.preventDefault();
                ctx.navigate(`/r/${g.game_id}`);
              },
            },
            h("strong", { class: "my-game-with" }, names),
            h("span", { class: "my-game-state" }, result),
            h("span", { class: "help" }, `${dateText(g.finished)} · ${t("replay")}`),
          ),
        );
      }),
    ),
  );
}

/* Your moves that turned your last games your way: the review's turning points that were your
   own decisions and raised your chance, one game's review after the other. */
async function bestMoves(page, body) {
  body.replaceChildren(h("p", { class: "help", id: "best-moves-wait" }, t("review_loading")));
  let seats;
  try {
    seats = (await api("GET", "/api/me/games", undefined, keyAuth())).games;
  } catch (err) {
    body.replaceChildren(h("p", {}, errorText(err)));
    return;
  }
  const list = h("ul", { class: "review-list", id: "best-moves-list" });
  const games = page.recent
    .slice(0, REVIEWED_GAMES)
    .map((g) => [g, seats.find((x) => x.game_id === g.game_id)])
    .filter(([, s]) => s);
  for (const [g, mine] of games) {
    let review, lobby;
    try {
      review = await api("GET", `/api/games/${g.game_id}/review?seat=${mine.seat}`);
      lobby = await api("GET", `/api/games/${g.game_id}/lobby`);
    } catch (err) {
      list.append(h("li", {}, errorText(err)));
      continue;
    }
    const state = { lobby, seat: mine.seat };
    const good = review.turning_points.filter(
      (tp) =>
        tp.cause === "decision" &&
        tp.seat === mine.seat &&
        tp.who === mine.seat &&
        tp.after > tp.before,
    );
    const link = h("a", { href: `/r/${g.game_id}` }, dateText(g.finished) || t("replay"));
    if (!good.length)
      list.append(h("li", { "data-game": g.game_id }, link, ": ", t("best_moves_none")));
    for (const tp of good) {
      list.append(
        h(
          "li",
          { "data-game": g.game_id, class: "best-move" },
          link.cloneNode(true),
          ": ",
          t("best_move", {
            turn: tp.turn,
            text: actionLine(tp.action, state, tp.seat).text,
            from: pct(tp.before),
            to: pct(tp.after),
          }),
        ),
      );
    }
  }
  body.replaceChildren(games.length ? list : h("p", {}, t("best_moves_no_games")));
}

function bestMovesPanel(page) {
  if (!page.recent.length) return null;
  const body = h("div", { id: "best-moves-body" });
  const box = h(
    "details",
    { class: "panel", id: "best-moves" },
    h("summary", {}, h("strong", {}, t("best_moves"))),
    h("p", { class: "help" }, t("best_moves_help")),
    body,
  );
  box.addEventListener("toggle", () => {
    if (box.open && !box.dataset.asked) {
      box.dataset.asked = "1";
      bestMoves(page, body);
    }
  });
  return box;
}

function deletePanel(ctx) {
  return panel(
    "delete-me",
    t("delete_me_title"),
    h("p", { class: "help" }, t("delete_me_help")),
    confirmAction({
      id: "delete-me-action",
      label: t("delete_me"),
      question: t("delete_me_confirm"),
      yes: t("delete_me"),
      action: async () => {
        await api("DELETE", "/api/me", undefined, keyAuth());
        player.forget();
        ctx.navigate("/");
        toast(t("delete_me_done"), true);
      },
    }),
  );
}

/* /me (`circleId` null) or a member's page in a circle. */
export async function renderPlayer(app, ctx, circleId = null, playerId = null) {
  const auth = keyAuth();
  const own = circleId === null;
  if (!auth) {
    app.append(
      h(
        "section",
        { class: "panel", id: "player-refused" },
        h("h1", {}, own ? t("my_page") : t("circles_title")),
        h("p", { id: "player-refused-why" }, own ? t("notices_no_player") : t("circle_not_yours")),
      ),
    );
    return;
  }
  app.append(h("p", { class: "loading" }, t("connecting")));
  const at = here();
  const path = own
    ? "/api/me/page"
    : `/api/circles/${encodeURIComponent(circleId)}/players/${encodeURIComponent(playerId)}`;
  let page;
  try {
    page = await api("GET", path, undefined, auth);
  } catch (err) {
    if (here() !== at) return;
    const notYours = err && (err.code === "unknown-circle" || err.code === "unknown-member");
    app.replaceChildren(
      h(
        "section",
        { class: "panel", id: "player-refused" },
        h("h1", {}, t("circles_title")),
        h("p", { id: "player-refused-why" }, notYours ? t("circle_not_yours") : errorText(err)),
      ),
    );
    return;
  }
  if (here() !== at) return;
  const back = own
    ? null
    : h(
        "a",
        {
          href: `/circle/${encodeURIComponent(circleId)}`,
          class: "tap",
          id: "back-to-circle",
          onclick: (ev) => {
            ev.preventDefault();
            ctx.navigate(`/circle/${encodeURIComponent(circleId)}`);
          },
        },
        t("back_to_circle"),
      );
  app.replaceChildren(
    ...[
      h("h1", { id: "player-title" }, own ? t("my_page_title", { name: page.name }) : page.name),
      back ? h("p", {}, back) : null,
      summary(page, own),
      page.history.length
        ? ratingGraph(page.history, ctx.meta, own ? t("you") : page.name)
        : h("p", { class: "panel help", id: "rating-none" }, t("rating_no_history")),
      headToHead(page),
      playedCardsPanel(page),
      recentGames(page, ctx),
      own ? bestMovesPanel(page) : null,
      own ? deletePanel(ctx) : null,
    ].filter(Boolean),
  );
}
