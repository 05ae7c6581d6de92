/* The table's model: what the table's drawing (pages/table-view.js, towers.js, targets.js)
   reads, and the handlers of the gestures it draws. The table page (pages/table-screen.js), a
   lesson (pages/learn.js) and a replay (pages/replay.js) each make one with `tableModel`,
   giving what they have; the rest is the defaults below. A gesture whose handler is absent is
   not offered (a replay's past moment has no move to make, no seat to hand to a bot). */

/**
 * One seat's state as the server sends it (StateOut in gotown/wire.py; a replay builds one per
 * step): `seat` (null: a watcher), `lobby`, `view` (null in the lobby), `legal`, `version`,
 * `status` ("lobby", "playing", "over"), `game_id`.
 * @typedef {object} SeatState
 */

/**
 * @typedef {object} TableHandlers
 * @property {(action: object) => void} [act] make a move (one of `state.legal`)
 * @property {(index: number) => void} [toggle] pick the hand's card `index`, or put it back
 * @property {() => void} [hint] ask which move is best (sets `hints` and picks its cards)
 * @property {() => void} [explain] say what the last picked card does (a tap that hits no target)
 * @property {(ev: DragEvent, index: number) => void} [dragStart] the hand's card `index` dragged
 * @property {() => void} [dragEnd] a drag ended (dropped or not)
 * @property {(seat: number) => void} [handToBot] give an away (or free) seat to a bot
 * @property {(lines: object[], status: string) => void} [announce] tell screen readers what
 *   changed: the log's lines (words.js `eventLines`) and the status line
 * @property {(path: string) => void} [navigate] go to another of the page's addresses
 */

/**
 * @typedef {object} TableModel
 * @property {"seat"|"watch"|"lesson"|"replay"} mode a seat's live table, a watcher's, a step
 *   of a lesson (it has its own heading and end), or a past moment of a game (nobody's turn)
 * @property {SeatState|null} state the state drawn
 * @property {object} meta the server's facts (api.js `loadMeta`): R23 options, turn limits
 * @property {string|null} gameId
 * @property {string|{key: string}|null} token the seat's credential (api.js `api`)
 * @property {number[]} selected the hand's picked cards, by index, in the order picked
 * @property {{action: object, win_probability: number}[]|null} hints the server's best moves
 *   for this version (the first is suggested)
 * @property {Record<number, number>} prevFloors each seat's floors drawn before: those above
 *   are new (they rise)
 * @property {Record<number, number>} handoverAt when each away seat may be given to a bot
 *   (`performance.now()` milliseconds)
 * @property {{top: number, atEnd: boolean}|null} logKeep the reader's place in the log
 * @property {{drawer: boolean, options: boolean, discard: boolean}} open the folding panels
 *   open (the drawing keeps them as the reader leaves them, across redraws)
 * @property {import("./eventlog.js").EventLog|null} eventLog the live table's log, kept as the
 *   game goes on; null: drawn from the view's events (the drawing keeps it in `logCache`)
 * @property {{keys: string[], el: Element}|null} logCache
 * @property {object|null} ratings how a circle's game moved the ratings (the end screen)
 * @property {(() => Node)|null} chancesPanel the win-probability panel (pages/table-chances.js)
 * @property {(() => Node)|null} notifyPanel the "your turn" notices panel (turn-based tables)
 * @property {TableHandlers} on
 */

/** @returns {TableModel} */
export function tableModel({ on = {}, open = {}, ...fields }) {
  return {
    mode: "seat",
    state: null,
    meta: { options: {} },
    gameId: null,
    token: null,
    selected: [],
    hints: null,
    prevFloors: {},
    handoverAt: {},
    logKeep: null,
    open: { drawer: true, options: false, discard: false, ...open },
    eventLog: null,
    logCache: null,
    ratings: null,
    chancesPanel: null,
    notifyPanel: null,
    ...fields,
    on: { ...on },
  };
}

/* Where the cards `codes` are in `hand`: an index for each (each index once). */
export function handIndices(hand, codes) {
  const picked = [];
  for (const code of codes) {
    const i = hand.findIndex((c, j) => c === code && !picked.includes(j));
    if (i >= 0) picked.push(i);
  }
  return picked;
}

/* Seconds before the away seat `seat` may be given to a bot (0: now, or never asked). */
export function handoverLeft(model, seat) {
  const at = model.handoverAt[seat];
  return at === undefined ? 0 : Math.max(0, Math.ceil((at - performance.now()) / 1000));
}
