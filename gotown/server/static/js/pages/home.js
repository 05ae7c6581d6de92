/* The home page: the tables this device's player sits at, "Play now" (you against one medium
   bot), "Play with friends" (a table for 2, 3 or 4 and its pace, live or a time per turn,
   chosen in the same tap, its invitation shown at once), the full form (seats, levels, R23
   options), folded; and this device's panels: "Use on another device", notifications. */

import { api, asPlayer, keyAuth, tokens } from "../api.js";
import { paceText } from "../clock.js";
import { h, store } from "../dom.js";
import { chooseLang, errorText, lang, languageName, languages, t } from "../i18n.js";
import { requireName, toast } from "../notices.js";
import { notifyPanel } from "../notify.js";
import { circlePicker, circlesPanel } from "./circles.js";
import { devicesPanel } from "./devices.js";
import { myGamesPanel } from "./games.js";
import { levelLabel } from "./ratings.js";

/* `ctx.drafts.home` keeps what the form holds across its redraw in another language. */
export function renderHome(app, ctx) {
  const { meta } = ctx;
  // (novalidate: the submit handler checks the name and the turn limit and says what is wrong;
  // the browser's own check would stop silently at a field inside the folded options.)
  const form = h("form", {
    id: "create-form",
    class: "panel",
    "aria-labelledby": "create-title",
    novalidate: true,
  });
  const seatsBox = h("div", { id: "seat-specs" });
  const draft = ctx.drafts.home || {};
  let count = draft.count ?? 3;
  const specs = draft.specs ?? [
    { kind: "human" },
    { kind: "bot", level: "medium" },
    { kind: "bot", level: "medium" },
    { kind: "bot", level: "medium" },
  ];
  function drawSeats() {
    seatsBox.replaceChildren();
    for (let i = 0; i < count; i++) {
      const kind = h(
        "select",
        { id: `seat-kind-${i}`, "aria-label": t("seat_n", { n: i + 1 }) },
        h("option", { value: "human" }, t("person")),
        h("option", { value: "bot" }, t("bot")),
      );
      kind.value = i === 0 ? "human" : specs[i].kind;
      kind.disabled = i === 0;
      const level = h(
        "select",
        { id: `seat-level-${i}`, "aria-label": t("bot_level"), "aria-describedby": "levels-help" },
        ...meta.levels.map((l) => h("option", { value: l }, levelLabel(meta, l))),
      );
      level.value = specs[i].level || "medium";
      level.hidden = kind.value !== "bot";
      kind.addEventListener("change", () => {
        specs[i].kind = kind.value;
        level.hidden = kind.value !== "bot";
      });
      level.addEventListener("change", () => {
        specs[i].level = level.value;
      });
      seatsBox.append(
        h(
          "div",
          { class: "seat-spec" },
          h("strong", {}, t("seat_n", { n: i + 1 })),
          kind,
          level,
          i === 0 ? h("span", { class: "help" }, t("you")) : null,
        ),
      );
    }
  }
  const players = h(
    "select",
    { id: "players" },
    ...[2, 3, 4].map((n) => h("option", { value: n }, n)),
  );
  players.value = String(count);
  players.addEventListener("change", () => {
    count = Number(players.value);
    drawSeats();
    drawFirst();
  });
  const name = h("input", { id: "name", required: true, maxlength: 24, autocomplete: "nickname" });
  name.value = store.get("name") || "";
  requireName(name);
  // Each language by its own name, as in the page's menu at the top.
  const gameLang = h(
    "select",
    { id: "game-lang", "aria-describedby": "game-lang-help" },
    ...languages().map((l) => h("option", { value: l }, languageName(l))),
  );
  gameLang.value = lang();
  gameLang.addEventListener("change", () => chooseLang(gameLang.value).then(ctx.refresh));
  const short = h("input", { type: "checkbox", id: "opt-short" });
  const more = h(
    "details",
    { id: "more-options", open: Boolean(draft.moreOpen) },
    h("summary", {}, t("more_options")),
  );
  const optionsBox = h(
    "fieldset",
    { class: "panel" },
    h("legend", {}, t("options")),
    h(
      "div",
      { class: "option" },
      short,
      h("label", { for: "opt-short" }, h("strong", {}, t("opt_win_floors"))),
      h("p", {}, t("opt_win_floors_help")),
    ),
    more,
  );
  const optionInputs = {};
  for (const [key, values] of Object.entries(meta.options)) {
    const sel = h(
      "select",
      { id: `opt-${key}` },
      ...values.map((v) => h("option", { value: JSON.stringify(v) }, t(`opt_${key}_${String(v)}`))),
    );
    optionInputs[key] = sel;
    more.append(
      h(
        "div",
        { class: "option" },
        h("label", { for: `opt-${key}` }, h("strong", {}, t(`opt_${key}`))),
        sel,
        h("p", {}, t(`opt_${key}_help`)),
      ),
    );
  }
  // R23 first_player: "random" or one of the seats (the list follows the number of players).
  const first = h("select", {
    id: "opt-first_player",
    "aria-describedby": "opt-first_player-help",
  });
  function drawFirst() {
    const keep = first.value;
    first.replaceChildren(
      h("option", { value: "random" }, t("opt_first_player_random")),
      ...Array.from({ length: count }, (_, i) =>
        h("option", { value: String(i) }, t("seat_n", { n: i + 1 })),
      ),
    );
    first.value = keep && (keep === "random" || Number(keep) < count) ? keep : "random";
  }
  drawFirst();
  more.append(
    h(
      "div",
      { class: "option" },
      h("label", { for: "opt-first_player" }, h("strong", {}, t("opt_first_player"))),
      first,
      h("p", { id: "opt-first_player-help" }, t("opt_first_player_help")),
    ),
  );
  // R23 turn_limit: empty means no limit.
  const limit = h("input", {
    id: "opt-turn_limit",
    type: "number",
    min: 1,
    max: meta.turnLimitMax,
    step: 1,
    inputmode: "numeric",
    placeholder: t("opt_turn_limit_none"),
    "aria-describedby": "opt-turn_limit-help",
  });
  more.append(
    h(
      "div",
      { class: "option" },
      h("label", { for: "opt-turn_limit" }, h("strong", {}, t("opt_turn_limit"))),
      limit,
      h("p", { id: "opt-turn_limit-help" }, t("opt_turn_limit_help")),
    ),
  );

  // The pace of a table with friends: live, or each person's time for a turn (the server's
  // choices, /api/meta), chosen before the tap on the number of players.
  const paces = [0, ...meta.paces];
  let pace = paces.includes(Number(draft.pace ?? store.get("pace")))
    ? Number(draft.pace ?? store.get("pace"))
    : 0;
  const paceBox = h(
    "div",
    { class: "paces", id: "paces", role: "radiogroup", "aria-labelledby": "pace-title" },
    h("span", { id: "pace-title" }, t("pace")),
    ...paces.map((p) => {
      const input = h("input", {
        type: "radio",
        name: "pace",
        id: `pace-${p}`,
        value: p,
        checked: p === pace,
      });
      input.addEventListener("change", () => {
        pace = p;
        store.set("pace", String(p));
      });
      return h(
        "label",
        { class: "pace", for: `pace-${p}` },
        input,
        h("span", {}, p ? paceText(p) : t("pace_live")),
      );
    }),
  );

  // (A table for friends may be a circle's: it counts for the circle's ratings.)
  const circle = circlePicker();

  /* One tap: the name typed (or "Player"), these seats, the page's language (and a pace, and
     a circle). */
  const start = async (seats, paced = 0, circleId = null) => {
    const who = name.value.trim() || t("default_name");
    store.set("name", who);
    const body = { seats, options: {}, language: lang(), name: who };
    if (paced) body.pace = paced;
    if (circleId) body.circle_id = circleId;
    try {
      const res = await asPlayer(who, (auth) => api("POST", "/api/games", body, auth));
      ctx.drafts.home = null;
      tokens.set(res.game_id, res.token);
      ctx.navigate(`/g/${res.game_id}`);
    } catch (err) {
      toast(errorText(err));
    }
  };
  const custom = h(
    "details",
    { id: "custom-game", open: Boolean(draft.customOpen) },
    h("summary", { id: "custom-summary" }, t("custom_game")),
    h("div", { class: "field" }, h("label", { for: "players" }, t("players")), players),
    seatsBox,
    h("p", { id: "levels-help", class: "help" }, t("levels_help")),
    h(
      "div",
      { class: "field" },
      h("label", { for: "game-lang" }, t("game_language")),
      gameLang,
      h("p", { class: "help", id: "game-lang-help" }, t("game_language_help")),
    ),
    optionsBox,
    h("button", { class: "primary", type: "submit", id: "create-btn" }, t("create")),
  );
  form.append(
    h("h1", { id: "create-title" }, t("new_game")),
    h("div", { class: "field" }, h("label", { for: "name" }, t("your_name")), name),
    h(
      "div",
      { class: "quick" },
      h(
        "button",
        {
          type: "button",
          class: "primary big",
          id: "play-now",
          onclick: () => start([{ kind: "human" }, { kind: "bot", level: "medium" }]),
        },
        h("strong", {}, t("play_now")),
        h("span", {}, t("play_now_help")),
      ),
      h(
        "div",
        {
          class: "big friends",
          id: "play-friends",
          role: "group",
          "aria-labelledby": "play-friends-title",
          "aria-describedby": "play-friends-help",
        },
        h("strong", { id: "play-friends-title" }, t("play_friends")),
        h("span", { id: "play-friends-help" }, t("play_friends_help")),
        paceBox,
        circle.el,
        h(
          "div",
          { class: "row" },
          ...[2, 3, 4].map((n) =>
            h(
              "button",
              {
                type: "button",
                id: `play-friends-${n}`,
                onclick: () =>
                  start(
                    Array.from({ length: n }, () => ({ kind: "human" })),
                    pace,
                    circle.value(),
                  ),
              },
              t("play_friends_n", { n }),
            ),
          ),
        ),
      ),
      h(
        "button",
        { type: "button", class: "big", id: "learn", onclick: () => ctx.navigate("/learn") },
        h("strong", {}, t("learn")),
        h("span", {}, t("learn_help")),
      ),
    ),
    custom,
  );
  if (draft.name !== undefined) {
    name.value = draft.name;
    name.dispatchEvent(new Event("input"));
  }
  short.checked = Boolean(draft.short);
  for (const [key, sel] of Object.entries(optionInputs))
    if (draft.options?.[key] !== undefined) sel.value = draft.options[key];
  if (draft.first !== undefined && (draft.first === "random" || Number(draft.first) < count))
    first.value = draft.first;
  limit.value = draft.limit ?? "";
  const keepDraft = () => {
    ctx.drafts.home = {
      pace,
      count,
      specs: specs.map((x) => ({ ...x })),
      name: name.value,
      short: short.checked,
      first: first.value,
      limit: limit.value,
      moreOpen: more.open,
      customOpen: custom.open,
      options: Object.fromEntries(
        Object.entries(optionInputs).map(([key, sel]) => [key, sel.value]),
      ),
    };
  };
  form.addEventListener("input", keepDraft);
  more.addEventListener("toggle", keepDraft);
  custom.addEventListener("toggle", keepDraft);
  form.addEventListener("change", keepDraft);
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const seats = [];
    for (let i = 0; i < count; i++)
      seats.push(
        i === 0
          ? { kind: "human" }
          : specs[i].kind === "bot"
            ? { kind: "bot", level: specs[i].level || "medium" }
            : { kind: "human" },
      );
    const options = {};
    if (short.checked) options.win_floors = 4;
    for (const [key, sel] of Object.entries(optionInputs)) options[key] = JSON.parse(sel.value);
    options.first_player = first.value === "random" ? "random" : Number(first.value);
    if (!name.value.trim()) {
      toast(t("name_required"));
      name.focus();
      return;
    }
    if (limit.value.trim() !== "") {
      const n = Number(limit.value);
      if (!Number.isInteger(n) || n < 1 || n > meta.turnLimitMax) {
        toast(t("opt_turn_limit_invalid", { max: meta.turnLimitMax }));
        more.open = true;
        limit.focus();
        return;
      }
      options.turn_limit = n;
    }
    store.set("name", name.value.trim());
    try {
      const body = { seats, options, language: gameLang.value, name: name.value.trim() };
      if (pace && seats.filter((x) => x.kind === "human").length > 1) body.pace = pace;
      const res = await asPlayer(body.name, (auth) => api("POST", "/api/games", body, auth));
      ctx.drafts.home = null;
      tokens.set(res.game_id, res.token);
      ctx.navigate(`/g/${res.game_id}`);
    } catch (err) {
      toast(errorText(err));
    }
  });
  drawSeats();
  const mine = keyAuth()
    ? h(
        "section",
        { class: "panel device", id: "this-device", "aria-label": t("this_device") },
        devicesPanel(),
        notifyPanel(),
      )
    : null;
  app.append(
    myGamesPanel(ctx) || "",
    form,
    circlesPanel(ctx, () => name.value.trim()),
    mine || "",
    h(
      "p",
      { class: "help" },
      h("a", { href: `/rules/${lang()}`, id: "how-to", class: "tap" }, t("read_rules")),
    ),
  );
  name.focus();
}
