/* "Tell me when it is my turn", asked for on each device: Web Push through the page's service
   worker (/sw.js: it shows the server's notices and opens the table on a click) and e-mail
   when the server sends it, both in the page's language. A browser offers push only to a
   secure page (https, or localhost on this computer): on a family network's plain http
   address the panel says so and points to e-mail. */

import { api, keyAuth } from "./api.js";
import { h } from "./dom.js";
import { errorText, lang, t } from "./i18n.js";
import { toast } from "./notices.js";

/* Why this browser takes no push notifications from this page ("insecure", "unsupported",
   "denied"), or null when it may. */
export function pushBlocked() {
  if (!window.isSecureContext) return "insecure";
  if (!("serviceWorker" in navigator) || !("PushManager" in window) || !("Notification" in window))
    return "unsupported";
  if (Notification.permission === "denied") return "denied";
  return null;
}

/* The server's key (base64url) as the bytes PushManager.subscribe takes. */
function keyBytes(text) {
  const raw = atob(
    text.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (text.length % 4)) % 4),
  );
  return Uint8Array.from(raw, (c) => c.charCodeAt(0));
}

function sameKey(buffer, bytes) {
  const a = buffer ? new Uint8Array(buffer) : new Uint8Array(0);
  return a.length === bytes.length && a.every((x, i) => x === bytes[i]);
}

async function pushOn(serverKey) {
  if (
    Notification.permission !== "granted" &&
    (await Notification.requestPermission()) !== "granted"
  )
    throw { code: "push-denied" };
  const registration = await navigator.serviceWorker.register("/sw.js", { scope: "/" });
  await navigator.serviceWorker.ready;
  const key = keyBytes(serverKey);
  let sub = await registration.pushManager.getSubscription();
  // (Made for another server key: the server could not reach it.)
  if (sub && !sameKey(sub.options.applicationServerKey, key)) {
    await sub.unsubscribe();
    sub = null;
  }
  if (!sub) {
    try {
      sub = await registration.pushManager.subscribe({
        userVisibleOnly: true,
        applicationServerKey: key,
      });
    } catch (e) {
      console.info(`GoTown: no push subscription: ${e}`);
      throw { code: "push-service" };
    }
  }
  await api("POST", "/api/me/subscriptions/push", { ...sub.toJSON(), language: lang() }, keyAuth());
}

async function pushOff(subscription) {
  await api("DELETE", `/api/me/subscriptions/${subscription.id}`, undefined, keyAuth());
  const registration = await navigator.serviceWorker.getRegistration("/");
  const sub = registration && (await registration.pushManager.getSubscription());
  if (sub)
    await sub.unsubscribe().catch(() => {
      /* the server forgot it already */
    });
}

const pushText = (err) =>
  err && err.code === "push-denied"
    ? t("push_denied")
    : err && err.code === "push-service"
      ? t("push_failed")
      : errorText(err);

function pushPart(info, subscription, redraw) {
  const blocked = pushBlocked();
  if (blocked) {
    const why =
      blocked === "insecure"
        ? t("push_insecure", { address: location.host })
        : blocked === "denied"
          ? t("push_denied")
          : t("push_unsupported");
    return h(
      "p",
      { class: "warn", id: "push-unavailable" },
      why,
      " ",
      info.mail ? t("push_use_mail") : t("push_no_mail"),
    );
  }
  const on = Boolean(subscription);
  const button = h(
    "button",
    {
      type: "button",
      id: on ? "push-off" : "push-on",
      class: on ? null : "primary",
      onclick: async () => {
        button.disabled = true;
        try {
          if (on) await pushOff(subscription);
          else await pushOn(info.application_server_key);
        } catch (err) {
          toast(pushText(err));
        }
        redraw();
      },
    },
    on ? t("push_turn_off") : t("push_turn_on"),
  );
  return h(
    "div",
    { class: "row", id: "push-row" },
    h("span", { id: "push-state" }, on ? t("push_is_on") : t("push_is_off")),
    button,
  );
}

function mailPart(info, subscription, redraw) {
  if (!info.mail) return null;
  if (subscription) {
    return h(
      "div",
      { class: "row", id: "mail-row" },
      h("span", { id: "mail-state" }, t("mail_is_on", { email: subscription.email })),
      h(
        "button",
        {
          type: "button",
          id: "mail-off",
          onclick: async () => {
            try {
              await api("DELETE", `/api/me/subscriptions/${subscription.id}`, undefined, keyAuth());
            } catch (err) {
              toast(errorText(err));
            }
            redraw();
          },
        },
        t("mail_turn_off"),
      ),
    );
  }
  const input = h("input", {
    type: "email",
    id: "notify-email",
    autocomplete: "email",
    required: true,
    maxlength: 254,
    inputmode: "email",
  });
  const form = h(
    "form",
    { class: "row", id: "mail-form" },
    h("label", { for: "notify-email" }, t("mail_label")),
    input,
    h("button", { class: "primary", type: "submit", id: "mail-on" }, t("mail_turn_on")),
  );
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    try {
      await api(
        "POST",
        "/api/me/subscriptions/email",
        { email: input.value.trim(), language: lang() },
        keyAuth(),
      );
    } catch (err) {
      toast(errorText(err));
      return;
    }
    redraw();
  });
  return form;
}

async function drawPanel(body) {
  const auth = keyAuth();
  if (!auth) {
    body.replaceChildren(h("p", { class: "help" }, t("notices_no_player")));
    return;
  }
  let info, subs;
  try {
    [info, subs] = await Promise.all([
      api("GET", "/api/push"),
      api("GET", "/api/me/subscriptions", undefined, auth),
    ]);
  } catch (err) {
    body.replaceChildren(h("p", {}, errorText(err)));
    return;
  }
  const redraw = () => drawPanel(body);
  const parts = [
    pushPart(
      info,
      subs.find((s) => s.kind === "push"),
      redraw,
    ),
    mailPart(
      info,
      subs.find((s) => s.kind === "email"),
      redraw,
    ),
  ];
  body.replaceChildren(h("p", { class: "help" }, t("notices_help")), ...parts.filter(Boolean));
}

/* The panel (folded; what this device asked for is read when it is opened). */
export function notifyPanel() {
  const body = h("div", { id: "notify-body" });
  const box = h(
    "details",
    { class: "notify", id: "notify" },
    h("summary", {}, t("notices_title")),
    body,
  );
  box.addEventListener("toggle", () => {
    if (box.open) drawPanel(body);
  });
  return box;
}

/* The page's language changed: this device's notices follow it. */
export async function followLanguage() {
  const auth = keyAuth();
  if (!auth) return;
  let subs;
  try {
    subs = await api("GET", "/api/me/subscriptions", undefined, auth);
  } catch {
    return;
  }
  for (const s of subs.filter((x) => x.language !== lang())) {
    let body = s.kind === "email" ? { email: s.email } : null;
    if (s.kind === "push" && !pushBlocked()) {
      const registration = await navigator.serviceWorker.getRegistration("/");
      const sub = registration && (await registration.pushManager.getSubscription());
      if (sub) body = sub.toJSON();
    }
    if (body)
      await api(
        "POST",
        `/api/me/subscriptions/${s.kind === "email" ? "email" : "push"}`,
        { ...body, language: lang() },
        auth,
      ).catch(() => {
        /* as it was */
      });
  }
}
