/* GoTown's web table: ES modules, no build step. Every piece of game data shown comes from the
   server's per-seat view. This module routes the address to a page and starts the page. */

import { loadMeta } from "./api.js";
import { cardEl, useText } from "./cards.js";
import { $, h } from "./dom.js";
import { useFacts } from "./facts.js";
import { chooseLang, errorText, initialLang, loadLang, t, useLanguages } from "./i18n.js";
import { listenLongPress } from "./longpress.js";
import { clearNotices, toast } from "./notices.js";
import { followLanguage } from "./notify.js";
import { renderCircle } from "./pages/circle.js";
import { renderCircleJoin } from "./pages/circles.js";
import { renderDeviceLink } from "./pages/devices.js";
import { renderHome } from "./pages/home.js";
import { renderJoin } from "./pages/join.js";
import { Lesson } from "./pages/learn.js";
import { renderPlayer } from "./pages/player.js";
import { renderReplay } from "./pages/replay.js";
import { TablePage } from "./pages/table.js";
import { renderUnsubscribe } from "./pages/unsubscribe.js";
import { markTurn } from "./tab.js";
import { eventLines } from "./words.js";

function parseRoute() {
  const p = location.pathname.split("/").filter(Boolean);
  const pages = {
    j: "join",
    g: "table",
    w: "watch",
    r: "replay",
    d: "device",
    unsubscribe: "unsubscribe",
    c: "circle-join",
    circle: "circle",
  };
  if (p[0] === "learn") return { name: "learn", id: p[1] || null };
  if (p[0] === "me" && !p[1]) return { name: "me", id: null };
  // (A member's page in a circle: /circle/ID?p=PLAYER.)
  const member = p[0] === "circle" && p[1] ? new URLSearchParams(location.search).get("p") : null;
  if (member) return { name: "member", id: p[1], player: member };
  return pages[p[0]] && p[1] ? { name: pages[p[0]], id: p[1] } : { name: "home", id: null };
}

/* The running page: the meta, the open table (if any) and the home form's draft live here,
   in one object made once at start. */
function start(meta) {
  const app = $("#app");
  const ctx = { meta, drafts: {}, table: null };
  ctx.navigate = (path, replace = false) => {
    if (replace) history.replaceState({}, "", path);
    else history.pushState({}, "", path);
    render();
  };
  ctx.refresh = () => render();
  listenLongPress(app, () => (ctx.table?.state?.view ? ctx.table.state.view.options : {}));
  function render() {
    const route = parseRoute();
    if (ctx.table) {
      ctx.table.close();
      ctx.table = null;
    }
    clearNotices();
    markTurn(false); // (the table, or the list of your tables, says it again)
    app.replaceChildren();
    if (route.name === "home") renderHome(app, ctx);
    else if (route.name === "join") renderJoin(app, route.id, ctx);
    else if (route.name === "replay") renderReplay(app, route.id, ctx);
    else if (route.name === "device") renderDeviceLink(app, route.id, ctx);
    else if (route.name === "unsubscribe") renderUnsubscribe(app, route.id);
    else if (route.name === "circle-join") renderCircleJoin(app, route.id, ctx);
    else if (route.name === "circle") renderCircle(app, route.id, ctx);
    else if (route.name === "member") renderPlayer(app, ctx, route.id, route.player);
    else if (route.name === "me") renderPlayer(app, ctx);
    else if (route.name === "learn") ctx.table = new Lesson(app, route.id, ctx);
    else ctx.table = new TablePage(app, route.id, route.name === "watch", ctx);
  }
  window.addEventListener("popstate", render);
  $("#lang").addEventListener("change", async (ev) => {
    await chooseLang(ev.target.value);
    followLanguage(); // (this device's notices speak the page's language)
    if (ctx.table?.state) ctx.table.draw();
    else render();
  });
  /* The browser tests' one hook (read-only): the open table and the functions they check
     directly. Nothing of the page reads it. */
  Object.defineProperty(window, "gotown", {
    value: Object.freeze({
      table: () => ctx.table,
      t,
      h,
      cardEl,
      eventLines,
      useText,
      toast,
      errorText,
    }),
  });
  render();
}

document.addEventListener("DOMContentLoaded", async () => {
  $("#toast").addEventListener("click", clearNotices);
  // (The server's facts first: they say the languages, and what the cards are.)
  const meta = await loadMeta();
  useFacts(meta);
  useLanguages(meta.languages);
  await loadLang(initialLang());
  start(meta);
});
