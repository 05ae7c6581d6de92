/* Circles of friends: the home page's panel (your circles, a new one in one tap) and the
   circle picker of "Play with friends"; a circle's link (/c/CODE: join it). A circle's page is
   circle.js. Everything of a circle is for its members only: the server answers anyone else
   that there is no such circle of theirs, and the page says it is not theirs. */

import { api, asPlayer, keyAuth } from "../api.js";
import { h, store } from "../dom.js";
import { errorText, t } from "../i18n.js";
import { requireName, toast } from "../notices.js";

export const circlePath = (id) => `/circle/${encodeURIComponent(id)}`;
/* Where the reader is: an answer that comes after they went elsewhere draws nothing. */
export const here = () => location.pathname + location.search;
const codeOf = (url) => url.split("/c/").pop();

/* The paragraph with the link to the player's own page. */
export function myPageLink(ctx) {
  const go = (ev) => {
    ev.preventDefault();
    ctx.navigate("/me");
  };
  return h(
    "p",
    {},
    h("a", { href: "/me", class: "tap", id: "my-page-link", onclick: go }, t("my_page")),
  );
}

/* A button that asks before it acts: a first tap shows the question, "yes" and "cancel". */
export function confirmAction({ id, label, question, yes, action }) {
  const box = h("div", { class: "confirm", id });
  const first = () =>
    box.replaceChildren(
      h("button", { type: "button", class: "danger", id: `${id}-ask`, onclick: ask }, label),
    );
  function ask() {
    const yesButton = h(
      "button",
      {
        type: "button",
        class: "danger primary",
        id: `${id}-yes`,
        onclick: async () => {
          yesButton.disabled = true;
          try {
            await action();
          } catch (err) {
            yesButton.disabled = false;
            toast(errorText(err));
          }
        },
      },
      yes,
    );
    box.replaceChildren(
      h("p", { class: "warn" }, question),
      h(
        "div",
        { class: "row" },
        yesButton,
        h(
          "button",
          {
            type: "button",
            id: `${id}-no`,
            onclick: () => {
              first();
              box.querySelector("button").focus();
            },
          },
          t("confirm_cancel"),
        ),
      ),
    );
    yesButton.focus();
  }
  first();
  return box;
}

/* The circles of this device's player ([] without a player, or when the server cannot say). */
async function myCircles() {
  const auth = keyAuth();
  if (!auth) return [];
  try {
    return await api("GET", "/api/circles", undefined, auth);
  } catch {
    return [];
  }
}

/* The home page's panel: your circles, your page, and a new circle in one tap (named by the
   field, "Family" unless changed; `nameOf()` is the name you play under). */
export function circlesPanel(ctx, nameOf) {
  const list = h("ul", { class: "my-games", id: "circles-list" });
  const name = h("input", {
    id: "circle-name",
    maxlength: 24,
    required: true,
    autocomplete: "off",
  });
  name.value = t("circle_default_name");
  requireName(name);
  const make = h(
    "button",
    { type: "submit", class: "primary", id: "make-circle" },
    t("circle_make"),
  );
  const form = h(
    "form",
    { class: "row circle-make", id: "circle-form", novalidate: true },
    h("label", { for: "circle-name" }, t("circle_name")),
    name,
    make,
  );
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    if (!name.value.trim()) {
      toast(t("name_required"));
      name.focus();
      return;
    }
    make.disabled = true;
    const who = nameOf() || store.get("name") || t("default_name");
    store.set("name", who);
    try {
      const made = await asPlayer(who, (auth) =>
        api("POST", "/api/circles", { name: name.value.trim() }, auth),
      );
      ctx.navigate(circlePath(made.circle_id));
    } catch (err) {
      make.disabled = false;
      toast(errorText(err));
    }
  });
  const mine = keyAuth() ? myPageLink(ctx) : null;
  myCircles().then((circles) => {
    list.replaceChildren(
      ...circles.map((c) =>
        h(
          "li",
          { "data-circle": c.circle_id },
          h(
            "a",
            {
              href: circlePath(c.circle_id),
              class: "my-game-link",
              onclick: (ev) => {
                ev.preventDefault();
                ctx.navigate(circlePath(c.circle_id));
              },
            },
            h("strong", {}, c.name),
          ),
        ),
      ),
    );
  });
  return h(
    "section",
    { class: "panel", id: "circles", "aria-labelledby": "circles-title" },
    h("h2", { id: "circles-title" }, t("circles_title")),
    h("p", { class: "help" }, t("circles_help")),
    list,
    form,
    mine,
  );
}

/* "Play with friends" at a circle's table (it counts for the circle's ratings): shown when this
   device's player has a circle; `value()` is the chosen circle's id, or null. */
export function circlePicker() {
  const select = h(
    "select",
    { id: "friends-circle" },
    h("option", { value: "" }, t("circle_none")),
  );
  const box = h(
    "label",
    { class: "circle-pick", hidden: true },
    h("span", {}, t("circle_for_table")),
    select,
  );
  select.addEventListener("change", () => store.set("circle", select.value));
  myCircles().then((circles) => {
    if (!circles.length) return;
    select.append(...circles.map((c) => h("option", { value: c.circle_id }, c.name)));
    if (circles.some((c) => c.circle_id === store.get("circle")))
      select.value = store.get("circle");
    box.hidden = false;
  });
  return { el: box, value: () => select.value || null };
}

/* /c/CODE: what the link shows (the circle's name and size), then "Join" under a name unique in
   the circle. A member's device goes to the circle's page at once. */
export async function renderCircleJoin(app, code, ctx) {
  let preview;
  const at = here();
  try {
    preview = await api("GET", `/api/circle-invitations/${encodeURIComponent(code)}`);
  } catch (err) {
    if (here() !== at) return;
    app.append(
      h(
        "section",
        { class: "panel", id: "circle-refused" },
        h("h1", {}, t("circles_title")),
        h("p", { id: "circle-refused-why" }, errorText(err)),
      ),
    );
    return;
  }
  const known = (await myCircles()).find((c) => codeOf(c.invite_url) === code);
  if (here() !== at) return;
  if (known) {
    ctx.navigate(circlePath(known.circle_id), true);
    return;
  }
  const name = h("input", {
    id: "circle-join-name",
    required: true,
    maxlength: 24,
    autocomplete: "nickname",
  });
  name.value = store.get("name") || "";
  requireName(name);
  const join = h(
    "button",
    { class: "primary", type: "submit", id: "circle-join-btn" },
    t("circle_join"),
  );
  const form = h(
    "form",
    { class: "panel", id: "circle-join-form", novalidate: true },
    h("h1", {}, t("circle_join_title", { name: preview.name })),
    h("p", { id: "circle-join-size" }, t("circle_members_n", { count: preview.members })),
    h("p", { class: "help" }, t("circle_join_help")),
    h(
      "div",
      { class: "field" },
      h("label", { for: "circle-join-name" }, t("circle_your_name")),
      name,
    ),
    join,
  );
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const who = name.value.trim();
    if (!who) {
      toast(t("name_required"));
      name.focus();
      return;
    }
    store.set("name", who);
    join.disabled = true;
    try {
      const joined = await asPlayer(who, (auth) =>
        api(
          "POST",
          `/api/circle-invitations/${encodeURIComponent(code)}/join`,
          { name: who },
          auth,
        ),
      );
      ctx.navigate(circlePath(joined.circle_id), true);
    } catch (err) {
      join.disabled = false;
      toast(errorText(err));
      name.focus();
    }
  });
  app.append(form);
  name.focus();
}
