/* Circles of friends: the home page's panel (your circles, a new one in one tap) and the
   circle picker of "Play with friends"; a circle's link (/c/CODE: join it); a circle's page
   (/circle/ID: its link and QR code, its tables under way and a new one, its leaderboard with
   the bots for scale, its members: rename yourself, leave, or, as its creator, remove one).
   Everything of a circle is for its members only: the server answers anyone else that there is
   no such circle of theirs, and the page says it is not theirs. */
import { h, store } from "../dom.js";
import { errorText, lang, t } from "../i18n.js";
import { api, asPlayer, keyAuth, tokens } from "../api.js";
import { paceText } from "../clock.js";
import { copyText, requireName, toast } from "../notices.js";
import { levelName } from "../words.js";
import { ratingText } from "./ratings.js";

const circlePath = (id) => "/circle/" + encodeURIComponent(id);
/* Where the reader is: an answer that comes after they went elsewhere draws nothing. */
export const here = () => location.pathname + location.search;
const codeOf = (url) => url.split("/c/").pop();

/* A button that asks before it acts: a first tap shows the question, "yes" and "cancel". */
export function confirmAction({ id, label, question, yes, action }) {
  const box = h("div", { class: "confirm", id });
  const first = () => box.replaceChildren(h("button", { type: "button", class: "danger", id: id + "-ask", onclick: ask }, label));
  function ask() {
    const yesButton = h("button", { type: "button", class: "danger primary", id: id + "-yes", onclick: async () => {
      yesButton.disabled = true;
      try { await action(); } catch (err) { yesButton.disabled = false; toast(errorText(err)); }
    } }, yes);
    box.replaceChildren(h("p", { class: "warn" }, question), h("div", { class: "row" }, yesButton,
      h("button", { type: "button", id: id + "-no", onclick: () => { first(); box.querySelector("button").focus(); } }, t("confirm_cancel"))));
    yesButton.focus();
  }
  first();
  return box;
}

/* The circles of this device's player ([] without a player, or when the server cannot say). */
async function myCircles() {
  const auth = keyAuth();
  if (!auth) return [];
  try { return await api("GET", "/api/circles", undefined, auth); } catch (e) { return []; }
}

/* The home page's panel: your circles, your page, and a new circle in one tap (named by the
   field, "Family" unless changed; `nameOf()` is the name you play under). */
export function circlesPanel(ctx, nameOf) {
  const list = h("ul", { class: "my-games", id: "circles-list" });
  const name = h("input", { id: "circle-name", maxlength: 24, required: true, autocomplete: "off" });
  name.value = t("circle_default_name");
  requireName(name);
  const make = h("button", { type: "submit", class: "primary", id: "make-circle" }, t("circle_make"));
  const form = h("form", { class: "row circle-make", id: "circle-form", novalidate: true },
    h("label", { for: "circle-name" }, t("circle_name")), name, make);
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    if (!name.value.trim()) { toast(t("name_required")); name.focus(); return; }
    make.disabled = true;
    const who = nameOf() || store.get("name") || t("default_name");
    store.set("name", who);
    try {
      const made = await asPlayer(who, (auth) => api("POST", "/api/circles", { name: name.value.trim() }, auth));
      ctx.navigate(circlePath(made.circle_id));
    } catch (err) { make.disabled = false; toast(errorText(err)); }
  });
  const mine = keyAuth() ? h("p", {}, h("a", { href: "/me", class: "tap", id: "my-page-link", onclick: (ev) => { ev.preventDefault(); ctx.navigate("/me"); } }, t("my_page"))) : null;
  myCircles().then((circles) => {
    list.replaceChildren(...circles.map((c) => h("li", { "data-circle": c.circle_id },
      h("a", { href: circlePath(c.circle_id), class: "my-game-link", onclick: (ev) => { ev.preventDefault(); ctx.navigate(circlePath(c.circle_id)); } },
        h("strong", {}, c.name)))));
  });
  return h("section", { class: "panel", id: "circles", "aria-labelledby": "circles-title" },
    h("h2", { id: "circles-title" }, t("circles_title")), h("p", { class: "help" }, t("circles_help")), list, form, mine);
}

/* "Play with friends" at a circle's table (it counts for the circle's ratings): shown when this
   device's player has a circle; `value()` is the chosen circle's id, or null. */
export function circlePicker() {
  const select = h("select", { id: "friends-circle" }, h("option", { value: "" }, t("circle_none")));
  const box = h("label", { class: "circle-pick", hidden: true }, h("span", {}, t("circle_for_table")), select);
  select.addEventListener("change", () => store.set("circle", select.value));
  myCircles().then((circles) => {
    if (!circles.length) return;
    select.append(...circles.map((c) => h("option", { value: c.circle_id }, c.name)));
    if (circles.some((c) => c.circle_id === store.get("circle"))) select.value = store.get("circle");
    box.hidden = false;
  });
  return { el: box, value: () => select.value || null };
}

/* /c/CODE: what the link shows (the circle's name and size), then "Join" under a name unique in
   the circle. A member's device goes to the circle's page at once. */
export async function renderCircleJoin(app, code, ctx) {
  let preview;
  const at = here();
  try { preview = await api("GET", "/api/circle-invitations/" + encodeURIComponent(code)); } catch (err) {
    if (here() !== at) return;
    app.append(h("section", { class: "panel", id: "circle-refused" }, h("h1", {}, t("circles_title")), h("p", { id: "circle-refused-why" }, errorText(err))));
    return;
  }
  const known = (await myCircles()).find((c) => codeOf(c.invite_url) === code);
  if (here() !== at) return;
  if (known) { ctx.navigate(circlePath(known.circle_id), true); return; }
  const name = h("input", { id: "circle-join-name", required: true, maxlength: 24, autocomplete: "nickname" });
  name.value = store.get("name") || "";
  requireName(name);
  const join = h("button", { class: "primary", type: "submit", id: "circle-join-btn" }, t("circle_join"));
  const form = h("form", { class: "panel", id: "circle-join-form", novalidate: true },
    h("h1", {}, t("circle_join_title", { name: preview.name })),
    h("p", { id: "circle-join-size" }, t("circle_members_n", { count: preview.members })),
    h("p", { class: "help" }, t("circle_join_help")),
    h("div", { class: "field" }, h("label", { for: "circle-join-name" }, t("circle_your_name")), name), join);
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const who = name.value.trim();
    if (!who) { toast(t("name_required")); name.focus(); return; }
    store.set("name", who);
    join.disabled = true;
    try {
      const joined = await asPlayer(who, (auth) => api("POST", "/api/circle-invitations/" + encodeURIComponent(code) + "/join", { name: who }, auth));
      ctx.navigate(circlePath(joined.circle_id), true);
    } catch (err) { join.disabled = false; toast(errorText(err)); name.focus(); }
  });
  app.append(form);
  name.focus();
}

/* The circle's link to share, with its QR code (drawn here, as a device link's). */
function invitePanel(circle) {
  const url = circle.invite_url;
  const code = h("code", { id: "circle-invite-url" }, url);
  const qrBox = h("div", { class: "qr-box" });
  import("../qr.js").then(({ qrSvg }) => qrBox.replaceChildren(qrSvg(url, t("circle_qr_alt"), "circle-qr")));
  return h("section", { class: "panel", id: "circle-invite", "aria-labelledby": "circle-invite-title" },
    h("h2", { id: "circle-invite-title" }, t("circle_invite")), h("p", { class: "help" }, t("circle_invite_help")),
    h("div", { class: "invite" }, qrBox, h("div", {}, h("p", {}, code), h("div", { class: "row" },
      h("button", { type: "button", id: "copy-circle", onclick: () => copyText(url, code) }, t("copy")),
      navigator.share ? h("button", { type: "button", id: "share-circle", onclick: () => navigator.share({ title: "GoTown", text: t("circle_share_text", { name: circle.name }), url }).catch(() => { /* dismissed */ }) }, t("share")) : null),
    /^https?:\/\/(localhost|127\.|\[::1\])/.test(url) ? h("p", { class: "warn" }, t("localhost_warning")) : null)));
}

/* The circle's tables under way, each named by who sits at it (its public lobby), and a new
   table for the circle: its pace and number of players in one tap, as on the home page. */
function tablesPanel(circle, me, ctx) {
  const list = h("ul", { class: "my-games", id: "circle-tables" });
  Promise.all(circle.tables.slice(0, 8).map((tb) => api("GET", "/api/games/" + tb.game_id + "/lobby").catch(() => null))).then((lobbies) => {
    list.replaceChildren(...circle.tables.slice(0, 8).map((tb, i) => {
      const lobby = lobbies[i];
      const names = lobby ? lobby.seats.map((x) => (x.kind === "bot" ? levelName(x.level) : x.name)).filter(Boolean).join(", ") : "";
      return h("li", { class: "my-game", "data-game": tb.game_id },
        h("a", { href: "/g/" + tb.game_id, class: "my-game-link", onclick: (ev) => { ev.preventDefault(); ctx.navigate("/g/" + tb.game_id); } },
          h("strong", { class: "my-game-with" }, names || t("waiting_title")),
          h("span", { class: "my-game-state" }, tb.status === "lobby" ? t("waiting_title") : t("active")),
          lobby ? h("span", { class: "help" }, lobby.pace ? t("pace_per_turn", { time: paceText(lobby.pace) }) : t("pace_live")) : null));
    }));
  });
  const paces = [0, ...ctx.meta.paces];
  let pace = paces.includes(Number(store.get("pace"))) ? Number(store.get("pace")) : 0;
  const paceBox = h("div", { class: "paces", role: "radiogroup", "aria-labelledby": "circle-pace-title" },
    h("span", { id: "circle-pace-title" }, t("pace")), ...paces.map((p) => {
      const input = h("input", { type: "radio", name: "circle-pace", id: "circle-pace-" + p, value: p, checked: p === pace });
      input.addEventListener("change", () => { pace = p; store.set("pace", String(p)); });
      return h("label", { class: "pace", for: "circle-pace-" + p }, input, h("span", {}, p ? paceText(p) : t("pace_live")));
    }));
  const start = async (n, button) => {
    button.disabled = true;
    const body = { seats: Array.from({ length: n }, () => ({ kind: "human" })), options: {}, language: lang(), name: me.name, circle_id: circle.circle_id };
    if (pace) body.pace = pace;
    try {
      const made = await api("POST", "/api/games", body, keyAuth());
      tokens.set(made.game_id, made.token);
      ctx.navigate("/g/" + made.game_id);
    } catch (err) { button.disabled = false; toast(errorText(err)); }
  };
  return h("section", { class: "panel", id: "circle-tables-panel", "aria-labelledby": "circle-tables-title" },
    h("h2", { id: "circle-tables-title" }, t("circle_tables")), circle.tables.length ? list : h("p", { class: "help" }, t("circle_no_tables")),
    h("div", { class: "big friends", id: "circle-new-table", role: "group", "aria-labelledby": "circle-new-title" },
      h("strong", { id: "circle-new-title" }, t("circle_new_table")), h("span", {}, t("circle_new_table_help")), paceBox,
      h("div", { class: "row" }, ...[2, 3, 4].map((n) => {
        const button = h("button", { type: "button", id: "circle-table-" + n, onclick: () => start(n, button) }, t("play_friends_n", { n }));
        return button;
      }))));
}

/* The leaderboard: the members rated so far and the bot levels (reference rows, on the same
   scale), by rating as the server orders them. */
function leaderboard(circle, ctx) {
  const people = circle.leaderboard.filter((r) => r.player_id);
  let rank = 0;
  const rows = circle.leaderboard.map((r) => {
    const bot = !r.player_id;
    const you = !bot && circle.members.some((m) => m.you && m.player_id === r.player_id);
    const who = bot ? t("leaderboard_bot", { level: levelName(r.level) })
      : h("a", { href: circlePath(circle.circle_id) + "?p=" + encodeURIComponent(r.player_id), onclick: (ev) => { ev.preventDefault(); ctx.navigate(circlePath(circle.circle_id) + "?p=" + encodeURIComponent(r.player_id)); } }, r.name);
    return h("tr", { class: bot ? "bot-ref" : you ? "you" : null, "data-player": r.player_id, "data-level": r.level },
      h("td", {}, bot ? "" : String(++rank)), h("th", { scope: "row" }, who, you ? " (" + t("you") + ")" : null),
      h("td", { class: "num" }, ratingText(r.rating.ordinal)), h("td", { class: "num" }, bot ? t("leaderboard_reference") : String(r.rating.games)));
  });
  return h("section", { class: "panel", id: "leaderboard-panel", "aria-labelledby": "leaderboard-title" },
    h("h2", { id: "leaderboard-title" }, t("circle_leaderboard")),
    people.length ? null : h("p", { class: "help", id: "leaderboard-empty" }, t("leaderboard_empty")),
    h("table", { class: "leaderboard", id: "leaderboard" },
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "#"), h("th", { scope: "col" }, t("rating_player")),
        h("th", { scope: "col", class: "num" }, t("rating_axis")), h("th", { scope: "col", class: "num" }, t("leaderboard_games")))),
      h("tbody", {}, rows)),
    h("p", { class: "help" }, t("rating_explained")));
}

/* The members: each one's page and rating; yours to rename or leave; the creator removes. */
function membersPanel(circle, ctx) {
  const me = circle.members.find((m) => m.you);
  const creator = me && me.player_id === circle.creator_id;
  const path = circlePath(circle.circle_id);
  const items = circle.members.map((m) => h("li", { "data-player": m.player_id },
    h("a", { href: path + "?p=" + encodeURIComponent(m.player_id), onclick: (ev) => { ev.preventDefault(); ctx.navigate(path + "?p=" + encodeURIComponent(m.player_id)); } }, m.name),
    m.you ? h("span", {}, "(" + t("you") + ")") : null,
    m.player_id === circle.creator_id ? h("span", { class: "help" }, t("circle_creator")) : null,
    h("span", { class: "help" }, m.rating ? t("rating_of", { rating: ratingText(m.rating.ordinal) }) : t("rating_none")),
    creator && !m.you ? confirmAction({ id: "remove-" + m.player_id, label: t("circle_remove"), question: t("circle_remove_confirm", { name: m.name }), yes: t("circle_remove"),
      action: async () => { await api("DELETE", "/api/circles/" + encodeURIComponent(circle.circle_id) + "/members/" + encodeURIComponent(m.player_id), undefined, keyAuth()); ctx.refresh(); } }) : null));
  const rename = h("input", { id: "circle-rename", required: true, maxlength: 24, autocomplete: "nickname" });
  rename.value = me ? me.name : "";
  requireName(rename);
  const renameForm = h("form", { class: "row", id: "circle-rename-form", novalidate: true },
    h("label", { for: "circle-rename" }, t("circle_your_name")), rename, h("button", { type: "submit", id: "circle-rename-btn" }, t("circle_rename")));
  renameForm.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    if (!rename.value.trim()) { toast(t("name_required")); rename.focus(); return; }
    try {
      await api("PATCH", "/api/circles/" + encodeURIComponent(circle.circle_id) + "/members/me", { name: rename.value.trim() }, keyAuth());
      ctx.refresh();
    } catch (err) { toast(errorText(err)); rename.focus(); }
  });
  const leave = me ? confirmAction({ id: "leave-circle", label: t("circle_leave"), question: t("circle_leave_confirm", { name: circle.name }), yes: t("circle_leave"),
    action: async () => {
      await api("DELETE", "/api/circles/" + encodeURIComponent(circle.circle_id) + "/members/" + encodeURIComponent(me.player_id), undefined, keyAuth());
      ctx.navigate("/");
      toast(t("circle_left", { name: circle.name }), true);
    } }) : null;
  return h("section", { class: "panel", id: "circle-members-panel", "aria-labelledby": "circle-members-title" },
    h("h2", { id: "circle-members-title" }, t("circle_members")), h("ul", { class: "seats-list", id: "circle-members" }, items),
    me ? h("details", { id: "circle-yours" }, h("summary", {}, t("circle_yours")), renameForm, leave) : null);
}

/* /circle/ID: the circle's page, for its members. */
export async function renderCircle(app, circleId, ctx) {
  app.append(h("p", { class: "loading" }, t("connecting")));
  const at = here();
  let circle;
  try { circle = await api("GET", "/api/circles/" + encodeURIComponent(circleId), undefined, keyAuth()); } catch (err) {
    if (here() !== at) return;
    app.replaceChildren(h("section", { class: "panel", id: "circle-refused" }, h("h1", {}, t("circles_title")),
      h("p", { id: "circle-refused-why" }, err && err.code === "unknown-circle" ? t("circle_not_yours") : errorText(err)),
      h("a", { href: "/", class: "button" }, t("new_game"))));
    return;
  }
  if (here() !== at) return;
  const me = circle.members.find((m) => m.you);
  // (A circle of one, just made: its link first, to be shared.)
  const alone = circle.members.length === 1;
  app.replaceChildren(...[
    h("h1", { id: "circle-title" }, circle.name),
    h("p", {}, h("a", { href: "/me", class: "tap", id: "my-page-link", onclick: (ev) => { ev.preventDefault(); ctx.navigate("/me"); } }, t("my_page"))),
    alone ? invitePanel(circle) : null, tablesPanel(circle, me, ctx), leaderboard(circle, ctx), membersPanel(circle, ctx), alone ? null : invitePanel(circle)].filter(Boolean));
}
