// The class board: runs of one chat from the server's event stream, drawn as the server
// rendered them (bot/view/board_html.py). Keys: <- -> earlier/later runs, + - text size, T theme,
// R reveal mode, space shows the next hidden step, P pins the run on screen, F follows the
// teacher again. The board follows the teacher (who asked for the link, data-lead-id) and
// the group's other admins (a co-teacher; the server marks their runs `lead`): it shows
// their newest run and stays there when students ask; other runs wait in the rail, a click
// shows (and pins) one. Hand-written, nothing to build.
"use strict";
(() => {
  const body = document.body;
  const main = document.getElementById("run");
  const where = document.getElementById("where");
  const rail = document.getElementById("rail");
  const lead = body.dataset.leadId || "";
  const linked = body.dataset.run ? Number(body.dataset.run) : null;  // from the course page
  const root = document.documentElement;
  const TWO_SIDED = ["compare", "runs", "models"];  // modes that end with two answers on top
  const state = {
    runs: [],            // the chat's recent runs, newest first: {n, question, mode, status}
    html: new Map(),     // n -> the run drawn whole
    shown: null,         // the n on screen
    pinned: linked !== null,  // stay on the shown run whatever starts (P, a click, <- ->)
    reveal: false,
    revealed: new Map(), // "n:lane" -> how many steps of it are shown in reveal mode
    size: Number(localStorage.getItem("board.size")) || 32,
  };

  function setSize(px) {
    state.size = Math.max(16, Math.min(96, px));
    root.style.setProperty("--size", state.size + "px");
    localStorage.setItem("board.size", String(state.size));
  }
  function setTheme(theme) {
    root.dataset.theme = theme;
    localStorage.setItem("board.theme", theme);
  }

  function newest() { return state.runs.length ? state.runs[0].n : state.shown; }

  function known(n) { return state.runs.some((r) => r.n === n); }

  function teachers(r) { return String(r.uid) === lead || r.lead === true; }

  function target() {  // the run to show: the pinned one, else the teachers' newest
    if (state.pinned && (known(state.shown) || state.shown === linked)) return state.shown;
    if (!lead) return newest();
    const mine = state.runs.find(teachers);
    return mine ? mine.n : newest();  // before a teacher's first question: the newest
  }

  function leadName() {  // whose run the board follows: the one on screen, or the link's
    const shown = state.runs.find((r) => r.n === state.shown && teachers(r) && r.user);
    const mine = shown || state.runs.find((r) => String(r.uid) === lead && r.user);
    return mine ? mine.user : body.dataset.lead;
  }

  function drawBar() {
    const words = state.pinned ? body.dataset.pinned : lead ? body.dataset.following : "";
    where.textContent = state.shown === null ? "" : (words ?
      words.replace("{n}", state.shown).replace("{name}", leadName()) : "#" + state.shown)
      + (state.reveal ? " · R" : "");
    drawRail();
  }

  function drawRail() {  // the other runs, running ones first: a click shows and pins one
    const others = state.runs.filter((r) => r.n !== state.shown)
      .sort((a, b) => (b.status === "running") - (a.status === "running") || b.n - a.n);
    rail.hidden = !others.length;
    body.classList.toggle("railed", others.length > 0);
    rail.replaceChildren();
    if (!others.length) return;
    const head = document.createElement("p");
    head.className = "count";
    head.textContent = body.dataset.rail.replace("{n}", others.length);
    rail.appendChild(head);
    for (const r of others.slice(0, 8)) {
      const item = document.createElement("button");
      item.type = "button";
      item.className = "other" + (r.status === "running" ? " running" : "");
      item.dataset.n = r.n;
      item.textContent = "#" + r.n + (r.user ? " " + r.user : "") +
        (r.status === "running" ? " ⏳" : "");
      item.title = r.question || "";
      item.addEventListener("click", () => { state.pinned = true; show(r.n); });
      rail.appendChild(item);
    }
  }

  function atEnd() {
    return window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - 48;
  }

  function draw() {
    const follow = atEnd();  // a board left at the end keeps showing the newest step
    const before = main.querySelector("article.run");
    const was = before ? before.dataset.n + ":" + before.dataset.status : "";
    const html = state.html.get(state.shown);
    if (html === undefined) {
      main.innerHTML = "";
      const p = document.createElement("p");
      p.className = "waiting";
      p.textContent = body.dataset.waiting;
      main.appendChild(p);
    } else {
      main.innerHTML = html;
      hideUnrevealed();
    }
    drawBar();
    const run = main.querySelector("article.run");
    const ended = run && TWO_SIDED.includes(run.dataset.mode) && run.dataset.status !== "running";
    if (ended) {  // a comparison's end: both answers and the judgement, at the top
      if (was !== run.dataset.n + ":" + run.dataset.status) window.scrollTo(0, 0);
    } else if (follow) window.scrollTo(0, document.documentElement.scrollHeight);
  }

  function laneSteps(name) {  // a lane's steps in the order they came: chain, then answer
    return [...main.querySelectorAll('[data-lane="' + name + '"] .step')]
      .sort((a, b) => Number(a.dataset.step) - Number(b.dataset.step));
  }

  function hideUnrevealed() {
    const names = new Set([...main.querySelectorAll("[data-lane]")].map((e) => e.dataset.lane));
    let holding = false;
    for (const name of names) {
      const steps = laneSteps(name);
      const lane = main.querySelector('.lane[data-lane="' + name + '"]');
      const key = state.shown + ":" + name;
      if (!state.reveal) { state.revealed.set(key, steps.length); continue; }
      const shown = state.revealed.get(key) ?? 0;
      let hidden = 0;
      steps.forEach((step, i) => { step.hidden = i >= shown; if (i >= shown) hidden++; });
      holding = holding || hidden > 0;
      for (const heading of lane.querySelectorAll(".round")) {  // a round shows with a step
        let el = heading.nextElementSibling;
        let shows = false;
        while (el && !el.classList.contains("round")) {
          if (el.classList.contains("step") && !el.hidden) shows = true;
          el = el.nextElementSibling;
        }
        heading.hidden = !shows;
      }
      if (hidden) {
        const next = document.createElement("div");
        next.className = "next";
        next.textContent = body.dataset.next;
        const last = shown > 0 ? steps[shown - 1] : null;
        if (last && lane.contains(last)) last.after(next); else if (last) lane.append(next);
        else (lane.querySelector("h2") ? lane.querySelector("h2").after(next)
          : lane.prepend(next));
      }
    }
    // Nothing tells the class how it ends before the last step is shown: no status, figures,
    // judgement or cost; the chains stay open to show the steps as they come.
    for (const el of main.querySelectorAll(".ending")) el.hidden = holding;
    for (const cell of main.querySelectorAll(".answers > .cell")) {  // no empty answer row
      cell.hidden = holding && ![...cell.querySelectorAll(".step")].some((s) => !s.hidden);
    }
    if (holding) for (const d of main.querySelectorAll("details.chains")) d.open = true;
  }

  async function show(n) {
    state.shown = n;
    if (n !== null && !state.html.has(n)) {
      const answer = await fetch(body.dataset.runs + n + "?lang=" + body.dataset.lang);
      if (answer.ok) state.html.set(n, (await answer.json()).html);
    }
    draw();
  }

  function step(by) {  // by -1: an earlier run, +1: a later one: pinned, but the newest
    const at = state.runs.findIndex((r) => r.n === state.shown);   // follows again
    const to = at - by;
    if (at < 0 || to < 0 || to >= state.runs.length) return;
    state.pinned = to !== 0;
    show(state.pinned ? state.runs[to].n : target());
  }

  const events = new EventSource(body.dataset.events);
  events.addEventListener("runs", (e) => {
    state.runs = JSON.parse(e.data).runs;
    const known = new Set(state.runs.map((r) => r.n));
    for (const n of state.html.keys()) if (!known.has(n) && n !== linked) state.html.delete(n);
    if (!known.has(state.shown) && state.shown !== linked) state.pinned = false;
    if (target() !== state.shown) show(target()); else drawBar();
  });
  events.addEventListener("run", (e) => {
    const run = JSON.parse(e.data);
    state.html.set(run.n, run.html);
    if (!state.runs.some((r) => r.n === run.n)) {
      state.runs.unshift({ n: run.n, status: run.status });
      state.runs.sort((a, b) => b.n - a.n);
    }
    for (const r of state.runs) if (r.n === run.n) r.status = run.status;
    if (run.n === state.shown) draw();
    else if (target() !== state.shown) show(target());
    else drawBar();
  });

  document.addEventListener("keydown", (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const key = e.key;
    if (key === "ArrowLeft") step(-1);
    else if (key === "ArrowRight") step(1);
    else if (key === "+" || key === "=") setSize(state.size + 4);
    else if (key === "-" || key === "_") setSize(state.size - 4);
    else if (key === "t" || key === "T") setTheme(root.dataset.theme === "dark" ? "light" : "dark");
    else if (key === "r" || key === "R") { state.reveal = !state.reveal; draw(); }
    else if (key === "p" || key === "P") { state.pinned = !state.pinned; show(target()); }
    else if (key === "f" || key === "F") { state.pinned = false; show(target()); }
    else if (key === " " && state.reveal) {
      for (const lane of main.querySelectorAll(".lane")) {
        const k = state.shown + ":" + lane.dataset.lane;
        const total = laneSteps(lane.dataset.lane).length;
        state.revealed.set(k, Math.min(total, (state.revealed.get(k) ?? 0) + 1));
      }
      draw();
    } else return;
    e.preventDefault();
  });

  setSize(state.size);
  setTheme(localStorage.getItem("board.theme") || "dark");
  drawBar();
  if (linked !== null) show(linked);
})();
