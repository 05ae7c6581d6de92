/* Small DOM helpers: build elements, find them. No state. */

export const $ = (sel, root = document) => root.querySelector(sel);

/* An element with attributes and children: `on…` attributes become listeners, `text` the text,
   `class` the class name; null, undefined and false attributes or children are left out. */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") el.className = v;
    else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "text") el.textContent = v;
    else el.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

const SVG_NS = "http://www.w3.org/2000/svg";

/* An SVG element (same rules as `h`, without listeners). */
export function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v !== null && v !== undefined && v !== false) el.setAttribute(k, String(v));
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

/* Card names may hold soft hyphens (where a long name may break on a card): not in labels. */
export const plain = (text) => String(text).replace(/\u00ad/g, "");

/* Read and write this browser's small preferences; private mode (no storage) keeps defaults. */
export const store = {
  get(key) {
    try {
      return localStorage.getItem(`gotown.${key}`);
    } catch {
      return null;
    }
  },
  set(key, value) {
    try {
      localStorage.setItem(`gotown.${key}`, value);
    } catch {
      /* private mode */
    }
  },
};
