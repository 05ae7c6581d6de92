/* GoTown web table: plain JavaScript, no build step.
   Every piece of game data shown here comes from the server's per-seat view. */
"use strict";

const LANGS = ["en", "fr", "es", "it", "de", "nl", "cs", "pl"];
const OPTIONS = {
  win_floors: [5, 4],
  dog_placement: ["own", "any"],
  dogs_per_floor: [1, "unlimited"],
  bone_targets: ["opponents", "any"],
  milkshake_stacking: ["forbid", "merge", "stack"],
  milkshake_blocks_refill: [true, false],
};
let LEVELS = ["random", "easy", "medium", "hard", "expert"];
let TURN_LIMIT_MAX = 10000;  // the server's bound on turn_limit (/api/meta)
/* The turn limit the server gives a game with people created without one (/api/meta): a
   game with it had no limit chosen, and the page does not count turns towards it. */
let TURN_LIMIT_NONE = 10000;
let I18N = {};
let FALLBACK = {};
let lang = "en";
let plurals = null;  // the Intl.PluralRules of `lang` (made once a language is loaded)

/* ---------- small helpers ---------- */
const $ = (sel, root = document) => root.querySelector(sel);
function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") el.className = v;
    else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "text") el.textContent = v;
    else el.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}
/* A message with a {count} may have a form per plural category of the language (CLDR, as
   Intl.PluralRules names them): "key#one", "key#few", "key#many"; the plain key is the
   "other" form, and the form for any category a catalogue does not give. */
function t(key, params = {}) {
  let s = I18N[key] ?? FALLBACK[key] ?? key;
  if (typeof params.count === "number" && plurals) {
    const form = plurals.select(params.count);
    if (form !== "other" && I18N[key + "#" + form] !== undefined) s = I18N[key + "#" + form];
  }
  for (const [k, v] of Object.entries(params)) s = s.split("{" + k + "}").join(String(v));
  return s;
}
/* Card names may hold soft hyphens (where a long name may break on a card): not in labels. */
const plain = (s) => String(s).replace(/\u00ad/g, "");
let toastTimer = null;
/* A message at the foot of the screen: an error stays longer than a notice (it may say what to
   do); a tap closes it. */
function toast(message, info = false) {
  const el = $("#toast");
  el.textContent = message;
  el.className = info ? "info" : "";
  el.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { el.hidden = true; }, info ? 6000 : 12000);
}
function hideToast() {
  clearTimeout(toastTimer);
  $("#toast").hidden = true;
}
/* The reader's language only: the server's own (English) message goes to the console, and is
   shown only for a code this page has no words for. */
function errorText(err) {
  if (!err) return t("err_network");
  const key = "err_" + err.code;
  const known = I18N[key] ?? FALLBACK[key];
  if (!known) return err.message || t("err_network");
  if (err.message && err.code !== "network") console.info("GoTown server: " + err.code + ": " + err.message);
  return known + (err.rule ? " (" + err.rule + ")" : "");
}
/* A name field refuses a blank (or only spaces) name, in the page's language. */
function requireName(input) {
  const check = () => input.setCustomValidity(input.value.trim() ? "" : t("name_required"));
  input.addEventListener("input", check);
  check();
}
/* Copy a text: the Clipboard API where the page may use it (a secure context: https or
   localhost), else a hidden textarea and execCommand (a phone on http://192.168.x.y); if
   neither works, the text shown in `source` is selected, to be copied by hand. */
async function copyText(text, source) {
  let ok = false;
  if (navigator.clipboard && window.isSecureContext) {
    try { await navigator.clipboard.writeText(text); ok = true; } catch (e) { /* try the old way */ }
  }
  if (!ok) {
    const back = document.activeElement;
    const area = h("textarea", { readonly: true, "aria-hidden": "true", tabindex: "-1", class: "copy-area" });
    area.value = text;
    document.body.append(area);
    area.select();
    area.setSelectionRange(0, text.length);
    try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
    area.remove();
    if (back && back.focus) back.focus();
  }
  if (!ok && source) {
    const range = document.createRange();
    range.selectNodeContents(source);
    const sel = window.getSelection();
    sel.removeAllRanges();
    sel.addRange(range);
  }
  toast(ok ? t("copied") : t("copy_failed"), ok);
}
async function api(method, path, body, token) {
  const headers = { "Accept": "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (token) headers["X-Seat-Token"] = token;
  let res;
  try {
    res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (e) {
    throw { code: "network", message: t("err_network") };
  }
  if (res.status === 204) return null;
  let data = null;
  try { data = await res.json(); } catch (e) { /* not JSON */ }
  if (!res.ok) throw (data && data.error) || { code: "http-" + res.status, message: res.statusText };
  return data;
}
const tokens = {
  get(gameId) { try { return localStorage.getItem("gotown.token." + gameId); } catch (e) { return null; } },
  set(gameId, token) { try { localStorage.setItem("gotown.token." + gameId, token); } catch (e) { /* private mode */ } },
};

/* ---------- i18n ---------- */
let langRequest = 0;
async function loadLang(code) {
  if (!LANGS.includes(code)) code = "en";
  const mine = ++langRequest;  // when two loads overlap, the latest request wins
  const res = await fetch("/static/i18n/" + code + ".json");
  const strings = await res.json();
  if (!Object.keys(FALLBACK).length) FALLBACK = code === "en" ? strings : await (await fetch("/static/i18n/en.json")).json();
  if (mine !== langRequest) return;
  I18N = strings;
  lang = code;
  plurals = typeof Intl !== "undefined" && Intl.PluralRules ? new Intl.PluralRules(code) : null;
  document.documentElement.lang = code;
  $("#lang").value = code;
  $("#rules-link").textContent = t("rules");
  $("#rules-link").href = "/rules/" + code;
  $("#lang-label").textContent = t("language");
  $("a.skip").textContent = t("skip_to_content");
  $("a.brand").setAttribute("aria-label", t("home"));
}
function chosenLang() {
  try { const saved = localStorage.getItem("gotown.lang"); return LANGS.includes(saved) ? saved : null; } catch (e) { return null; }
}
function chooseLang(code) {
  try { localStorage.setItem("gotown.lang", code); } catch (e) { /* ignore */ }
  return loadLang(code);
}
function initialLang() {
  const saved = chosenLang();
  if (saved) return saved;
  // The reader's languages in their order of preference: the first one this page speaks.
  const wanted = navigator.languages && navigator.languages.length ? navigator.languages : [navigator.language || "en"];
  for (const tag of wanted) {
    const code = String(tag).split("-")[0].toLowerCase();  // ("csb" is not "cs")
    if (LANGS.includes(code)) return code;
  }
  return "en";
}

/* ---------- cards ---------- */
const NUMBERS = ["1", "2", "3", "4", "5", "6", "7", "8"];
function cardClass(code) {
  if (NUMBERS.includes(code)) {
    const n = Number(code), lo = Math.min(n, 9 - n);
    return "c" + lo + (9 - lo);
  }
  return code === "?" ? "cjoker" : "cspecial";
}
function cardName(code) {
  if (NUMBERS.includes(code)) return plain(t("card_floor"));
  return plain(t("card_" + code));
}
function cardLabel(code) {
  return NUMBERS.includes(code) ? code : (code === "?" ? t("card_?") : t("card_" + code));
}
/* What a card does, for a card that can do nothing now (tapped while greyed): the rule, in a
   sentence, so that a player learns why. */
function useText(code, options = {}) {
  let kind = NUMBERS.includes(code) ? "number" : code === "?" ? "joker" : code;
  // The dog and the bone follow the game's R23 options.
  if (code === "dog") kind += (options.dog_placement === "any" ? "_any" : "") + (options.dogs_per_floor === "unlimited" ? "_unlimited" : "");
  if (code === "bone" && options.bone_targets === "any") kind += "_any";
  const use = t("use_" + kind, NUMBERS.includes(code) ? { n: code, m: 9 - Number(code) } : {});
  return t("card_use", { card: plain(cardLabel(code)), use });
}
function floorValues(floor) {
  const cards = floor.filter((c) => c !== "dog");
  const dogs = floor.length - cards.length;
  const nums = cards.filter((c) => c !== "?");
  const values = cards.map((c) => (c === "?" ? (nums.length ? 9 - Number(nums[0]) : "?") : Number(c)));
  return { cards, dogs, values };
}

/* ---------- routing ---------- */
const route = { name: "home", id: null };
function parseRoute() {
  const p = location.pathname.split("/").filter(Boolean);
  if (p[0] === "j" && p[1]) return { name: "join", id: p[1] };
  if (p[0] === "g" && p[1]) return { name: "table", id: p[1] };
  if (p[0] === "w" && p[1]) return { name: "watch", id: p[1] };
  if (p[0] === "r" && p[1]) return { name: "replay", id: p[1] };
  return { name: "home", id: null };
}
function render() {
  Object.assign(route, parseRoute());
  if (route.name !== "table" && route.name !== "watch") table.close();
  const app = $("#app");
  app.replaceChildren();
  if (route.name === "home") renderHome(app);
  else if (route.name === "join") renderJoin(app, route.id);
  else if (route.name === "table" || route.name === "watch") table.open(app, route.id, route.name === "watch");
  else if (route.name === "replay") renderReplay(app, route.id);
}

/* ---------- home: create a game ---------- */
/* What the home form holds, kept across its redraw in another language (null: defaults). */
let homeDraft = null;
function renderHome(app) {
  // (novalidate: the submit handler checks the name and the turn limit and says what is wrong;
  // the browser's own check would stop silently at a field inside the folded options.)
  const form = h("form", { id: "create-form", class: "panel", "aria-labelledby": "create-title", novalidate: true });
  const seatsBox = h("div", { id: "seat-specs" });
  const draft = homeDraft || {};
  let count = draft.count ?? 3;
  const specs = draft.specs ?? [{ kind: "human" }, { kind: "bot", level: "medium" }, { kind: "bot", level: "medium" }, { kind: "bot", level: "medium" }];
  function drawSeats() {
    seatsBox.replaceChildren();
    for (let i = 0; i < count; i++) {
      const kind = h("select", { id: "seat-kind-" + i, "aria-label": t("seat_n", { n: i + 1 }) },
        h("option", { value: "human" }, t("person")), h("option", { value: "bot" }, t("bot")));
      kind.value = i === 0 ? "human" : specs[i].kind;
      kind.disabled = i === 0;
      const level = h("select", { id: "seat-level-" + i, "aria-label": t("bot_level"), "aria-describedby": "levels-help" },
        ...LEVELS.map((l) => h("option", { value: l }, t("level_" + l))));
      level.value = specs[i].level || "medium";
      level.hidden = kind.value !== "bot";
      kind.addEventListener("change", () => { specs[i].kind = kind.value; level.hidden = kind.value !== "bot"; });
      level.addEventListener("change", () => { specs[i].level = level.value; });
      seatsBox.append(h("div", { class: "seat-spec" },
        h("strong", {}, t("seat_n", { n: i + 1 })), kind, level, i === 0 ? h("span", { class: "help" }, t("you")) : null));
    }
  }
  const players = h("select", { id: "players" }, ...[2, 3, 4].map((n) => h("option", { value: n }, n)));
  players.value = String(count);
  players.addEventListener("change", () => { count = Number(players.value); drawSeats(); drawFirst(); });
  const name = h("input", { id: "name", required: true, maxlength: 24, autocomplete: "nickname" });
  try { name.value = localStorage.getItem("gotown.name") || ""; } catch (e) { /* ignore */ }
  requireName(name);
  // Each language by its own name, as in the page's menu at the top (its options).
  const names = Object.fromEntries([...$("#lang").options].map((o) => [o.value, o.textContent]));
  const gameLang = h("select", { id: "game-lang", "aria-describedby": "game-lang-help" }, ...LANGS.map((l) => h("option", { value: l }, names[l] || l.toUpperCase())));
  gameLang.value = lang;
  gameLang.addEventListener("change", () => chooseLang(gameLang.value).then(render));
  const short = h("input", { type: "checkbox", id: "opt-short" });
  // The short game in sight; the other rule options folded (a phone saw four screens of them
  // before the Create button), open again after a redraw if they were open.
  const more = h("details", { id: "more-options", open: Boolean(draft.moreOpen) }, h("summary", {}, t("more_options")));
  const optionsBox = h("fieldset", { class: "panel" }, h("legend", {}, t("options")),
    h("div", { class: "option" }, short, h("label", { for: "opt-short" }, h("strong", {}, t("opt_win_floors"))), h("p", {}, t("opt_win_floors_help"))), more);
  const optionInputs = {};
  for (const [key, values] of Object.entries(OPTIONS)) {
    if (key === "win_floors") continue;
    const sel = h("select", { id: "opt-" + key }, ...values.map((v) => h("option", { value: JSON.stringify(v) }, t("opt_" + key + "_" + String(v)))));
    optionInputs[key] = sel;
    more.append(h("div", { class: "option" }, h("label", { for: "opt-" + key }, h("strong", {}, t("opt_" + key))), sel, h("p", {}, t("opt_" + key + "_help"))));
  }
  // R23 first_player: "random" or one of the seats (the list follows the number of players).
  const first = h("select", { id: "opt-first_player", "aria-describedby": "opt-first_player-help" });
  function drawFirst() {
    const keep = first.value;
    first.replaceChildren(h("option", { value: "random" }, t("opt_first_player_random")),
      ...Array.from({ length: count }, (_, i) => h("option", { value: String(i) }, t("seat_n", { n: i + 1 }))));
    first.value = keep && (keep === "random" || Number(keep) < count) ? keep : "random";
  }
  drawFirst();
  more.append(h("div", { class: "option" }, h("label", { for: "opt-first_player" }, h("strong", {}, t("opt_first_player"))), first,
    h("p", { id: "opt-first_player-help" }, t("opt_first_player_help"))));
  // R23 turn_limit: empty means no limit.
  const limit = h("input", { id: "opt-turn_limit", type: "number", min: 1, max: TURN_LIMIT_MAX, step: 1, inputmode: "numeric",
    placeholder: t("opt_turn_limit_none"), "aria-describedby": "opt-turn_limit-help" });
  more.append(h("div", { class: "option" }, h("label", { for: "opt-turn_limit" }, h("strong", {}, t("opt_turn_limit"))), limit,
    h("p", { id: "opt-turn_limit-help" }, t("opt_turn_limit_help"))));
  form.append(
    h("h1", { id: "create-title" }, t("new_game")),
    h("div", { class: "field" }, h("label", { for: "name" }, t("your_name")), name),
    h("div", { class: "field" }, h("label", { for: "players" }, t("players")), players),
    seatsBox,
    h("p", { id: "levels-help", class: "help" }, t("levels_help")),
    h("div", { class: "field" }, h("label", { for: "game-lang" }, t("game_language")), gameLang,
      h("p", { class: "help", id: "game-lang-help" }, t("game_language_help"))),
    optionsBox,
    h("button", { class: "primary", type: "submit", id: "create-btn" }, t("create")),
  );
  if (draft.name !== undefined) { name.value = draft.name; name.dispatchEvent(new Event("input")); }
  short.checked = Boolean(draft.short);
  for (const [key, sel] of Object.entries(optionInputs)) if (draft.options?.[key] !== undefined) sel.value = draft.options[key];
  if (draft.first !== undefined && (draft.first === "random" || Number(draft.first) < count)) first.value = draft.first;
  limit.value = draft.limit ?? "";
  const keepDraft = () => {
    homeDraft = { count, specs: specs.map((x) => ({ ...x })), name: name.value, short: short.checked, first: first.value, limit: limit.value, moreOpen: more.open,
      options: Object.fromEntries(Object.entries(optionInputs).map(([key, sel]) => [key, sel.value])) };
  };
  form.addEventListener("input", keepDraft);
  more.addEventListener("toggle", keepDraft);
  form.addEventListener("change", keepDraft);
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const seats = [];
    for (let i = 0; i < count; i++) seats.push(i === 0 ? { kind: "human" } : (specs[i].kind === "bot" ? { kind: "bot", level: specs[i].level || "medium" } : { kind: "human" }));
    const options = {};
    if (short.checked) options.win_floors = 4;
    for (const [key, sel] of Object.entries(optionInputs)) options[key] = JSON.parse(sel.value);
    options.first_player = first.value === "random" ? "random" : Number(first.value);
    if (!name.value.trim()) { toast(t("name_required")); name.focus(); return; }
    if (limit.value.trim() !== "") {
      const n = Number(limit.value);
      if (!Number.isInteger(n) || n < 1 || n > TURN_LIMIT_MAX) { toast(t("opt_turn_limit_invalid", { max: TURN_LIMIT_MAX })); more.open = true; limit.focus(); return; }
      options.turn_limit = n;
    }
    try { localStorage.setItem("gotown.name", name.value.trim()); } catch (e) { /* ignore */ }
    try {
      const res = await api("POST", "/api/games", { seats, options, language: gameLang.value, name: name.value.trim() });
      homeDraft = null;
      tokens.set(res.game_id, res.token);
      history.pushState({}, "", "/g/" + res.game_id);
      render();
    } catch (err) { toast(errorText(err)); }
  });
  drawSeats();
  app.append(form, h("p", { class: "help" }, h("a", { href: "/rules/" + lang, id: "how-to", class: "tap" }, t("read_rules"))));
  name.focus();
}

/* ---------- join ---------- */
async function renderJoin(app, code) {
  let lobby;
  try { lobby = await api("GET", "/api/invitations/" + encodeURIComponent(code)); } catch (err) {
    app.append(h("p", { class: "panel" }, errorText(err))); return;
  }
  const mine = tokens.get(lobby.game_id);
  if (mine) { history.replaceState({}, "", "/g/" + lobby.game_id); render(); return; }
  const panel = h("form", { class: "panel", id: "join-form" });
  const name = h("input", { id: "join-name", required: true, maxlength: 24, autocomplete: "nickname" });
  try { name.value = localStorage.getItem("gotown.name") || ""; } catch (e) { /* ignore */ }
  requireName(name);
  const free = lobby.seats.filter((s) => !s.taken);
  const seatSel = h("select", { id: "join-seat" }, ...free.map((s) => h("option", { value: s.seat }, t("seat_n", { n: s.seat + 1 }))));
  panel.append(
    h("h1", {}, t("join_title")),
    h("ul", { class: "seats-list" }, ...lobby.seats.map((s) => h("li", {}, seatLabel(lobby, s.seat)))),
    free.length ? h("div", {},
      h("div", { class: "field" }, h("label", { for: "join-name" }, t("your_name")), name),
      h("div", { class: "field" }, h("label", { for: "join-seat" }, t("seat")), seatSel),
      h("button", { class: "primary", type: "submit", id: "join-btn" }, t("take_seat")),
    ) : h("p", {}, t("no_free_seat"), " ", h("a", { href: "/w/" + lobby.game_id }, t("watch"))),
  );
  panel.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    if (!name.value.trim()) { toast(t("name_required")); name.focus(); return; }
    try { localStorage.setItem("gotown.name", name.value.trim()); } catch (e) { /* ignore */ }
    try {
      const res = await api("POST", "/api/games/" + lobby.game_id + "/join", { code, name: name.value.trim(), seat: Number(seatSel.value) });
      tokens.set(res.game_id, res.token);
      history.pushState({}, "", "/g/" + res.game_id);
      render();
    } catch (err) { toast(errorText(err)); }
  });
  if (lobby.language && !chosenLang() && lobby.language !== lang) { await loadLang(lobby.language); render(); return; }
  app.append(panel);
  name.focus();
}

/* ---------- names and sentences ---------- */
function seatName(lobby, seat, viewer) {
  if (seat === null || seat === undefined) return "?";
  if (viewer !== null && viewer !== undefined && seat === viewer) return t("you");
  const s = lobby && lobby.seats[seat];
  if (!s) return t("seat_n", { n: seat + 1 });
  if (s.name) return s.name;
  if (s.kind === "bot") return t("bot_name", { n: seat + 1, level: t("level_" + s.level) });
  return t("seat_n", { n: seat + 1 });
}
function seatLabel(lobby, seat) {
  const s = lobby.seats[seat];
  const who = s.kind === "bot" ? t("bot_name", { n: seat + 1, level: t("level_" + s.level) })
    : (s.name ? s.name : t("free_seat"));
  return [h("span", { class: "dot" + (s.connected ? " on" : ""), title: s.connected ? t("online") : t("offline") }), t("seat_n", { n: seat + 1 }) + ": " + who];
}
function buildLabels(cards) {
  const label = (c, other) => (c === "?" && other !== "?" ? cardLabel("?") + " (" + (9 - Number(other)) + ")" : cardLabel(c));
  return { a: label(cards[0], cards[1]), b: label(cards[1], cards[0]) };
}
/* The log's line for an action; `aimed`: it was aimed at the viewer by someone else. */
function actionLine(a, state, actor) {
  const viewer = state.seat;
  const you = actor !== null && actor === viewer;
  const P = (s) => seatName(state.lobby, s, viewer);
  const target = a.target ?? null;
  const p = { actor: P(actor), target: P(target), card: a.card ? cardLabel(a.card) : "", n: (a.floor ?? 0) + 1 };
  if (a.type === "build") Object.assign(p, buildLabels(a.cards));
  if (a.type === "dog" && (target === null || target === actor)) return { text: t(you ? "log_dog_own_you" : "log_dog_own", p) };
  if (!you && target !== null && target === viewer) return { text: t("log_" + a.type + "_tyou", p), aimed: true };
  return { text: t("log_" + a.type + (you ? "_you" : ""), p) };
}
function actionText(a, state, actor) {
  return actionLine(a, state, actor).text;
}
function buttonText(a, state) {
  const P = (s) => seatName(state.lobby, s, state.seat);
  const p = { target: P(a.target), card: a.card ? cardLabel(a.card) : "", n: (a.floor ?? 0) + 1 };
  if (a.type === "build") Object.assign(p, buildLabels(a.cards));
  if (a.type === "dog" && a.target !== undefined && a.target !== null && a.target !== state.seat) return t("btn_dog_other", p);
  return t("btn_" + a.type, p);
}
function eventLines(events, state) {
  const viewer = state.seat;
  const P = (s) => seatName(state.lobby, s, viewer);
  const lines = [];
  for (let i = 0; i < events.length; i++) {
    const e = events[i];
    if (e.type === "turn") {
      lines.push({ cls: "turn", say: e.extra, text: t(e.extra ? "log_turn_extra" : "log_turn", { turn: e.turn, actor: P(e.seat) }) });
    } else if (e.type === "draw") {
      if (e.card) { lines.push({ own: true, text: t("log_draw_you", { card: cardLabel(e.card) }) }); continue; }
      // Another seat's draws in a row (a refill): one line, "Bob drew 2 cards."
      let count = 1;
      while (i + 1 < events.length && events[i + 1].type === "draw" && events[i + 1].seat === e.seat && !events[i + 1].card) { i++; count++; }
      lines.push({ text: count === 1 ? t("log_draw", { actor: P(e.seat) }) : t("log_draw_n", { actor: P(e.seat), count }) });
    } else if (e.type === "milkshake-turn") {
      lines.push({ text: t(e.seat === viewer ? "log_milkshake_turn_you" : "log_milkshake_turn", { actor: P(e.seat) }) });
    } else if (e.type === "action") {
      const a = e.action;
      if (a.type === "thief" || a.type === "super-thief") {
        const stolen = [];
        while (i + 1 < events.length && events[i + 1].type === "stolen") stolen.push(events[++i]);
        if (!stolen.length) { lines.push(actionLine(a, state, e.seat)); continue; }
        for (const s of stolen) {
          const k = "_" + a.type;
          if (s.seat === viewer && s.card) lines.push({ text: t("log_stolen_by_you" + k, { card: cardLabel(s.card), victim: P(s.victim) }) });
          else if (s.victim === viewer && s.card) lines.push({ text: t("log_stolen_from_you" + k, { actor: P(s.seat), card: cardLabel(s.card) }), aimed: true });
          else lines.push({ text: t("log_stolen" + k, { actor: P(s.seat), victim: P(s.victim) }) });
        }
      } else if (a.type === "end-turn") {
        lines.push({ text: t(e.seat === viewer ? "log_end-turn_you" : "log_end-turn", { actor: P(e.seat) }) });
      } else {
        lines.push(actionLine(a, state, e.seat));
      }
    } else if (e.type === "stolen") {
      lines.push({ text: t("log_stolen_thief", { actor: P(e.seat), victim: P(e.victim) }) });
    } else if (e.type === "reshuffle") {
      lines.push({ text: t("log_reshuffle", { count: e.count ?? e.cards ?? "" }) });
    } else if (e.type === "end") {
      const nobody = e.reason === "turn-limit" ? t("log_end_turn_limit") : t("log_end_nowinner");
      lines.push({ cls: "turn", say: true, text: e.winner === null ? nobody : t(e.winner === viewer ? "log_end_you" : "log_end", { actor: P(e.winner) }) });
    }
  }
  return lines;
}

/* How the game ended: "win" or "turn-limit" (the end event says; an older view without it:
   no winner at the turn limit). */
function endReason(v) {
  const end = (v.events || []).filter((e) => e.type === "end").pop();
  if (end && end.reason) return end.reason;
  if (v.winner !== null) return "win";
  const limit = v.options && v.options.turn_limit;
  return limit && v.turn >= limit ? "turn-limit" : null;
}
/* How many turns in a row, up to the one under way, held nothing but their end: no card drawn
   or played (public events only; as the engine's View.frozen_turns). */
function frozenTurns(events) {
  let i = events.length - 1;
  if (i >= 0 && events[i].type === "turn") i -= 1;
  let count = 0;
  while (i >= 0) {
    const a = events[i].action;
    if (!a || a.type !== "end-turn" || (i > 0 && events[i - 1].type !== "turn")) break;
    count += 1;
    i -= 2;
  }
  return count;
}
function outcomeText(v, lobby, me) {
  if (v.winner !== null && v.winner !== undefined) return v.winner === me ? t("you_won") : t("winner_is", { actor: seatName(lobby, v.winner, me) });
  return endReason(v) === "turn-limit" ? t("over_turn_limit") : t("over_nowinner");
}
function chosenLimit(options) {
  const limit = options && options.turn_limit;
  return limit && limit !== TURN_LIMIT_NONE ? limit : null;
}
function turnText(v) {
  const limit = chosenLimit(v.options);
  return limit ? t("turn_n_of", { n: v.turn, limit }) : t("turn_n", { n: v.turn });
}
/* The game's R23 options in words, folded: the table shows what was agreed. */
function optionsSummary(options, lobby) {
  const o = options || {};
  const rows = [];
  if (o.win_floors !== undefined) rows.push([t("opt_win_floors_n"), String(o.win_floors)]);
  for (const [key, values] of Object.entries(OPTIONS)) {
    if (key === "win_floors" || o[key] === undefined) continue;
    const known = values.some((v) => String(v) === String(o[key]));
    rows.push([t("opt_" + key), known ? t("opt_" + key + "_" + String(o[key])) : String(o[key])]);
  }
  if (o.first_player !== undefined) {
    rows.push([t("opt_first_player"), o.first_player === "random" || o.first_player === null ? t("opt_first_player_random") : seatName(lobby, Number(o.first_player), null)]);
  }
  if ("turn_limit" in o) rows.push([t("opt_turn_limit"), chosenLimit(o) ? String(o.turn_limit) : t("opt_turn_limit_none")]);
  return h("details", { class: "game-options", id: "game-options" }, h("summary", {}, t("options")),
    h("dl", {}, ...rows.map(([k, v]) => [h("dt", {}, k), h("dd", {}, v)])));
}

/* ---------- the table ---------- */
function showOffline(lost) {
  let el = document.getElementById("offline");
  if (!lost) { if (el) el.remove(); return; }
  if (!el) { el = h("div", { id: "offline", role: "status" }); document.body.prepend(el); }
  el.textContent = t("reconnecting");
}
/* A card of the hand. A number card shows its number and colour only ("floor card" is in its
   label for screen readers); the joker and the special cards show their name, which may break
   at its soft hyphens. */
function cardEl(code, extra = {}) {
  const isNum = NUMBERS.includes(code) || code === "?";
  return h("span", { class: "card " + cardClass(code) + (isNum ? "" : " special"), "aria-label": NUMBERS.includes(code) ? cardName(code) + " " + code : plain(cardLabel(code)), ...extra },
    isNum ? h("span", { class: "num", "aria-hidden": "true" }, code) : null,
    NUMBERS.includes(code) ? null : h("span", { class: "name" }, cardLabel(code)));
}
function miniCard(code, value) {
  const label = code === "?" ? "?=" + value : code;
  return h("span", { class: "mini " + cardClass(code), title: code === "?" ? t("joker_value", { n: value }) : cardName(code) }, label);
}
function towerEl(tower, prevFloors, seat, view) {
  // A list of floors, each read as one sentence ("Floor 2: 1 + Joker worth 8, Guard dog"),
  // not as the small cards one by one.
  const el = h("div", { class: "tower", role: tower.length ? "list" : null, "aria-label": t("tower") });
  tower.forEach((floor, i) => {
    const { cards, dogs, values } = floorValues(floor);
    const said = t("floor_n", { n: i + 1 }) + ": " + cards.map((c, k) => (c === "?" ? t("joker_value", { n: values[k] }) : c)).join(" + ")
      + (dogs ? ", " + plain(t("card_dog")) + (dogs > 1 ? " ×" + dogs : "") : "");
    const f = h("div", { class: "floor" + (i === tower.length - 1 ? " top" : "") + (i >= prevFloors ? " new" : ""), "data-floor": i, role: "listitem" },
      h("span", { class: "sr-only" }, said),
      h("span", { class: "badge", title: t("floor_n", { n: i + 1 }), "aria-hidden": "true" }, i + 1),
      ...cards.map((c, k) => { const m = miniCard(c, values[k]); m.setAttribute("aria-hidden", "true"); return m; }),
      ...Array.from({ length: dogs }, () => h("span", { class: "mini cspecial dogmark", title: cardName("dog"), "aria-hidden": "true" }, t("card_dog"))));
    el.append(f);
  });
  if (!tower.length) el.append(h("div", { class: "help" }, t("no_floor")));
  return el;
}
function usesOf(a) {
  switch (a.type) {
    case "build": return [...a.cards];
    case "steal": return [a.card];
    case "end-turn": return [];
    default: return [a.type === "dog" ? "dog" : a.type];
  }
}
function contains(big, small) {
  const rest = [...big];
  for (const c of small) { const k = rest.indexOf(c); if (k < 0) return false; rest.splice(k, 1); }
  return true;
}

const table = {
  app: null, gameId: null, token: null, spectator: false, ws: null, state: null,
  selected: [], hints: null, prevFloors: {}, retry: 0, closed: false, busy: false,
  chances: null, chancesAsked: -1, chancesBusy: false, chancesFailed: false, chancesRetry: null, chancesDelay: 0,
  wasMyTurn: false, replay: false, logKeep: null, handoverAt: {}, ticker: null,
  resyncing: false, gapped: null, resumed: false, noResume: false,

  open(app, gameId, spectator) {
    this.close();
    this.app = app; this.gameId = gameId; this.spectator = spectator; this.closed = false;
    this.selected = []; this.hints = null; this.prevFloors = {}; this.state = null;
    this.chances = null; this.chancesAsked = -1; this.wasMyTurn = false;
    this.chancesFailed = false; this.chancesDelay = 0; this.logKeep = null; this.handoverAt = {};
    this.resyncing = false; this.gapped = null; this.resumed = false; this.noResume = false;
    this.heard = null; this.heardStatus = null;
    this.ticker = setInterval(() => this.tickAway(), 1000);
    const m = location.hash.match(/t=([A-Za-z0-9_-]+)/);
    if (m && !spectator) { tokens.set(gameId, m[1]); history.replaceState({}, "", location.pathname); }
    this.token = spectator ? null : tokens.get(gameId);
    if (!spectator && !this.token) {
      // No seat here: offer to watch, if there is such a game at all.
      const panel = h("div", { class: "panel", id: "no-seat" }, h("p", {}, t("connecting")));
      app.append(panel);
      api("GET", "/api/games/" + encodeURIComponent(gameId) + "/state").then(
        () => panel.replaceChildren(h("p", {}, t("no_token")), h("a", { href: "/w/" + gameId }, t("watch"))),
        (err) => panel.replaceChildren(h("p", {}, errorText(err)), h("a", { href: "/" }, t("new_game"))));
      return;
    }
    app.append(h("p", { class: "loading" }, t("connecting")));
    this.connect();
  },
  close() {
    this.closed = true;
    if (this.ws) { try { this.ws.close(); } catch (e) { /* ignore */ } this.ws = null; }
    clearInterval(this.ticker); this.ticker = null;
    clearTimeout(this.chancesRetry); this.chancesRetry = null;
    document.title = "GoTown";
  },
  connect() {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    const ws = new WebSocket(proto + "//" + location.host + "/ws/games/" + this.gameId);
    this.ws = ws;
    ws.onopen = () => {
      this.retry = 0;
      // Back after a lost connection: only the events this page does not hold yet.
      const held = this.heldEvents();
      this.resumed = held > 0 && !this.noResume;
      ws.send(JSON.stringify(this.resumed ? { token: this.token, events_from: held } : { token: this.token }));
    };
    ws.onmessage = (msg) => {
      const data = JSON.parse(msg.data);
      if (data.type === "state") this.update(data.state);
      else if (data.type === "error") { toast(errorText(data.error)); if (!this.state) this.app.replaceChildren(h("p", { class: "panel" }, errorText(data.error))); }
    };
    ws.onclose = (ev) => {
      if (this.closed || this.ws !== ws) return;
      // A resume the server refused (it never should): connect again for every event.
      if (ev.code === 4422 && this.resumed) { this.noResume = true; this.connect(); return; }
      if (ev.code >= 4400 && ev.code < 4500) return;
      const delay = Math.min(8000, 500 * 2 ** this.retry++);
      document.body.dataset.connection = "lost";
      showOffline(true);
      setTimeout(() => { if (!this.closed && this.ws === ws) this.connect(); }, delay);
    };
  },
  /* How many of the game's events this page holds (the whole list, from the first). */
  heldEvents() {
    return this.state && this.state.view ? (this.state.view.events || []).length : 0;
  },
  /* A state may hold only the events from `events_from` on (the socket sends each event once,
     and an action's answer those after the ones the page holds): joined here to the events
     held before, so that everything that reads view.events (the log, the messages aimed at
     this seat, frozenTurns, endReason) sees every event. Events never change once made, so
     the ones held up to `events_from` are the state's own. A state that starts after the
     events held (a gap) is not shown: the whole state is asked for instead (resync). */
  update(state) {
    if (this.state && state.version < this.state.version && state.status === this.state.status) return;
    if (state.view && state.events_from > 0) {
      const held = this.state && this.state.view ? this.state.view.events || [] : [];
      if (held.length < state.events_from) { this.resync(state); return; }
      state = { ...state, events_from: 0, view: { ...state.view, events: held.slice(0, state.events_from).concat(state.view.events) } };
    }
    const versionChanged = !this.state || state.version !== this.state.version;
    if (this.state && this.state.view) {
      this.state.view.towers.forEach((tw, s) => { this.prevFloors[s] = tw.length; });
    }
    const before = this.state;
    this.state = state;
    // Seconds until an away seat may be handed to a bot: counted down here (tickAway).
    const now = performance.now();
    this.handoverAt = {};
    for (const s of state.lobby.seats) {
      if (Number.isFinite(s.handover_in)) this.handoverAt[s.seat] = now + s.handover_in * 1000;
    }
    if (versionChanged && before) this.tellAimed(before, state);
    document.body.dataset.connection = "ok";
    showOffline(false);
    document.body.dataset.version = String(state.version);
    if (versionChanged) { this.selected = []; this.hints = null; }
    this.maybeAskChances();
    if (!chosenLang() && state.lobby.language && state.lobby.language !== lang) {
      loadLang(state.lobby.language).then(() => this.draw());
      return;
    }
    this.draw();
  },
  /* The whole state, every event in it, for a state that could not be joined to the events
     held (`gapped`); a newer one that could not either, arrived meanwhile, is tried once the
     whole state is in, and asks again if it still does not join. */
  async resync(gapped) {
    if (!this.gapped || gapped.version >= this.gapped.version) this.gapped = gapped;
    if (this.resyncing) return;
    this.resyncing = true;
    const gameId = this.gameId;
    let full = null;
    try {
      full = await api("GET", "/api/games/" + gameId + "/state", undefined, this.token);
    } catch (err) {
      toast(errorText(err));
    } finally { this.resyncing = false; }
    if (this.closed || gameId !== this.gameId) return;
    const later = this.gapped;
    this.gapped = null;
    if (full) this.update(full);
    if (full && later && later.version > full.version) this.update(later);
  },
  /* The win-probability bar (a per-device choice): asked on this seat's turn and after it. */
  chancesOn() {
    try { return localStorage.getItem("gotown.chances") === "1"; } catch (e) { return false; }
  },
  setChances(on) {
    try { localStorage.setItem("gotown.chances", on ? "1" : "0"); } catch (e) { /* private mode */ }
    if (on) { this.chancesAsked = -1; this.maybeAskChances(); }
    this.draw();
  },
  /* A move aimed at this seat by someone else (a card stolen, a floor knocked down, a
     milkshake...) is told at once, not only in the log at the foot of a phone's page. */
  tellAimed(before, state) {
    if (this.replay || state.seat === null || !before.view || !state.view) return;
    const old = before.view.events || [], now = state.view.events || [];
    if (now.length <= old.length) return;
    const lines = eventLines(now.slice(old.length), state).filter((l) => l.aimed);
    if (lines.length) toast(lines.slice(-3).map((l) => l.text).join(" "), true);
  },
  handoverLeft(seat) {
    const at = this.handoverAt[seat];
    return at === undefined ? 0 : Math.max(0, Math.ceil((at - performance.now()) / 1000));
  },
  awayText(seat) {
    const left = this.handoverLeft(seat);
    const st = this.state;
    return left > 0 && st && st.seat !== null && st.seat !== seat ? t("away_bot_in", { n: left }) : t("away");
  },
  /* Every second: the away seats' countdowns, and their hand-over buttons once allowed. */
  tickAway() {
    if (!this.app || !this.state) return;
    for (const el of this.app.querySelectorAll("[data-away-seat]")) el.textContent = this.awayText(Number(el.dataset.awaySeat));
    for (const el of this.app.querySelectorAll("button[data-bot-seat]")) el.disabled = this.handoverLeft(Number(el.dataset.botSeat)) > 0;
  },
  maybeAskChances() {
    const st = this.state;
    if (!st || this.replay || this.spectator || st.seat === null || !st.view || st.view.over) return;
    const mine = st.view.active === st.seat;
    const justEnded = this.wasMyTurn && !mine;
    this.wasMyTurn = mine;
    if (!this.chancesOn() || this.chancesBusy) return;
    if (!(mine || justEnded || this.chancesAsked < 0)) return;
    if (this.chancesAsked === st.version) return;
    this.askChances(st.version);
  },
  async askChances(version) {
    this.chancesAsked = version;
    this.chancesBusy = true;
    clearTimeout(this.chancesRetry); this.chancesRetry = null;
    const gameId = this.gameId;
    let failed = false;
    try {
      const res = await api("GET", "/api/games/" + gameId + "/chances", undefined, this.token);
      if (gameId !== this.gameId) return;
      this.chances = res;
      this.chancesFailed = false; this.chancesDelay = 0;
    } catch (err) {
      // The bar is a nicety: say it is unavailable, and ask again at the next state, when the
      // socket comes back, or after a while (2 s, doubling up to a minute).
      failed = true;
      if (gameId !== this.gameId) return;
      this.chancesAsked = -1;
      this.chancesFailed = true;
      this.chancesDelay = Math.min(60000, this.chancesDelay ? this.chancesDelay * 2 : 2000);
      if (!this.closed) this.chancesRetry = setTimeout(() => { this.chancesRetry = null; this.maybeAskChances(); }, this.chancesDelay);
    } finally { this.chancesBusy = false; }
    if (!failed && this.state && this.state.version !== version && this.state.view && this.state.view.active === this.state.seat) this.askChances(this.state.version);
    else if (this.state && !this.closed) this.draw();
  },
  chancesPanel(st) {
    const on = this.chancesOn();
    const box = h("input", { type: "checkbox", id: "chances-toggle", checked: on, onchange: (ev) => this.setChances(ev.target.checked) });
    const row = h("div", { class: "panel chances" }, h("div", { class: "row" }, box, h("label", { for: "chances-toggle" }, t("chances_toggle"))));
    if (!on) return row;
    const c = this.chances;
    if (c && c.basis === "none") return row;
    if (this.chancesFailed && (!c || c.win_probability === null || c.win_probability === undefined)) {
      row.append(h("p", { class: "help", id: "chances-unavailable" }, t("chances_unavailable")));
      return row;
    }
    if (!c || c.win_probability === null || c.win_probability === undefined) {
      row.append(h("p", { class: "help", id: "chances-wait" }, t("chances_computing")));
      return row;
    }
    const pct = Math.round(c.win_probability * 100);
    row.append(h("div", { class: "field", id: "chances" }, h("span", { id: "chances-text" }, t("win_chance", { p: pct })),
      h("div", { class: "bar", role: "meter", "aria-valuemin": 0, "aria-valuemax": 100, "aria-valuenow": pct, "aria-label": t("win_chance", { p: pct }) }, h("div", { style: "width:" + pct + "%" }))));
    return row;
  },
  async act(action) {
    if (this.busy) return;
    this.busy = true;
    try {
      const body = { version: this.state.version, action, events_from: this.heldEvents() };
      const st = await api("POST", "/api/games/" + this.gameId + "/actions", body, this.token);
      this.update(st);
    } catch (err) {
      toast(errorText(err));
    } finally { this.busy = false; }
  },
  draw() {
    const st = this.state;
    const app = this.app;
    const focusId = document.activeElement && document.activeElement.id;
    // The log keeps the reader's place, unless they were at (or near) its end.
    const oldLog = app.querySelector("#log");
    this.logKeep = oldLog ? { top: oldLog.scrollTop, atEnd: oldLog.scrollHeight - oldLog.scrollTop - oldLog.clientHeight < 24 } : null;
    app.replaceChildren();
    if (st.status === "lobby") this.drawLobby(app, st);
    else this.drawGame(app, st);
    const v = st.view;
    const myTurn = v && !v.over && st.seat !== null && v.active === st.seat && st.lobby.seats[st.seat].kind === "human";
    document.title = myTurn ? "● " + t("your_turn") + " – GoTown" : "GoTown";
    if (focusId) {
      const el = document.getElementById(focusId)
        || (/^(card-|act-|end-turn|hint)/.test(focusId) && (document.querySelector('#hand .card[aria-disabled="false"]') || document.getElementById("end-turn")));
      if (el) el.focus();
    }
  },
  /* Screen readers: the log's new lines (what the others did) and the status when it changes
     ("Your turn"), in the page's one lasting live region. */
  announce(lines, statusText) {
    const fresh = this.heard === null || this.heard > lines.length ? []
      : lines.slice(this.heard).filter((l) => (l.cls !== "turn" || l.say) && !l.aimed).map((l) => l.text);
    this.heard = lines.length;
    if (statusText !== this.heardStatus) { fresh.push(statusText); this.heardStatus = statusText; }
    const el = document.getElementById("announce");
    if (el && fresh.length) el.textContent = fresh.join(" ");
  },
  drawLobby(app, st) {
    const lobby = st.lobby;
    const mySeat = st.seat;
    const seats = h("ul", { class: "seats-list", id: "lobby-seats" }, ...lobby.seats.map((s) => h("li", {}, seatLabel(lobby, s.seat),
      !s.taken && mySeat !== null ? h("button", { class: "fill-bot", onclick: () => this.handToBot(s.seat) }, t("give_to_bot")) : null)));
    app.append(h("section", { class: "panel" },
      h("h1", {}, t("waiting_title")),
      h("p", {}, t("waiting_help")),
      !lobby.invite_url ? null : h("div", { class: "invite" },
        h("img", { src: "/api/invitations/" + encodeURIComponent(lobby.invite_url.split("/j/").pop()) + "/qr.svg", alt: t("qr_alt"), id: "qr" }),
        h("div", {},
          h("p", {}, h("strong", {}, t("invitation_link"))),
          h("p", {}, h("code", { id: "invite-url" }, lobby.invite_url)),
          h("div", { class: "row" },
            h("button", { id: "copy-invite", type: "button", onclick: () => copyText(lobby.invite_url, document.getElementById("invite-url")) }, t("copy")),
            navigator.share ? h("button", { id: "share-invite", type: "button", onclick: () => navigator.share({ title: "GoTown", text: t("share_text"), url: lobby.invite_url }).catch(() => { /* dismissed */ }) }, t("share")) : null),
          h("p", { class: "help" }, t("watch_link"), " ", h("a", { href: lobby.watch_url }, lobby.watch_url)),
          /^https?:\/\/(localhost|127\.|\[::1\])/.test(lobby.invite_url) ? h("p", { class: "warn", id: "localhost-warning" }, t("localhost_warning")) : null)),
      h("h2", {}, t("seats")), seats, optionsSummary(lobby.options, lobby)));
  },
  async handToBot(seat) {
    try { await api("POST", "/api/games/" + this.gameId + "/seats/" + seat + "/bot", { level: "medium" }, this.token); } catch (err) { toast(errorText(err)); }
  },
  drawGame(app, st) {
    const v = st.view;
    const lobby = st.lobby;
    const me = st.seat;
    // A replay shows a past turn: it is nobody's to play now, the viewer's included.
    const mine = v.active === me && !v.over && !this.replay;
    // (Not a live region itself: the table is rebuilt at every change, and a region that is
    // replaced is not reliably read out. #announce, which stays, says what changed.)
    const status = h("div", { class: "status" + (mine ? " mine" : ""), id: "status" });
    // At the end the status says so, and the end panel says how (once).
    if (v.over) status.textContent = t("game_over");
    else status.textContent = mine ? t("your_turn") : t("turn_of", { actor: seatName(lobby, v.active, null) });
    const left = h("section", { class: "left", "aria-label": t("table") });
    const right = h("aside", { "aria-label": t("log") });
    left.append(status);
    // On a phone the log is far below: the last thing that happened stands under the status.
    const lines = eventLines(v.events, st);
    const last = [...lines].reverse().find((l) => l.cls !== "turn" && !l.own);
    if (last && !v.over) left.append(h("p", { class: "lastmove", id: "last-move" }, last.text));
    if (this.spectator && !v.over) left.append(h("p", { class: "help", id: "watching" }, t("watching_notice")));
    if (v.over) left.append(this.endPanel(st));
    if (me !== null && lobby.seats[me].kind === "bot" && !v.over) {
      left.append(h("div", { class: "panel" }, t("bot_plays_you"), " ", h("button", { id: "reclaim", onclick: () => api("POST", "/api/games/" + this.gameId + "/reclaim", {}, this.token).catch((e) => toast(errorText(e))) }, t("reclaim"))));
    }
    // Two whole rounds of nothing but ended turns: say that a game can get stuck for good (the
    // page cannot tell whether it is: that depends on hands it does not see). Not to a player
    // who can play now: for them the game is plainly not stuck.
    const still = v.over ? 0 : frozenTurns(v.events || []);
    const canPlay = (st.legal || []).some((a) => a.type !== "end-turn");
    if (still >= 2 * v.players && !canPlay) left.append(h("p", { class: "warn", id: "stuck-notice", role: "note" }, t("stuck_notice", { turns: still })));
    // towers
    const towers = h("div", { class: "towers", id: "towers" });
    for (let s = 0; s < v.players; s++) {
      const seatInfo = lobby.seats[s];
      const away = seatInfo.kind === "human" && !seatInfo.connected;
      const info = h("div", { class: "seatinfo" },
        h("span", { class: "hand-size" }, t("hand_size") + ": " + v.hand_sizes[s]),
        h("span", {}, t("floors") + ": " + v.towers[s].length + "/" + v.options.win_floors),
        v.milkshakes[s] ? h("span", { class: "badge milk" }, t("pending_milkshakes") + ": " + v.milkshakes[s]) : null,
        // A person's seat that a bot plays for now (handed over while they were away).
        seatInfo.kind === "bot" && seatInfo.name && !v.over ? h("span", { class: "badge standin", "data-standin-seat": s }, t("bot_stands_in", { level: t("level_" + seatInfo.level) })) : null,
        away ? h("span", { class: "away", "data-away-seat": v.over ? null : s }, v.over ? t("away") : this.awayText(s)) : null);
      const name = seatName(lobby, s, null);
      const box = h("div", { class: "seatbox" + (s === v.active && !v.over ? " active" : "") + (s === me ? " me" : ""), "data-seat": s },
        h("div", { class: "seathead" },
          h("span", { class: "who" }, h("span", { class: "seatname", title: name }, name), s === me ? h("span", {}, "(" + t("you") + ")") : null),
          s === v.active && !v.over ? h("span", { class: "badge" }, t("active")) : null),
        info,
        towerEl(v.towers[s], this.prevFloors[s] ?? v.towers[s].length, s, v),
        me !== null && s !== me && away && !v.over && !this.replay
          ? h("button", { class: "fill-bot", "data-bot-seat": s, disabled: this.handoverLeft(s) > 0, onclick: () => this.handToBot(s) }, t("give_to_bot")) : null);
      towers.append(box);
    }
    left.append(towers);
    // piles
    const discard = h("details", { id: "discard", open: Boolean(this.discardOpen), ontoggle: (ev) => { this.discardOpen = ev.target.open; } }, h("summary", {}, t("discard_pile") + ": " + v.discard.length),
      h("div", { class: "row" }, ...(v.discard.length ? [...v.discard].reverse().map((c) => miniCard(c, "?")) : [t("empty")])));
    const options = optionsSummary(v.options, lobby);
    options.open = Boolean(this.optionsOpen);
    options.addEventListener("toggle", () => { this.optionsOpen = options.open; });
    left.append(h("div", { class: "pile" },
      h("span", { id: "turn", class: "turn-count" }, turnText(v)),
      h("span", { id: "draw-size" }, t("draw_pile") + ": " + v.draw_size), discard,
      v.donut ? h("span", { class: "donut", id: "donut" }, t("donut_on_table")) : null, options));
    // hand and actions
    if (me !== null) left.append(this.handPanel(st));
    if (me !== null && !v.over && !this.replay && !this.spectator) left.append(this.chancesPanel(st));
    // log
    const log = h("ul", { class: "log", id: "log" }, ...lines.map((l) => h("li", { class: l.cls || "" }, l.text)));
    if (!this.replay) this.announce(lines, status.textContent);
    right.append(h("div", { class: "panel" }, h("h2", {}, t("log")), log));
    right.append(h("p", { class: "help" }, t("game_id") + " " + st.game_id + " · v" + st.version));
    app.append(h("div", { class: "table" }, left, right));
    const keep = this.logKeep;
    log.scrollTop = keep && !keep.atEnd ? keep.top : log.scrollHeight;
  },
  handPanel(st) {
    const v = st.view;
    const legal = st.legal;
    const hand = v.hand || [];
    const panel = h("section", { class: "panel", id: "hand-panel" }, h("h2", {}, t("your_hand")));
    const usable = new Set(legal.flatMap(usesOf));
    const handEl = h("div", { class: "hand", id: "hand", role: "group", "aria-label": t("your_hand") });
    hand.forEach((code, i) => {
      const pressed = this.selected.includes(i);
      const playable = legal.length > 0 && usable.has(code);
      const dim = legal.length > 0 && !playable;
      // A greyed card can still be tapped (or reached with the keyboard): it says what it
      // does, so that the player learns why it cannot be played now.
      const use = () => (playable ? this.toggle(i) : toast(useText(code, v.options), true));
      handEl.append(cardEl(code, {
        role: "button", tabindex: legal.length > 0 ? "0" : "-1", id: "card-" + i, "data-card": code,
        "aria-pressed": pressed ? "true" : "false", "aria-disabled": playable ? "false" : "true",
        class: "card " + cardClass(code) + (NUMBERS.includes(code) || code === "?" ? "" : " special") + (dim ? " dim" : ""),
        onclick: () => legal.length > 0 && use(),
        onkeydown: (ev) => { if (legal.length > 0 && (ev.key === "Enter" || ev.key === " ")) { ev.preventDefault(); use(); } },
      }));
    });
    if (!hand.length) handEl.append(h("span", { class: "help" }, t("empty_hand")));
    panel.append(handEl);
    if (v.over) return panel;
    if (!legal.length) {
      if (!this.replay) panel.append(h("p", { class: "help" }, t("wait_turn")));
      return panel;
    }
    const sel = this.selected.map((i) => hand[i]);
    const actions = h("div", { class: "actions", id: "actions" });
    const matching = sel.length ? legal.filter((a) => a.type !== "end-turn" && contains(usesOf(a), sel)) : [];
    const order = { build: 0, steal: 1 };
    matching.sort((a, b) => (order[a.type] ?? 2) - (order[b.type] ?? 2));
    const hintKeys = new Set((this.hints || []).slice(0, 1).map((x) => JSON.stringify(x.action)));
    const suggested = matching.findIndex((a) => hintKeys.has(JSON.stringify(a)));
    const main = suggested >= 0 ? suggested : 0;  // the suggested move, when it is one of them
    // The main (filled) button is the first move the selected cards make; ending the turn,
    // which cannot be taken back, is the main one only when nothing else can be done.
    matching.forEach((a, k) => {
      actions.append(h("button", { class: "act" + (k === main ? " primary" : "") + (hintKeys.has(JSON.stringify(a)) ? " suggested" : ""), id: "act-" + k, "data-type": a.type, onclick: () => this.act(a) }, buttonText(a, st)));
    });
    const endTurn = legal.find((a) => a.type === "end-turn");
    const onlyEnd = legal.length === 1;
    if (endTurn) actions.append(h("button", { class: "act" + (onlyEnd ? " primary" : "") + (hintKeys.has(JSON.stringify(endTurn)) ? " suggested" : ""), id: "end-turn", "data-type": "end-turn", onclick: () => this.act(endTurn) }, t("btn_end-turn")));
    // Two numbers that are no floor: say the sum, and what a floor needs (R5).
    const sum = sel.length === 2 && sel.every((c) => NUMBERS.includes(c)) ? Number(sel[0]) + Number(sel[1]) : null;
    const nothing = sum !== null && sum !== 9 ? t("no_floor_sum", { a: sel[0], b: sel[1], sum }) : t("no_action_for_selection");
    panel.append(h("p", { class: "help", id: "select-help" }, sel.length ? (matching.length ? t("pick_action") : nothing) : t("select_cards")), actions);
    // hint and chances
    const hintRow = h("div", { class: "row" }, h("button", { id: "hint", onclick: () => this.hint() }, t("hint")));
    if (this.hints && this.hints.length) {
      const best = this.hints[0];
      const pct = Math.round(best.win_probability * 100);
      hintRow.append(h("span", { id: "hint-text" }, t("hint_says", { action: buttonText(best.action, st) })));
      // The chances of the suggested move (the chances panel's bar, when shown, is the
      // position's): said apart, so that two bars do not read as one number twice.
      panel.append(hintRow, h("div", { class: "field", id: "hint-chance" }, h("span", {}, t("hint_chance", { p: pct })),
        h("div", { class: "bar", role: "meter", "aria-valuemin": 0, "aria-valuemax": 100, "aria-valuenow": pct, "aria-label": t("hint_chance", { p: pct }) }, h("div", { style: "width:" + pct + "%" }))));
    } else panel.append(hintRow);
    return panel;
  },
  toggle(i) {
    const k = this.selected.indexOf(i);
    if (k >= 0) this.selected.splice(k, 1); else this.selected.push(i);
    this.draw();
    const el = document.getElementById("card-" + i); if (el) el.focus();
  },
  async hint() {
    try {
      const res = await api("GET", "/api/games/" + this.gameId + "/hint", undefined, this.token);
      if (res.version !== this.state.version) return;
      this.hints = res.hints;
      if (res.hints.length) {
        const a = res.hints[0].action;
        const uses = usesOf(a);
        const hand = [...this.state.view.hand];
        this.selected = [];
        for (const c of uses) { const i = hand.findIndex((x, j) => x === c && !this.selected.includes(j)); if (i >= 0) this.selected.push(i); }
      }
      this.draw();
    } catch (err) { toast(errorText(err)); }
  },
  endPanel(st) {
    const lobby = st.lobby;
    const w = st.view.winner;
    const box = h("div", { class: "winner" + (w === null ? " nowinner" : ""), id: "winner" }, outcomeText(st.view, lobby, st.seat));
    const row = h("div", { class: "row" }, h("a", { href: "/r/" + this.gameId, id: "replay-link", class: "button" }, t("replay")));
    if (st.seat !== null) {
      row.prepend(h("button", { class: "primary", id: "rematch", onclick: async () => {
        // This browser joined the rematch already (another tab, or back from it): go there.
        if (lobby.rematch_id && tokens.get(lobby.rematch_id)) {
          history.pushState({}, "", "/g/" + lobby.rematch_id);
          render();
          return;
        }
        try {
          const res = await api("POST", "/api/games/" + this.gameId + "/rematch", {}, this.token);
          tokens.set(res.game_id, res.token);
          history.pushState({}, "", "/g/" + res.game_id);
          render();
        } catch (err) { toast(errorText(err)); }
      } }, lobby.rematch_id ? t("join_rematch") : t("rematch")));
    }
    return h("div", { class: "panel endpanel" }, box, row);
  },
};

/* ---------- replay ---------- */
async function renderReplay(app, gameId) {
  const token = tokens.get(gameId);
  let usePrivate = Boolean(token);
  let data; let lobby;
  const load = async () => {
    data = await api("GET", "/api/games/" + gameId + "/replay", undefined, usePrivate ? token : null);
    lobby = await api("GET", "/api/games/" + gameId + "/lobby");
    lobby.seats.forEach((s) => { s.connected = true; });
  };
  try { await load(); } catch (err) { app.append(h("p", { class: "panel" }, errorText(err))); return; }
  let step = 0;
  const slider = h("input", { type: "range", min: 0, max: data.frames.length - 1, value: 0, id: "replay-slider", "aria-label": t("step") });
  const stage = h("div", { id: "replay-stage" });
  const counter = h("span", { id: "replay-step" });
  let timer = null;
  function show() {
    const frame = data.frames[step];
    const events = data.frames.slice(0, step + 1).flatMap((f) => f.view.events);
    const view = { ...frame.view, events };
    const st = { seat: data.seat, lobby, view, legal: [], version: frame.version, status: "over", game_id: gameId };
    counter.textContent = t("step_of", { i: step, n: data.frames.length - 1 });
    slider.value = String(step);
    const fake = Object.create(table);
    fake.state = st; fake.prevFloors = {}; fake.selected = []; fake.hints = null; fake.gameId = gameId; fake.replay = true;
    fake.logKeep = null; fake.handoverAt = {};
    const holder = h("div", {});
    fake.app = holder;
    fake.drawGame(holder, { ...st, view: { ...view, over: step === data.frames.length - 1 && frame.view.over } });
    stage.replaceChildren(holder);
    const log = stage.querySelector("#log");
    if (log) log.scrollTop = log.scrollHeight;
  }
  const go = (n) => { step = Math.max(0, Math.min(data.frames.length - 1, n)); show(); };
  slider.addEventListener("input", () => go(Number(slider.value)));
  const playing = (on) => { play.textContent = on ? "II" : "▶"; play.setAttribute("aria-label", t(on ? "pause" : "play")); };
  const play = h("button", { id: "replay-play", "aria-label": t("play"), onclick: () => {
    if (timer) { clearInterval(timer); timer = null; playing(false); return; }
    playing(true);
    timer = setInterval(() => { if (step >= data.frames.length - 1) { clearInterval(timer); timer = null; playing(false); } else go(step + 1); }, 700);
  } }, "▶");
  const viewSel = token ? h("select", { id: "replay-view", "aria-label": t("replay_view"), onchange: async (ev) => { usePrivate = ev.target.value === "mine"; await load(); go(step); } },
    h("option", { value: "mine" }, t("my_view")), h("option", { value: "public" }, t("public_view"))) : null;
  app.append(h("div", { class: "panel" }, h("h1", {}, t("replay")),
    h("div", { class: "replay-controls" },
      // ▶ plays; one step back or on is ‹ ›, the first and last steps « » (labelled for
      // screen readers, and as tooltips).
      h("button", { id: "replay-first", "aria-label": t("first"), title: t("first"), onclick: () => go(0) }, "«"),
      h("button", { id: "replay-prev", "aria-label": t("previous"), title: t("previous"), onclick: () => go(step - 1) }, "‹"),
      play,
      h("button", { id: "replay-next", "aria-label": t("next"), title: t("next"), onclick: () => go(step + 1) }, "›"),
      h("button", { id: "replay-last", "aria-label": t("last"), title: t("last"), onclick: () => go(data.frames.length - 1) }, "»"),
      slider, counter, viewSel)), stage);
  show();
}

/* ---------- start ---------- */
window.addEventListener("popstate", render);
document.addEventListener("DOMContentLoaded", async () => {
  $("#toast").addEventListener("click", hideToast);
  $("#lang").addEventListener("change", async (ev) => { await chooseLang(ev.target.value); if (table.state && (route.name === "table" || route.name === "watch")) table.draw(); else render(); });
  await loadLang(initialLang());
  try {
    const meta = await api("GET", "/api/meta");
    LEVELS = meta.bot_levels;
    const limit = meta.options && meta.options.turn_limit;
    if (limit && Number.isInteger(limit.maximum)) TURN_LIMIT_MAX = limit.maximum;
    // (Not the bots-only default: a table of bots really ends there, and a person may well
    // choose that number; 10,000 turns is no limit anyone would choose.)
    if (limit && Number.isInteger(limit.people_default)) TURN_LIMIT_NONE = limit.people_default;
  } catch (e) { /* keep defaults */ }
  render();
});
