/* /unsubscribe/CODE, an e-mail's "Stop these e-mails" link: one button that confirms (opening
   the link alone changes nothing: mail programs and scanners open links too; RFC 8058's
   one-click POST is the server's own). */

import { api } from "../api.js";
import { h } from "../dom.js";
import { errorText, t } from "../i18n.js";

export function renderUnsubscribe(app, code) {
  const said = h("p", { id: "unsubscribe-said" }, t("unsubscribe_help"));
  const button = h(
    "button",
    {
      class: "primary",
      type: "button",
      id: "unsubscribe",
      onclick: async () => {
        button.disabled = true;
        try {
          await api("POST", `/api/unsubscribe/${encodeURIComponent(code)}`);
          said.textContent = t("unsubscribe_done");
          button.remove();
        } catch (err) {
          said.textContent = errorText(err);
          button.disabled = false;
          if (err && err.code === "unknown-subscription") button.remove();
        }
      },
    },
    t("unsubscribe_confirm"),
  );
  app.append(
    h(
      "section",
      { class: "panel", id: "unsubscribe-panel", "aria-labelledby": "unsubscribe-title" },
      h("h1", { id: "unsubscribe-title" }, t("unsubscribe_title")),
      said,
      button,
      h("p", {}, h("a", { href: "/" }, t("home"))),
    ),
  );
  button.focus();
}
