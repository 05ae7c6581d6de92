/* Notices: a line floating over the top bar (style.css: it moves nothing), closed by a tap,
   and gone with the moment it belongs to: `clearNotices()` at every new page, at every new
   turn of a table and every new step of a lesson. An error stays longer than a notice (it may
   say what to do). */
import { $ } from "./dom.js";
import { t } from "./i18n.js";

const timer = { id: null };

export function toast(message, info = false) {
  const el = $("#toast");
  el.textContent = message;
  el.className = info ? "info" : "";
  el.hidden = false;
  clearTimeout(timer.id);
  timer.id = setTimeout(
    () => {
      el.hidden = true;
    },
    info ? 6000 : 12000,
  );
}

export function clearNotices() {
  clearTimeout(timer.id);
  $("#toast").hidden = true;
}

/* Copy a text: the Clipboard API where the page may use it (a secure context: https or
   localhost), else a hidden textarea and execCommand (a phone on http://192.168.x.y); if
   neither works, the text shown in `source` is selected, to be copied by hand. */
export async function copyText(text, source) {
  let ok = false;
  if (navigator.clipboard && window.isSecureContext) {
    try {
      await navigator.clipboard.writeText(text);
      ok = true;
    } catch {
      /* try the old way */
    }
  }
  if (!ok) {
    const back = document.activeElement;
    const area = document.createElement("textarea");
    Object.assign(area, { readOnly: true, tabIndex: -1, className: "copy-area", value: text });
    area.setAttribute("aria-hidden", "true");
    document.body.append(area);
    area.select();
    area.setSelectionRange(0, text.length);
    try {
      ok = document.execCommand("copy");
    } catch {
      ok = false;
    }
    area.remove();
    if (back?.focus) back.focus();
  }
  if (!ok && source) {
    const range = document.createRange();
    range.selectNodeContents(source);
    const sel = window.getSelection();
    sel.removeAllRanges();
    sel.addRange(range);
  }
  toast(ok ? t("copied") : t("copy_failed"), ok);
}

/* A name field refuses a blank (or only spaces) name, in the page's language. */
export function requireName(input) {
  const check = () => input.setCustomValidity(input.value.trim() ? "" : t("name_required"));
  input.addEventListener("input", check);
  check();
}
