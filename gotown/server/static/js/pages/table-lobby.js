/* A table waiting for its players: the invitation (link, QR code, share), the seats (a free
   one given to a bot), the options agreed, and the seat's own link. */
import { h } from "../dom.js";
import { t } from "../i18n.js";
import { copyText } from "../notices.js";
import { optionsSummary, seatLabel } from "../words.js";
import { seatLinkEl } from "./table-view.js";

export function drawLobby(app, model) {
  const st = model.state,
    lobby = st.lobby,
    mySeat = st.seat;
  const seats = h(
    "ul",
    { class: "seats-list", id: "lobby-seats" },
    ...lobby.seats.map((x) =>
      h(
        "li",
        {},
        seatLabel(lobby, x.seat),
        !x.taken && mySeat !== null
          ? h(
              "button",
              { class: "fill-bot", onclick: () => model.on.handToBot(x.seat) },
              t("give_to_bot"),
            )
          : null,
      ),
    ),
  );
  const code = lobby.invite_url ? lobby.invite_url.split("/j/").pop() : null;
  app.append(
    h(
      "section",
      { class: "panel" },
      h("h1", {}, t("waiting_title")),
      h("p", {}, t("waiting_help")),
      !lobby.invite_url
        ? null
        : h(
            "div",
            { class: "invite" },
            h("img", {
              src: `/api/invitations/${encodeURIComponent(code)}/qr.svg`,
              alt: t("qr_alt"),
              id: "qr",
            }),
            h(
              "div",
              {},
              h("p", {}, h("strong", {}, t("invitation_link"))),
              h("p", {}, h("code", { id: "invite-url" }, lobby.invite_url)),
              h(
                "div",
                { class: "row" },
                h(
                  "button",
                  {
                    id: "copy-invite",
                    type: "button",
                    onclick: () =>
                      copyText(lobby.invite_url, document.getElementById("invite-url")),
                  },
                  t("copy"),
                ),
                navigator.share
                  ? h(
                      "button",
                      {
                        id: "share-invite",
                        type: "button",
                        onclick: () =>
                          navigator
                            .share({
                              title: "GoTown",
                              text: t("share_text"),
                              url: lobby.invite_url,
                            })
                            .catch(() => {
                              /* dismissed */
                            }),
                      },
                      t("share"),
                    )
                  : null,
              ),
              h(
                "p",
                { class: "help" },
                t("watch_link"),
                " ",
                h("a", { href: lobby.watch_url }, lobby.watch_url),
              ),
              /^https?:\/\/(localhost|127\.|\[::1\])/.test(lobby.invite_url)
                ? h("p", { class: "warn", id: "localhost-warning" }, t("localhost_warning"))
                : null,
            ),
          ),
      h("h2", {}, t("seats")),
      seats,
      optionsSummary(lobby.options, lobby, model.meta),
      mySeat !== null ? seatLinkEl(model, lobby) : null,
      mySeat !== null && lobby.pace && model.notifyPanel ? model.notifyPanel() : null,
    ),
  );
}
