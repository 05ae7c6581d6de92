/* One screen for a turn: the towers, the hand, its buttons and what just happened fit the
   screen's height without scrolling, whatever the towers' heights, the number of seats, the
   hand's size or the language. style.css sizes the cards of the towers (and, a little, those
   of the hand) by `--fit`; this finds the largest `--fit` at which the table's last part a
   turn needs ends above the screen's bottom edge, by halving (a few layouts per redraw). */

const SMALLEST = 0.45; // (the cards of a tower at 4 floors stay readable on a 360 px phone)
const STEPS = 6;
const NEEDED = ".notes, #strip, .others > .seatbox, .pile, .mine, #hand-panel";

const at = { root: null };

/* The bottom of the lowest part a turn needs, from the top of the page. */
function bottom(board) {
  let low = 0;
  for (const el of board.querySelectorAll(NEEDED))
    low = Math.max(low, el.getBoundingClientRect().bottom);
  return low + window.scrollY;
}

/* Fit the table drawn in `root` (again when the window changes size). A spectator's table
   (all the towers, no hand) is left as it is. */
export function fitTable(root) {
  at.root = root;
  const board = root.querySelector(".board:not(.watching)");
  if (!board) return;
  const screen = document.documentElement.clientHeight;
  const fits = (fit) => {
    board.style.setProperty("--fit", String(fit));
    return bottom(board) <= screen;
  };
  if (fits(1) || !fits(SMALLEST)) return; // (too much even then: as small as it goes)
  let lo = SMALLEST,
    hi = 1;
  for (let i = 0; i < STEPS; i++) {
    const mid = (lo + hi) / 2;
    if (fits(mid)) lo = mid;
    else hi = mid;
  }
  fits(lo);
}

let pending = false;
window.addEventListener("resize", () => {
  if (pending) return;
  pending = true;
  requestAnimationFrame(() => {
    pending = false;
    if (at.root?.isConnected) fitTable(at.root);
  });
});
