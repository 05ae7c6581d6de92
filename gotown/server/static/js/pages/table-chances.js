/* The win-probability bar of a seat's table (a per-device choice): asked for on this seat's
   turn and just after it, and drawn as a panel under the hand. */

import { api } from "../api.js";
import { h, store } from "../dom.js";
import { t } from "../i18n.js";
import { meter } from "./table-hand.js";

export class Chances {
  /* `table`: its `gameId`, `token`, `state` and `closed`; `redraw()` once an answer came. */
  constructor(table, redraw) {
    this.table = table;
    this.redraw = redraw;
    this.answer = null;
    this.asked = -1; // the version asked about (-1: ask at the next state)
    this.busy = false;
    this.failed = false;
    this.retry = null;
    this.delay = 0;
    this.wasMyTurn = false;
  }

  isOn() {
    return store.get("chances") === "1";
  }

  setOn(on) {
    store.set("chances", on ? "1" : "0");
    if (on) {
      this.asked = -1;
      this.poll();
    }
    this.redraw();
  }

  stop() {
    clearTimeout(this.retry);
  }

  /* Ask about the table's state if it is this seat's turn, its turn just ended, or nothing
     was asked yet (once a version). */
  poll() {
    const st = this.table.state;
    if (!st || st.seat === null || !st.view || st.view.over) return;
    const mine = st.view.active === st.seat;
    const justEnded = this.wasMyTurn && !mine;
    this.wasMyTurn = mine;
    if (!this.isOn() || this.busy) return;
    if (!(mine || justEnded || this.asked < 0)) return;
    if (this.asked === st.version) return;
    this.ask(st.version);
  }

  async ask(version) {
    const table = this.table;
    this.asked = version;
    this.busy = true;
    clearTimeout(this.retry);
    this.retry = null;
    let failed = false;
    try {
      this.answer = await api("GET", `/api/games/${table.gameId}/chances`, undefined, table.token);
      this.failed = false;
      this.delay = 0;
    } catch {
      // The bar is a nicety: say it is unavailable, and ask again at the next state, when the
      // socket comes back, or after a while (2 s, doubling up to a minute).
      failed = true;
      this.asked = -1;
      this.failed = true;
      this.delay = Math.min(60000, this.delay ? this.delay * 2 : 2000);
      if (!table.closed)
        this.retry = setTimeout(() => {
          this.retry = null;
          this.poll();
        }, this.delay);
    } finally {
      this.busy = false;
    }
    if (table.closed) return;
    const st = table.state;
    if (!failed && st && st.version !== version && st.view && st.view.active === st.seat)
      this.ask(st.version);
    else if (st) this.redraw();
  }

  panel() {
    const on = this.isOn();
    const box = h("input", {
      type: "checkbox",
      id: "chances-toggle",
      checked: on,
      onchange: (ev) => this.setOn(ev.target.checked),
    });
    const row = h(
      "div",
      { class: "panel chances" },
      h("div", { class: "row" }, box, h("label", { for: "chances-toggle" }, t("chances_toggle"))),
    );
    if (!on) return row;
    const c = this.answer;
    if (c && c.basis === "none") return row;
    const none = !c || c.win_probability === null || c.win_probability === undefined;
    if (this.failed && none)
      row.append(h("p", { class: "help", id: "chances-unavailable" }, t("chances_unavailable")));
    else if (none)
      row.append(h("p", { class: "help", id: "chances-wait" }, t("chances_computing")));
    else {
      const pct = Math.round(c.win_probability * 100);
      row.append(
        h(
          "div",
          { class: "field", id: "chances" },
          h("span", { id: "chances-text" }, t("win_chance", { p: pct })),
          meter(pct, t("win_chance", { p: pct })),
        ),
      );
    }
    return row;
  }
}
