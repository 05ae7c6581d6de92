/* An invitation: take a free seat (or watch when every seat is taken). */

import { api, asPlayer, keyAuth, tokens } from "../api.js";
import { h, store } from "../dom.js";
import { chosenLang, errorText, lang, loadLang, t } from "../i18n.js";
import { requireName, toast } from "../notices.js";
import { seatLabel } from "../words.js";

export async function renderJoin(app, code, ctx) {
  let lobby;
  try {
    lobby = await api("GET", `/api/invitations/${encodeURIComponent(code)}`);
  } catch (err) {
    app.append(h("p", { class: "panel" }, errorText(err)));
    return;
  }
  if (tokens.get(lobby.game_id)) {
    ctx.navigate(`/g/${lobby.game_id}`, true);
    return;
  }
  // This device's player sits there already (from another of their devices): their seat.
  const auth = keyAuth();
  const mine = auth ? await api("GET", "/api/me/games", undefined, auth).catch(() => null) : null;
  if (mine?.games.some((g) => g.game_id === lobby.game_id)) {
    ctx.navigate(`/g/${lobby.game_id}`, true);
    return;
  }
  // The invitation speaks the game's language unless this reader chose one.
  if (lobby.language && !chosenLang() && lobby.language !== lang()) {
    await loadLang(lobby.language);
    ctx.refresh();
    return;
  }
  const panel = h("form", { class: "panel", id: "join-form" });
  const name = h("input", {
    id: "join-name",
    required: true,
    maxlength: 24,
    autocomplete: "nickname",
  });
  name.value = store.get("name") || "";
  requireName(name);
  const free = lobby.seats.filter((x) => !x.taken);
  const seatSel = h(
    "select",
    { id: "join-seat" },
    ...free.map((x) => h("option", { value: x.seat }, t("seat_n", { n: x.seat + 1 }))),
  );
  panel.append(
    h("h1", {}, t("join_title")),
    h(
      "ul",
      { class: "seats-list" },
      ...lobby.seats.map((x) => h("li", {}, seatLabel(lobby, x.seat))),
    ),
    free.length
      ? h(
          "div",
          {},
          h("div", { class: "field" }, h("label", { for: "join-name" }, t("your_name")), name),
          h("div", { class: "field" }, h("label", { for: "join-seat" }, t("seat")), seatSel),
          h("button", { class: "primary", type: "submit", id: "join-btn" }, t("take_seat")),
        )
      : h("p", {}, t("no_free_seat"), " ", h("a", { href: `/w/${lobby.game_id}` }, t("watch"))),
  );
  panel.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    if (!name.value.trim()) {
      toast(t("name_required"));
      name.focus();
      return;
    }
    store.set("name", name.value.trim());
    try {
      const res = await asPlayer(name.value.trim(), (auth) =>
        api(
          "POST",
          `/api/games/${lobby.game_id}/join`,
          { code, name: name.value.trim(), seat: Number(seatSel.value) },
          auth,
        ),
      );
      tokens.set(res.game_id, res.token);
      ctx.navigate(`/g/${res.game_id}`);
    } catch (err) {
      toast(errorText(err));
    }
  });
  app.append(panel);
  name.focus();
}
