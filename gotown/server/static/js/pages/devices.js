/* "Use on another device": a private link (and its QR code, drawn here: the link must not
   travel to the server again for its picture) that gives another phone or laptop this
   player, every table included; the links made, each with "Revoke" (the link is refused from
   then on, and the devices it gave a key lose it). And the page a device link opens (/d/SECRET):
   the device gets a key of its own, then the home page lists the player's tables. */

import { api, keyAuth, player } from "../api.js";
import { h, store } from "../dom.js";
import { errorText, lang, t } from "../i18n.js";
import { copyText, toast } from "../notices.js";

function dateText(seconds) {
  try {
    return new Intl.DateTimeFormat(lang(), { dateStyle: "medium", timeStyle: "short" }).format(
      new Date(seconds * 1000),
    );
  } catch {
    return new Date(seconds * 1000).toLocaleString();
  }
}

/* A link just made: shown once (the server keeps only its digest). */
function madeLink(link) {
  const code = h("code", { id: "device-url" }, link.url);
  const qrBox = h("div", { class: "qr-box" });
  import("../qr.js").then(({ qrSvg }) =>
    qrBox.replaceChildren(qrSvg(link.url, t("devices_qr_alt"), "device-qr")),
  );
  return h(
    "div",
    { class: "device-link", id: "device-link" },
    h("p", { class: "warn" }, t("devices_private")),
    qrBox,
    h("p", {}, code),
    h(
      "button",
      { type: "button", id: "copy-device", onclick: () => copyText(link.url, code) },
      t("copy"),
    ),
    /^https?:\/\/(localhost|127\.|\[::1\])/.test(link.url)
      ? h("p", { class: "warn" }, t("localhost_warning"))
      : null,
  );
}

function linkItem(link, redraw) {
  const said =
    t("devices_link_made", { when: dateText(link.created) }) +
    " · " +
    t("devices_count", { n: link.devices });
  return h(
    "li",
    { "data-link": link.id, class: link.revoked ? "revoked" : null },
    h("span", {}, said),
    link.revoked
      ? h("span", { class: "help" }, t("devices_revoked"))
      : h(
          "button",
          {
            type: "button",
            class: "revoke",
            "data-revoke": link.id,
            onclick: async (ev) => {
              ev.target.disabled = true;
              try {
                await api(
                  "DELETE",
                  `/api/me/links/${encodeURIComponent(link.id)}`,
                  undefined,
                  keyAuth(),
                );
              } catch (err) {
                toast(errorText(err));
              }
              redraw(null);
            },
          },
          t("devices_revoke"),
        ),
  );
}

async function drawPanel(body, made) {
  const auth = keyAuth();
  if (!auth) {
    body.replaceChildren(h("p", { class: "help" }, t("notices_no_player")));
    return;
  }
  let links;
  try {
    links = await api("GET", "/api/me/links", undefined, auth);
  } catch (err) {
    body.replaceChildren(h("p", {}, errorText(err)));
    return;
  }
  const redraw = (link) => drawPanel(body, link);
  const make = h(
    "button",
    {
      type: "button",
      id: "make-link",
      class: "primary",
      onclick: async () => {
        make.disabled = true;
        try {
          redraw(await api("POST", "/api/me/links", undefined, auth));
        } catch (err) {
          make.disabled = false;
          toast(errorText(err));
        }
      },
    },
    t("devices_make"),
  );
  // The newest first; revoked ones only the last few.
  const shown = [...links]
    .sort((a, b) => b.created - a.created)
    .filter((l, i) => !l.revoked || i < 5);
  body.replaceChildren(
    h("p", { class: "help" }, t("devices_help")),
    made ? madeLink(made) : make,
    ...(shown.length
      ? [
          h(
            "ul",
            { class: "device-links", id: "device-links" },
            ...shown.map((l) => linkItem(l, redraw)),
          ),
        ]
      : []),
  );
}

export function devicesPanel() {
  const body = h("div", { id: "devices-body" });
  const box = h(
    "details",
    { class: "devices", id: "devices" },
    h("summary", {}, t("devices_title")),
    body,
  );
  box.addEventListener("toggle", () => {
    if (box.open) drawPanel(body, null);
  });
  return box;
}

/* /d/SECRET: this device becomes the link's player, then sees their tables (the address is
   replaced by the home page's: the link is not kept in the history). */
export async function renderDeviceLink(app, secret, ctx) {
  app.append(h("p", { class: "loading" }, t("connecting")));
  try {
    const made = await api("POST", `/api/device-links/${encodeURIComponent(secret)}`);
    player.set(made);
    store.set("name", made.name);
    ctx.navigate("/", true);
    toast(t("devices_welcome", { name: made.name }), true);
  } catch (err) {
    app.replaceChildren(
      h(
        "section",
        { class: "panel", id: "device-refused" },
        h("h1", {}, t("devices_title")),
        h("p", { id: "device-refused-why" }, errorText(err)),
        h("a", { href: "/", class: "button" }, t("new_game")),
      ),
    );
  }
}
