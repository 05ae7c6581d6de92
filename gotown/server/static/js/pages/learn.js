/* "Learn to play" (/learn, /learn/<lesson>): the guided first game. Each step's table is drawn
   as the table page draws a game (table-view.js), under one sentence that says the move; the
   cards of that move are marked, and their targets glow once they are chosen. The move goes
   to the lesson, which makes it only when it is the step's: any other is answered gently and
   changes nothing. After the last lesson, one tap starts a free game against the easy bot. */

import { api, tokens } from "../api.js";
import { h, store } from "../dom.js";
import { cardsPlayed } from "../facts.js";
import { fitTable } from "../fit.js";
import { errorText, lang, t } from "../i18n.js";
import { clearNotices, toast } from "../notices.js";
import { handIndices, tableModel } from "../table-model.js";
import { listenTargets, markTargets, pickHandlers } from "../targets.js";
import { drawGame } from "./table-view.js";

export class Lesson {
  constructor(app, lessonId, ctx) {
    Object.assign(this, { app, navigate: ctx.navigate });
    this.lessons = null;
    this.step = null;
    this.state = null;
    this.done = false;
    this.finished = false;
    this.feedback = null;
    this.busy = false;
    this.closed = false;
    this.told = null;
    this.stage = h("div", { id: "lesson-table" });
    // The table drawn: the step's state (without its moves once the step is done).
    this.model = tableModel({
      mode: "lesson",
      meta: ctx.meta,
      gameId: "lesson",
      open: { drawer: false },
      on: { act: (a) => this.act(a), hint: () => this.hint(), navigate: ctx.navigate },
    });
    Object.assign(
      this.model.on,
      pickHandlers(this.stage, this.model, () => this.draw()),
    );
    listenTargets(this.stage, this.model);
    app.append(h("p", { class: "loading" }, t("connecting")));
    this.start(lessonId);
  }

  async start(lessonId) {
    try {
      this.lessons = (await api("GET", "/api/lessons")).lessons;
      const first = this.lessons.some((l) => l.id === lessonId) ? lessonId : this.lessons[0].id;
      await this.load(first, 0);
    } catch (err) {
      this.app.replaceChildren(h("p", { class: "panel" }, errorText(err)));
    }
  }

  async load(lessonId, step) {
    const data = await api("GET", `/api/lessons/${encodeURIComponent(lessonId)}/steps/${step}`);
    if (this.closed) return;
    if (location.pathname !== `/learn/${lessonId}`)
      history.replaceState({}, "", `/learn/${lessonId}`);
    this.show(data);
  }

  show(data, feedback = null) {
    const changed = !this.step || this.step.lesson !== data.lesson;
    // A notice belongs to its step: a new step (or another lesson) takes it away.
    if (changed || this.step.step !== data.step) clearNotices();
    const model = this.model;
    if (this.state && !changed)
      this.state.view.towers.forEach((tw, s) => {
        model.prevFloors[s] = tw.length;
      });
    else model.prevFloors = {};
    this.step = data;
    this.state = data.state;
    model.selected = [];
    model.hints = null;
    this.feedback = feedback;
    this.draw();
  }

  close() {
    this.closed = true;
    document.title = "GoTown";
  }

  /* The lesson's words above the table, and the table (no moves while a step is done). */
  draw() {
    if (!this.step) return;
    const d = this.step,
      app = this.app;
    const index = this.lessons.findIndex((l) => l.id === d.lesson);
    const say = this.finished ? t("lesson_done") : t(d.key);
    const panel = h(
      "section",
      { class: "panel lesson", id: "lesson", "aria-labelledby": "lesson-title" },
      h(
        "p",
        { class: "help", id: "lesson-progress" },
        t("lesson_step", { i: index + 1, n: this.lessons.length }),
      ),
      h(
        "h1",
        { id: "lesson-title" },
        this.finished ? t("learn") : t(this.lessons[index].title_key),
      ),
      h("p", { class: "lesson-say", id: "lesson-say" }, say),
    );
    const answer = h("div", { class: "lesson-answer" });
    if (this.feedback)
      answer.append(
        h(
          "p",
          { class: `lesson-feedback ${this.done ? "right" : "gentle"}`, id: "lesson-feedback" },
          this.feedback,
        ),
      );
    if (this.finished) {
      answer.append(
        h(
          "button",
          { class: "primary big", id: "free-game", onclick: () => this.freeGame() },
          h("strong", {}, t("lesson_free_game")),
        ),
      );
    } else if (this.done) {
      answer.append(
        h(
          "button",
          { class: "primary", id: "lesson-next", onclick: () => this.next() },
          t("lesson_next"),
        ),
      );
    }
    if (answer.firstChild) panel.append(answer);
    // (Only a keyboard's focus is moved on: a tap leaves the page where it is.)
    const active = document.activeElement;
    const focusId =
      active && app.contains(active) && active.matches(":focus-visible") ? active.id || "-" : null;
    this.model.state = this.done || this.finished ? { ...this.state, legal: [] } : this.state;
    const holder = h("div", {});
    drawGame(holder, this.model);
    this.stage.replaceChildren(holder);
    app.replaceChildren(panel, this.stage);
    fitTable(this.stage);
    if (!this.done && !this.finished) {
      markTargets(this.stage, this.model);
      this.mark();
    }
    // The keyboard stays where it was, or goes on to what the step needs next.
    const keep = focusId && document.getElementById(focusId);
    if (focusId && this.done) focusOn("lesson-next");
    else if (keep) keep.focus();
    else if (focusId) {
      const pick = this.stage.querySelector(".lesson-pick");
      if (pick) pick.focus();
    }
    document.title = `${t("learn")} – GoTown`;
    // Said once per step and answer (not again at every card chosen).
    const told = [this.feedback, say].filter(Boolean).join(" ");
    const live = document.getElementById("announce");
    if (live && told !== this.told) {
      live.textContent = told;
      this.told = told;
    }
  }

  /* The cards of the step's move (not chosen yet) are marked, and its target once it glows;
     a step that ends the turn marks its button. */
  mark() {
    const move = this.step.move;
    if (move.type === "end-turn") {
      const b = this.stage.querySelector("#end-turn");
      if (b) b.classList.add("lesson-pick");
      return;
    }
    const want = JSON.stringify(move);
    for (const el of this.stage.querySelectorAll(".glow"))
      if (el.dataset.move === want) el.classList.add("lesson-pick");
    for (const i of handIndices(this.state.view.hand, cardsPlayed(move))) {
      const el = this.stage.querySelector(`#card-${i}`);
      if (el && !this.model.selected.includes(i)) el.classList.add("lesson-pick");
    }
    // Of the buttons the chosen cards offer, the step's move is the main one (and marked).
    for (const b of this.stage.querySelectorAll("#actions .act:not(#end-turn)")) {
      b.classList.toggle("primary", b.dataset.move === want);
      b.classList.toggle("lesson-pick", b.dataset.move === want);
    }
  }

  /* "Hint": choose the step's cards, so that their targets glow. */
  hint() {
    this.model.selected = handIndices(this.state.view.hand, cardsPlayed(this.step.move));
    this.draw();
  }

  async act(action) {
    if (this.busy || this.done || this.finished) return;
    this.busy = true;
    try {
      const d = this.step;
      const res = await api(
        "POST",
        `/api/lessons/${encodeURIComponent(d.lesson)}/steps/${d.step}`,
        { action },
      );
      if (this.closed) return;
      this.done = res.correct;
      this.show(
        res.after,
        res.correct ? t("lesson_right") : t(res.feedback) + (res.rule ? ` (${res.rule})` : ""),
      );
    } catch (err) {
      toast(errorText(err));
    } finally {
      this.busy = false;
    }
  }

  /* On to the next step: the table stays (it is where the next step begins), or the next
     lesson is set; after the last, the way to a real game. */
  async next() {
    const d = this.step;
    this.done = false;
    if (d.step < d.steps) {
      this.show(d);
      return;
    }
    if (!d.next) {
      this.finished = true;
      this.feedback = null;
      this.draw();
      focusOn("free-game");
      return;
    }
    try {
      await this.load(d.next.lesson, d.next.step);
    } catch (err) {
      toast(errorText(err));
    }
  }

  async freeGame() {
    const who = store.get("name") || t("default_name");
    try {
      const res = await api("POST", "/api/games", {
        seats: [{ kind: "human" }, { kind: "bot", level: "easy" }],
        options: {},
        language: lang(),
        name: who,
      });
      tokens.set(res.game_id, res.token);
      this.navigate(`/g/${res.game_id}`);
    } catch (err) {
      toast(errorText(err));
    }
  }
}

function focusOn(id) {
  const el = document.getElementById(id);
  if (el) el.focus();
}
