/* This device's table settings: the speed of the motion and the sound effects (off by
   default). */
import { h, store } from "./dom.js";
import { t } from "./i18n.js";

export const SPEEDS = { slow: 1.6, normal: 1, fast: 0.5 };

export const speed = () => SPEEDS[store.get("speed")] ?? 1;
export const soundOn = () => store.get("sound") === "1";

export function settingsPanel() {
  const sel = h(
    "select",
    { id: "speed" },
    ...Object.keys(SPEEDS).map((k) => h("option", { value: k }, t(`speed_${k}`))),
  );
  sel.value = SPEEDS[store.get("speed")] ? store.get("speed") : "normal";
  sel.addEventListener("change", () => store.set("speed", sel.value));
  const sound = h("input", { type: "checkbox", id: "sound-toggle", checked: soundOn() });
  sound.addEventListener("change", () => store.set("sound", sound.checked ? "1" : "0"));
  return h(
    "div",
    { class: "settings", id: "settings" },
    h("div", { class: "row" }, h("label", { for: "speed" }, t("speed")), sel),
    h("div", { class: "row" }, sound, h("label", { for: "sound-toggle" }, t("sound"))),
  );
}
