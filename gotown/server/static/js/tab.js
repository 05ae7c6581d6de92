/* The browser's tab says when it is your turn: its title ("● Your turn – GoTown") and its icon
   (GoTown's, with a badge: icons/icon-turn.svg beside icon.svg, at the same versioned address). */
import { t } from "./i18n.js";

const icon = { plain: null };

export function markTurn(mine) {
  document.title = mine ? `● ${t("your_turn")} – GoTown` : "GoTown";
  const link = document.querySelector('link[rel="icon"]');
  if (!link) return;
  if (icon.plain === null) icon.plain = link.getAttribute("href");
  const href = mine ? icon.plain.replace(/icon\.svg$/, "icon-turn.svg") : icon.plain;
  if (link.getAttribute("href") !== href) link.setAttribute("href", href);
  document.documentElement.dataset.turn = mine ? "mine" : "";
}
