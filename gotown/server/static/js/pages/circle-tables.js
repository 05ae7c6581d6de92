/* A circle's tables: those under way, each named by who sits at it, and a new one. */
import { api, keyAuth, tokens } from "../api.js";
import { paceText } from "../clock.js";
import { h, store } from "../dom.js";
import { errorText, lang, t } from "../i18n.js";
import { toast } from "../notices.js";
import { levelName } from "../words.js";

/* The circle's tables under way, each named by who sits at it (its public lobby), and a new
   table for the circle: its pace and number of players in one tap, as on the home page. */
export function tablesPanel(circle, me, ctx) {
  const list = h("ul", { class: "my-games", id: "circle-tables" });
  Promise.all(
    circle.tables
      .slice(0, 8)
      .map((tb) => api("GET", `/api/games/${tb.game_id}/lobby`).catch(() => null)),
  ).then((lobbies) => {
    list.replaceChildren(
      ...circle.tables.slice(0, 8).map((tb, i) => {
        const lobby = lobbies[i];
        const names = lobby
          ? lobby.seats
              .map((x) => (x.kind === "bot" ? levelName(x.level) : x.name))
              .filter(Boolean)
              .join(", ")
          : "";
        return h(
          "li",
          { class: "my-game", "data-game": tb.game_id },
          h(
            "a",
            {
              href: `/g/${tb.game_id}`,
              class: "my-game-link",
              onclick: (ev) => {
                ev.preventDefault();
                ctx.navigate(`/g/${tb.game_id}`);
              },
            },
            h("strong", { class: "my-game-with" }, names || t("waiting_title")),
            h(
              "span",
              { class: "my-game-state" },
              tb.status === "lobby" ? t("waiting_title") : t("active"),
            ),
            lobby
              ? h(
                  "span",
                  { class: "help" },
                  lobby.pace ? t("pace_per_turn", { time: paceText(lobby.pace) }) : t("pace_live"),
                )
              : null,
          ),
          // A table waiting for people: its invitation, for the members (the page is theirs).
          tb.invite_url
            ? h(
                "a",
                {
                  href: new URL(tb.invite_url).pathname,
                  class: "button my-game-join",
                  onclick: (ev) => {
                    ev.preventDefault();
                    ctx.navigate(new URL(tb.invite_url).pathname);
                  },
                },
                t("join_title"),
              )
            : null,
        );
      }),
    );
  });
  const paces = [0, ...ctx.meta.paces];
  let pace = paces.includes(Number(store.get("pace"))) ? Number(store.get("pace")) : 0;
  const paceBox = h(
    "div",
    { class: "paces", role: "radiogroup", "aria-labelledby": "circle-pace-title" },
    h("span", { id: "circle-pace-title" }, t("pace")),
    ...paces.map((p) => {
      const input = h("input", {
        type: "radio",
        name: "circle-pace",
        id: `circle-pace-${p}`,
        value: p,
        checked: p === pace,
      });
      input.addEventListener("change", () => {
        pace = p;
        store.set("pace", String(p));
      });
      return h(
        "label",
        { class: "pace", for: `circle-pace-${p}` },
        input,
        h("span", {}, p ? paceText(p) : t("pace_live")),
      );
    }),
  );
  const start = async (n, button) => {
    button.disabled = true;
    const body = {
      seats: Array.from({ length: n }, () => ({ kind: "human" })),
      options: {},
      language: lang(),
      name: me.name,
      circle_id: circle.circle_id,
    };
    if (pace) body.pace = pace;
    try {
      const made = await api("POST", "/api/games", body, keyAuth());
      tokens.set(made.game_id, made.token);
      ctx.navigate(`/g/${made.game_id}`);
    } catch (err) {
      button.disabled = false;
      toast(errorText(err));
    }
  };
  return h(
    "section",
    { class: "panel", id: "circle-tables-panel", "aria-labelledby": "circle-tables-title" },
    h("h2", { id: "circle-tables-title" }, t("circle_tables")),
    circle.tables.length ? list : h("p", { class: "help" }, t("circle_no_tables")),
    h(
      "div",
      {
        class: "big friends",
        id: "circle-new-table",
        role: "group",
        "aria-labelledby": "circle-new-title",
      },
      h("strong", { id: "circle-new-title" }, t("circle_new_table")),
      h("span", {}, t("circle_new_table_help")),
      paceBox,
      h(
        "div",
        { class: "row" },
        ...[2, 3, 4].map((n) => {
          const button = h(
            "button",
            { type: "button", id: `circle-table-${n}`, onclick: () => start(n, button) },
            t("play_friends_n", { n }),
          );
          return button;
        }),
      ),
    ),
  );
}
