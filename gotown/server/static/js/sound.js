/* Short, soft sound effects made with the Web Audio API (no files): a card laid, a floor
   built, a steal, a hammer, a slurp, a horn, a cheer. Off unless the player turns them on. */
import { soundOn } from "./settings.js";

const audio = { ctx: null };

/* Each effect: [frequency Hz, seconds, wave, frequency at the end]. */
const EFFECTS = {
  card: [[660, 0.06, "triangle", 520]],
  build: [
    [520, 0.08, "triangle", 520],
    [780, 0.12, "triangle", 780],
  ],
  steal: [[700, 0.1, "sawtooth", 350]],
  hammer: [
    [110, 0.05, "square", 90],
    [110, 0.05, "square", 90],
    [110, 0.05, "square", 90],
  ],
  ball: [[180, 0.35, "sine", 60]],
  slurp: [[300, 0.25, "sine", 900]],
  horn: [
    [392, 0.15, "square", 392],
    [330, 0.2, "square", 330],
  ],
  cheer: [
    [523, 0.1, "triangle", 523],
    [659, 0.1, "triangle", 659],
    [784, 0.25, "triangle", 784],
  ],
};

export function play(name) {
  if (!soundOn() || !EFFECTS[name] || typeof AudioContext === "undefined") return;
  audio.ctx = audio.ctx || new AudioContext();
  const ctx = audio.ctx;
  let at = ctx.currentTime;
  for (const [freq, dur, wave, end] of EFFECTS[name]) {
    const osc = ctx.createOscillator(),
      gain = ctx.createGain();
    osc.type = wave;
    osc.frequency.setValueAtTime(freq, at);
    osc.frequency.exponentialRampToValueAtTime(end, at + dur);
    gain.gain.setValueAtTime(0.08, at);
    gain.gain.exponentialRampToValueAtTime(0.001, at + dur);
    osc.connect(gain).connect(ctx.destination);
    osc.start(at);
    osc.stop(at + dur);
    at += dur * 1.1;
  }
}

/* The effect of an action. */
export const SOUND_OF = {
  build: "build",
  steal: "steal",
  dog: "card",
  bone: "card",
  jackhammer: "hammer",
  "wrecking-ball": "ball",
  milkshake: "slurp",
  "donut-truck": "horn",
  thief: "steal",
  "super-thief": "steal",
};
