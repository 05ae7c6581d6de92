/* A circle's page (/circle/ID), for its members: its link and QR code, its tables under way
   and a new one (circle-tables.js), its leaderboard with the bots for scale, its members:
   rename yourself, leave, or, as its creator, remove one. */
import { api, keyAuth } from "../api.js";
import { h } from "../dom.js";
import { errorText, t } from "../i18n.js";
import { copyText, requireName, toast } from "../notices.js";
import { levelName } from "../words.js";
import { tablesPanel } from "./circle-tables.js";
import { circlePath, confirmAction, here, myPageLink } from "./circles.js";
import { ratingText } from "./ratings.js";

/* The circle's link to share, with its QR code (drawn here, as a device link's). */
function invitePanel(circle) {
  const url = circle.invite_url;
  const code = h("code", { id: "circle-invite-url" }, url);
  const qrBox = h("div", { class: "qr-box" });
  import("../qr.js").then(({ qrSvg }) =>
    qrBox.replaceChildren(qrSvg(url, t("circle_qr_alt"), "circle-qr")),
  );
  return h(
    "section",
    { class: "panel", id: "circle-invite", "aria-labelledby": "circle-invite-title" },
    h("h2", { id: "circle-invite-title" }, t("circle_invite")),
    h("p", { class: "help" }, t("circle_invite_help")),
    h(
      "div",
      { class: "invite" },
      qrBox,
      h(
        "div",
        {},
        h("p", {}, code),
        h(
          "div",
          { class: "row" },
          h(
            "button",
            { type: "button", id: "copy-circle", onclick: () => copyText(url, code) },
            t("copy"),
          ),
          navigator.share
            ? h(
                "button",
                {
                  type: "button",
                  id: "share-circle",
                  onclick: () =>
                    navigator
                      .share({
                        title: "GoTown",
                        text: t("circle_share_text", { name: circle.name }),
                        url,
                      })
                      .catch(() => {
                        /* dismissed */
                      }),
                },
                t("share"),
              )
            : null,
        ),
        /^https?:\/\/(localhost|127\.|\[::1\])/.test(url)
          ? h("p", { class: "warn" }, t("localhost_warning"))
          : null,
      ),
    ),
  );
}

/* The leaderboard: the members rated so far and the bot levels (reference rows, on the same
   scale), by rating as the server orders them. */
function leaderboard(circle, ctx) {
  const people = circle.leaderboard.filter((r) => r.player_id);
  let rank = 0;
  const rows = circle.leaderboard.map((r) => {
    const bot = !r.player_id;
    const you = !bot && circle.members.some((m) => m.you && m.player_id === r.player_id);
    const who = bot
      ? t("leaderboard_bot", { level: levelName(r.level) })
      : h(
          "a",
          {
            href: `${circlePath(circle.circle_id)}?p=${encodeURIComponent(r.player_id)}`,
            onclick: (ev) => {
              ev.preventDefault();
              ctx.navigate(`${circlePath(circle.circle_id)}?p=${encodeURIComponent(r.player_id)}`);
            },
          },
          r.name,
        );
    return h(
      "tr",
      {
        class: bot ? "bot-ref" : you ? "you" : null,
        "data-player": r.player_id,
        "data-level": r.level,
      },
      h("td", {}, bot ? "" : String(++rank)),
      h("th", { scope: "row" }, who, you ? ` (${t("you")})` : null),
      h("td", { class: "num" }, ratingText(r.rating.ordinal)),
      h("td", { class: "num" }, bot ? t("leaderboard_reference") : String(r.rating.games)),
    );
  });
  return h(
    "section",
    { class: "panel", id: "leaderboard-panel", "aria-labelledby": "leaderboard-title" },
    h("h2", { id: "leaderboard-title" }, t("circle_leaderboard")),
    people.length
      ? null
      : h("p", { class: "help", id: "leaderboard-empty" }, t("leaderboard_empty")),
    h(
      "table",
      { class: "leaderboard", id: "leaderboard" },
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          h("th", { scope: "col" }, "#"),
          h("th", { scope: "col" }, t("rating_player")),
          h("th", { scope: "col", class: "num" }, t("rating_axis")),
          h("th", { scope: "col", class: "num" }, t("leaderboard_games")),
        ),
      ),
      h("tbody", {}, rows),
    ),
    h("p", { class: "help" }, t("rating_explained")),
  );
}

/* Take a member out of the circle (the player themselves: they leave it). */
const removeMember = (circle, member) =>
  api(
    "DELETE",
    `/api/circles/${encodeURIComponent(circle.circle_id)}/members/${encodeURIComponent(member.player_id)}`,
    undefined,
    keyAuth(),
  );

/* The members: each one's page and rating; yours to rename or leave; the creator removes. */
function membersPanel(circle, ctx) {
  const me = circle.members.find((m) => m.you);
  const creator = me && me.player_id === circle.creator_id;
  const path = circlePath(circle.circle_id);
  const items = circle.members.map((m) =>
    h(
      "li",
      { "data-player": m.player_id },
      h(
        "a",
        {
          href: `${path}?p=${encodeURIComponent(m.player_id)}`,
          onclick: (ev) => {
            ev.preventDefault();
            ctx.navigate(`${path}?p=${encodeURIComponent(m.player_id)}`);
          },
        },
        m.name,
      ),
      m.you ? h("span", {}, `(${t("you")})`) : null,
      m.player_id === circle.creator_id ? h("span", { class: "help" }, t("circle_creator")) : null,
      h(
        "span",
        { class: "help" },
        m.rating ? t("rating_of", { rating: ratingText(m.rating.ordinal) }) : t("rating_none"),
      ),
      creator && !m.you
        ? confirmAction({
            id: `remove-${m.player_id}`,
            label: t("circle_remove"),
            question: t("circle_remove_confirm", { name: m.name }),
            yes: t("circle_remove"),
            action: async () => {
              await removeMember(circle, m);
              ctx.refresh();
            },
          })
        : null,
    ),
  );
  const rename = h("input", {
    id: "circle-rename",
    required: true,
    maxlength: 24,
    autocomplete: "nickname",
  });
  rename.value = me ? me.name : "";
  requireName(rename);
  const renameForm = h(
    "form",
    { class: "row", id: "circle-rename-form", novalidate: true },
    h("label", { for: "circle-rename" }, t("circle_your_name")),
    rename,
    h("button", { type: "submit", id: "circle-rename-btn" }, t("circle_rename")),
  );
  renameForm.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    if (!rename.value.trim()) {
      toast(t("name_required"));
      rename.focus();
      return;
    }
    try {
      await api(
        "PATCH",
        `/api/circles/${encodeURIComponent(circle.circle_id)}/members/me`,
        { name: rename.value.trim() },
        keyAuth(),
      );
      ctx.refresh();
    } catch (err) {
      toast(errorText(err));
      rename.focus();
    }
  });
  const leave = me
    ? confirmAction({
        id: "leave-circle",
        label: t("circle_leave"),
        question: t("circle_leave_confirm", { name: circle.name }),
        yes: t("circle_leave"),
        action: async () => {
          await removeMember(circle, me);
          ctx.navigate("/");
          toast(t("circle_left", { name: circle.name }), true);
        },
      })
    : null;
  return h(
    "section",
    { class: "panel", id: "circle-members-panel", "aria-labelledby": "circle-members-title" },
    h("h2", { id: "circle-members-title" }, t("circle_members")),
    h("ul", { class: "seats-list", id: "circle-members" }, items),
    me
      ? h("details", { id: "circle-yours" }, h("summary", {}, t("circle_yours")), renameForm, leave)
      : null,
  );
}

/* /circle/ID: the circle's page, for its members. */
export async function renderCircle(app, circleId, ctx) {
  app.append(h("p", { class: "loading" }, t("connecting")));
  const at = here();
  let circle;
  try {
    circle = await api("GET", `/api/circles/${encodeURIComponent(circleId)}`, undefined, keyAuth());
  } catch (err) {
    if (here() !== at) return;
    app.replaceChildren(
      h(
        "section",
        { class: "panel", id: "circle-refused" },
        h("h1", {}, t("circles_title")),
        h(
          "p",
          { id: "circle-refused-why" },
          err && err.code === "unknown-circle" ? t("circle_not_yours") : errorText(err),
        ),
        h("a", { href: "/", class: "button" }, t("new_game")),
      ),
    );
    return;
  }
  if (here() !== at) return;
  const me = circle.members.find((m) => m.you);
  // (A circle of one, just made: its link first, to be shared.)
  const alone = circle.members.length === 1;
  app.replaceChildren(
    ...[
      h("h1", { id: "circle-title" }, circle.name),
      myPageLink(ctx),
      alone ? invitePanel(circle) : null,
      tablesPanel(circle, me, ctx),
      leaderboard(circle, ctx),
      membersPanel(circle, ctx),
      alone ? null : invitePanel(circle),
    ].filter(Boolean),
  );
}
