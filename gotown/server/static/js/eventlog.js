/* The table's game log, kept as the game goes on, so that an update's work and the elements
   drawn do not grow with the game's length: each state's new events are appended to those
   held and turned into lines, reading again only the last line's events (a new event may join
   it: another seat's draws in a row, a thief's cards); the list draws the last SHOWN lines,
   appends the new ones, and draws older ones only when asked ("Show earlier lines"). */
import { h } from "./dom.js";
import { lang, t } from "./i18n.js";
import { eventLines, seatName } from "./words.js";

/* Lines drawn at first, and added by each "show earlier". */
export const SHOWN = 150;
/* Lines drawn past what the reader asked for before the oldest go (removed in a batch, while
   the reader is at the end). */
const SLACK = 50;

/* What a line's words depend on besides its events: the language, the viewer, the names. */
const contextOf = (st) =>
  [lang(), st.seat, ...st.lobby.seats.map((_, s) => seatName(st.lobby, s, st.seat))].join("\u0000");

const lineEl = (line) => h("li", { class: line.cls || "" }, line.text);

export class EventLog {
  constructor() {
    this.events = []; // every event held, from the game's first
    this.lines = []; // the lines of those events (eventLines), in order
    this.context = null;
    this.list = null; // the drawn list (ul#log), kept across redraws
    this.first = 0; // the index of the first line drawn
    this.items = []; // the drawn lines' elements: items[k] is line first + k's
    this.stale = 0; // lines from this index on may differ from those drawn
    this.keep = SHOWN; // lines the list holds at most (plus SLACK): more after "show earlier"
  }

  get count() {
    return this.events.length;
  }

  /* Every event of the game (a whole state): the lines made again, the list drawn anew. */
  reset(events, st) {
    this.events = events; // (its own from now on: a state's array, parsed for the page)
    this.context = null;
    this.linesFor(st);
  }

  /* The events that follow those held: the last line's events read again with them (its
     line kept, and drawn, unless they changed it). */
  append(events, st) {
    if (!events.length) return;
    for (const e of events) this.events.push(e);
    if (this.context !== contextOf(st)) {
      this.linesFor(st);
      return;
    }
    const lines = this.lines;
    const start = lines.length ? lines[lines.length - 1].event : 0;
    let k = lines.length;
    while (k > 0 && lines[k - 1].event >= start) k--;
    const old = lines.splice(k);
    eventLines(this.events.slice(start), st).forEach((l, i) => {
      if (i < old.length && old[i].text === l.text && old[i].cls === l.cls) {
        lines.push(old[i]);
        return;
      }
      this.stale = Math.min(this.stale, lines.length);
      lines.push({ ...l, event: l.event + start });
    });
    if (lines.length < k + old.length) this.stale = Math.min(this.stale, lines.length);
  }

  /* The lines, in the words of `st` (its language, viewer and names): all made again when
     those changed (rare: a language chosen, a seat's name), and the list then drawn anew. */
  linesFor(st) {
    const context = contextOf(st);
    if (context !== this.context) {
      this.context = context;
      this.lines = eventLines(this.events, st);
      this.redrawFrom(Math.max(0, this.lines.length - this.keep));
    }
    return this.lines;
  }

  redrawFrom(first) {
    this.list = null; // (a new list: a redraw keeps the reader's place, not its elements)
    this.items = [];
    this.first = this.stale = first;
  }

  /* The list, brought up to date with the lines: the lines that changed at its end drawn
     again, the new ones appended, and (`atEnd`: the reader is at the end, not reading back)
     the oldest beyond what it keeps removed. */
  element(st, atEnd) {
    const lines = this.linesFor(st);
    if (lines.length - this.stale > this.keep) this.redrawFrom(lines.length - this.keep);
    // (Focusable: a scrolling region must be reachable by keyboard.)
    if (!this.list)
      this.list = h("ul", { class: "log", id: "log", tabindex: "0", "aria-label": t("log") });
    for (const el of this.items.splice(Math.max(0, this.stale - this.first))) el.remove();
    const added = lines.slice(this.first + this.items.length).map(lineEl);
    this.list.append(...added);
    this.items.push(...added);
    this.stale = lines.length;
    const over = this.items.length - this.keep;
    if (atEnd && over > SLACK) {
      for (const el of this.items.splice(0, over)) el.remove();
      this.first += over;
    }
    this.earlierButton();
    return this.list;
  }

  /* "Show earlier lines" at the top of the list while older lines are not drawn. */
  earlierButton() {
    const top = this.list.firstElementChild;
    const has = top?.classList.contains("earlier");
    if (this.first > 0 && !has) {
      this.list.prepend(
        h(
          "li",
          { class: "earlier" },
          h(
            "button",
            { type: "button", id: "log-earlier", onclick: () => this.showEarlier() },
            t("log_earlier"),
          ),
        ),
      );
    } else if (this.first === 0 && has) {
      top.remove();
    }
  }

  /* SHOWN more of the older lines, drawn above those drawn; the list keeps them from then on. */
  showEarlier() {
    const n = Math.min(SHOWN, this.first);
    const from = this.first - n;
    const older = this.lines.slice(from, this.first).map(lineEl);
    const top = this.list.firstElementChild;
    top.after(...older);
    this.items.unshift(...older);
    this.first = from;
    this.keep += n;
    if (from === 0) {
      top.remove();
      this.list.focus();
    }
  }
}
