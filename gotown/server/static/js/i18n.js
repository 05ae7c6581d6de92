/* The page's words in the reader's language (static/i18n/<lang>.json), English as fallback,
   in the languages the server says (/api/meta).

   The loaded catalogue and the languages are the state this module keeps (private to it):
   every other module asks `t()` and `languages()`. */

import { take } from "./boot.js";
import { $, h, store } from "./dom.js";

const current = {
  strings: {},
  fallback: {},
  lang: "en",
  plurals: null,
  request: 0,
  languages: ["en"],
};

export const lang = () => current.lang;

/* The languages the page may speak (English always), each a choice of the page's menu. */
export const languages = () => current.languages;

export function useLanguages(codes) {
  current.languages = codes?.length ? [...codes] : ["en"];
  $("#lang").replaceChildren(
    ...current.languages.map((code) => h("option", { value: code }, languageName(code))),
  );
}

/* A language's name in itself ("Français"), as a menu names it (a capital first). */
export function languageName(code) {
  try {
    const name = new Intl.DisplayNames([code], { type: "language" }).of(code);
    return name.charAt(0).toLocaleUpperCase(code) + name.slice(1);
  } catch {
    return code.toUpperCase();
  }
}

/* A message with a {count} may have a form per plural category of the language (CLDR, as
   Intl.PluralRules names them): "key#one", "key#few", "key#many"; the plain key is the
   "other" form, and the form for any category a catalogue does not give. */
export function t(key, params = {}) {
  let text = current.strings[key] ?? current.fallback[key] ?? key;
  if (typeof params.count === "number" && current.plurals) {
    const form = current.plurals.select(params.count);
    if (form !== "other" && current.strings[`${key}#${form}`] !== undefined)
      text = current.strings[`${key}#${form}`];
  }
  for (const [k, v] of Object.entries(params)) text = text.split(`{${k}}`).join(String(v));
  return text;
}

export const has = (key) =>
  current.strings[key] !== undefined || current.fallback[key] !== undefined;

/* Load a language and relabel the page's frame (top bar, skip link). When two loads overlap,
   the latest request wins. */
export async function loadLang(code) {
  if (!current.languages.includes(code)) code = "en";
  const mine = ++current.request;
  const early = take("en"); // (asked for by boot.js as the page loaded: always needed)
  const url = (c) => new URL(`../i18n/${c}.json`, import.meta.url); // (beside the modules)
  const get = (c) =>
    (c === "en" && early ? early.catch(() => fetch(url("en"))) : fetch(url(c))).then((res) =>
      res.json(),
    );
  const fallback = Object.keys(current.fallback).length || code === "en" ? null : get("en");
  const strings = await get(code);
  if (!Object.keys(current.fallback).length) current.fallback = fallback ? await fallback : strings;
  if (mine !== current.request) return;
  current.strings = strings;
  current.lang = code;
  current.plurals =
    typeof Intl !== "undefined" && Intl.PluralRules ? new Intl.PluralRules(code) : null;
  document.documentElement.lang = code;
  $("#lang").value = code;
  $("#rules-link").textContent = t("rules");
  $("#rules-link").href = `/rules/${code}`;
  $("#lang-label").textContent = t("language");
  $("a.skip").textContent = t("skip_to_content");
  $("a.brand").setAttribute("aria-label", t("home"));
}

/* The language the reader chose on this device, if any. */
export function chosenLang() {
  const saved = store.get("lang");
  return current.languages.includes(saved) ? saved : null;
}

export function chooseLang(code) {
  store.set("lang", code);
  return loadLang(code);
}

/* The reader's choice, else the first of the browser's languages this page speaks. */
export function initialLang() {
  const saved = chosenLang();
  if (saved) return saved;
  const wanted = navigator.languages?.length ? navigator.languages : [navigator.language || "en"];
  for (const tag of wanted) {
    const code = String(tag).split("-")[0].toLowerCase(); // ("csb" is not "cs")
    if (current.languages.includes(code)) return code;
  }
  return "en";
}

/* An error in the reader's language only: the server's own (English) message goes to the
   console, and is shown only for a code this page has no words for. */
export function errorText(err) {
  if (!err) return t("err_network");
  const key = `err_${err.code}`;
  if (!has(key)) return err.message || t("err_network");
  if (err.message && err.code !== "network")
    console.info(`GoTown server: ${err.code}: ${err.message}`);
  return t(key) + (err.rule ? ` (${err.rule})` : "");
}
