/* ofc-analytics, pages served by `ofc serve`: the live-lake notice, drill-down from charts and tables to the
   hands behind them, and the hand page opening its hand. Loaded before report.js. */
(function () {
  "use strict";

  function knownHands() {
    const node = document.getElementById("report-hands");
    if (!node) return {};
    try {
      return JSON.parse(node.textContent).hands || {};
    } catch (e) {
      return {};
    }
  }

  // A hand the page does not carry opens on its own page, from the whole lake.
  document.addEventListener(
    "click",
    (e) => {
      const link = e.target.closest && e.target.closest("a.hand-link[data-hand]");
      if (!link || e.button !== 0 || e.ctrlKey || e.metaKey || e.shiftKey || e.altKey) return;
      const id = link.getAttribute("data-hand");
      if (Object.prototype.hasOwnProperty.call(knownHands(), id)) return;
      e.preventDefault();
      e.stopImmediatePropagation();
      location.href = "/hand/" + encodeURIComponent(id) + location.search;
    },
    true
  );


  /* ---- the replayer: a hand action by action, each player's board as it stood when they acted ---- */

  const ORDER = ["1st to act", "2nd to act", "3rd to act", "button"]; // within a street; the button acts last

  function replaySteps(boards) {
    const streets = new Set();
    boards.forEach((b) => (b.streets || []).forEach((s) => streets.add(s.street)));
    const rank = (b) => (ORDER.indexOf(b.position) < 0 ? 9 : ORDER.indexOf(b.position));
    const acting = boards.slice().sort((a, b) => rank(a) - rank(b));
    const steps = [];
    Array.from(streets).sort((a, b) => a - b).forEach((street) => {
      acting.forEach((b) => {
        const here = (b.streets || []).find((s) => s.street === street);
        if (here && (here.placed.length || here.discarded.length)) steps.push({ street, board: b, moves: here });
      });
    });
    return steps;
  }

  // A board after the first n steps: the cards placed so far in their rows (the rest as empty places).
  function boardAt(b, steps, n) {
    const placed = new Set();
    const gone = [];
    steps.slice(0, n).forEach((s) => {
      if (s.board !== b) return;
      s.moves.placed.forEach((p) => placed.add(p.card));
      s.moves.discarded.forEach((c) => gone.push(c));
    });
    const done = n >= steps.length;
    const rows = b.rows.map((r) => ({
      row: r.row,
      cards: r.cards.filter((c) => placed.has(c)),
      hand: done ? r.hand : "",
      royalty: done ? r.royalty : null,
    }));
    // Fantasyland is known at the deal; the foul, the points and what the board earned at the end.
    const shown = { player: b.player, seat: b.seat, position: b.position, rows,
      fantasyland: b.fantasyland, fantasyland_cards: b.fantasyland_cards };
    if (done) Object.assign(shown, { fouled: b.fouled, points: b.points, royalties: b.royalties, entry: b.entry,
      stay: b.stay });
    return { shown, gone };
  }

  function setUpReplayer() {
    const box = document.getElementById("replayer");
    const api = window.ofcReport;
    if (!box || !api) return;
    const hand = knownHands()[box.getAttribute("data-hand")];
    if (!hand) return;
    const boards = hand.boards || [];
    const steps = replaySteps(boards);
    const root = document.documentElement;
    root.setAttribute("data-replay-steps", String(steps.length));
    const say = document.createElement("p");
    say.className = "replay-say";
    const grid = document.createElement("div");
    grid.className = "hv-boards";
    const decision = document.createElement("p");
    decision.className = "replay-decision";
    if (!steps.length) {
      say.textContent = hand.variant === "classic"
        ? "A classic hand is set at once: the boards as they were set."
        : "No street of this hand was recorded: the boards as they ended.";
      boards.forEach((b) => grid.appendChild(api.board(b)));
      box.append(say, grid);
      return;
    }
    const bar = document.createElement("div");
    bar.className = "replay-bar";
    const button = (label, title, to) => {
      const b = document.createElement("button");
      b.type = "button";
      b.textContent = label;
      b.title = title;
      b.addEventListener("click", () => show(to()));
      bar.appendChild(b);
      return b;
    };
    let at = 0; // steps shown: 0 is the deal, steps.length the end
    const first = button("\u00ab deal", "the deal (Home)", () => 0);
    const back = button("\u25c0 back", "one action back (\u2190)", () => at - 1);
    const next = button("forward \u25b6", "one action forward (\u2192)", () => at + 1);
    const last = button("end \u00bb", "the end (End)", () => steps.length);
    const weighed = hand.decisions || [];
    function show(n) {
      at = Math.max(0, Math.min(steps.length, n));
      root.setAttribute("data-replay-at", String(at));
      const step = steps[at - 1];
      while (grid.firstChild) grid.removeChild(grid.firstChild);
      boards.forEach((b) => {
        const { shown, gone } = boardAt(b, steps, at);
        const node = api.board(shown);
        if (step && step.board === b) node.classList.add("replay-now");
        if (gone.length) {
          const out = document.createElement("div");
          out.className = "discarded";
          out.append("discarded ");
          gone.forEach((c) => out.appendChild(api.card(c)));
          node.appendChild(out);
        }
        grid.appendChild(node);
      });
      say.textContent = !step
        ? "The deal: no card placed yet. Forward (\u2192) plays the hand one action at a time."
        : `Street ${step.street}: ${step.board.player} (${step.board.position || "seat " + step.board.seat}) places ` +
          step.moves.placed.map((p) => `${p.card} ${p.row}`).join(", ") +
          (step.moves.discarded.length ? `, discards ${step.moves.discarded.join(" ")}` : "") +
          `; the boards as ${step.board.player} saw them before acting, with this action. Step ${at} of ${steps.length}.`;
      const d = step && weighed.find((w) => w.player === step.board.player && w.street === step.street);
      decision.textContent = d
        ? `Weighed: played ${d.played} (expected ${d.ev_played.toFixed(2)}), best found ${d.best} ` +
          `(expected ${d.ev_best.toFixed(2)}): ${d.ev_lost > 0 ? "lost " + d.ev_lost.toFixed(2) : "nothing lost"}` +
          (typeof d.se === "number" ? ` \u00b1 ${d.se.toFixed(2)}` : "") + " points."
        : "";
      first.disabled = back.disabled = at === 0;
      next.disabled = last.disabled = at === steps.length;
      const params = new URLSearchParams(location.search);
      if (at) params.set("step", String(at));
      else params.delete("step");
      try {
        const query = params.toString();
        history.replaceState(history.state, "", location.pathname + (query ? "?" + query : "") + location.hash);
      } catch (e) {
        // a frame that refuses: the step is not in the address
      }
    }
    document.addEventListener("keydown", (e) => {
      if (document.querySelector("dialog[open]") || /^(INPUT|SELECT|TEXTAREA)$/.test(e.target.tagName)) return;
      const to = { ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: steps.length }[e.key];
      if (to === undefined) return;
      e.preventDefault();
      show(to);
    });
    box.append(bar, say, grid, decision);
    const training = new URLSearchParams(location.search).get("train");
    if (training && train(box, hand, steps, training, show)) return;
    show(Number(new URLSearchParams(location.search).get("step")) || 0); // a step in the address: shared as seen
  }


  /* ---- the trainer: a weighed decision as the player saw it; the user picks a move, then sees what each is worth */

  const SCORE_KEY = "ofc-trainer"; // kept in this browser only: {asked, right, lost}

  function score() {
    try {
      return JSON.parse(localStorage.getItem(SCORE_KEY)) || { asked: 0, right: 0, lost: 0 };
    } catch (e) {
      return { asked: 0, right: 0, lost: 0 };
    }
  }

  // Shows the position before the decision ``which`` ("STREET:PLAYER") and the moves weighed there; false when
  // the hand has no such decision (the replayer then starts as usual).
  function train(box, hand, steps, which, show) {
    const cut = which.indexOf(":");
    const street = Number(which.slice(0, cut));
    const player = which.slice(cut + 1);
    const d = (hand.decisions || []).find((w) => w.street === street && w.player === player);
    const at = steps.findIndex((s) => s.street === street && s.board.player === player);
    if (!d || at < 0) return false;
    show(at); // the boards as the player saw them, before acting
    const said = box.querySelector(".replay-say");
    if (said) said.textContent = `The boards as ${player} saw them on street ${street}, before acting.`;
    document.documentElement.setAttribute("data-train", "asked");
    const quiz = document.createElement("div");
    quiz.className = "trainer";
    const ask = document.createElement("p");
    ask.textContent = `Street ${street}: ${player} was dealt ${d.dealt}. Which move would you play?`;
    const choices = document.createElement("div");
    choices.className = "replay-bar";
    const answer = document.createElement("p");
    answer.className = "trainer-answer";
    const moves = d.best === d.played ? [d.played] : [d.played, d.best];
    if (Math.random() < 0.5) moves.reverse(); // the move played is not always first
    const ev = (m) => (m === d.best ? d.ev_best : d.ev_played);
    const se = typeof d.se === "number" ? ` \u00b1 ${d.se.toFixed(2)} (standard error of the difference)` : "";
    moves.forEach((m) => {
      const b = document.createElement("button");
      b.type = "button";
      b.textContent = m;
      b.addEventListener("click", () => {
        choices.querySelectorAll("button").forEach((x) => (x.disabled = true));
        const right = m === d.best;
        const s = score();
        s.asked += 1;
        s.right += right ? 1 : 0;
        s.lost += right ? 0 : d.ev_best - d.ev_played;
        try {
          localStorage.setItem(SCORE_KEY, JSON.stringify(s));
        } catch (e) {
          // private windows may refuse: the answer is still shown
        }
        answer.textContent =
          `You chose ${m}: expected ${ev(m).toFixed(2)} points. Played: ${d.played}, expected ` +
          `${d.ev_played.toFixed(2)}. Best found: ${d.best}, expected ${d.ev_best.toFixed(2)}${se}. ` +
          (right ? "The best move found." : `It costs ${(d.ev_best - d.ev_played).toFixed(2)} points.`) +
          ` This browser's training: ${s.right} of ${s.asked} best, ${s.lost.toFixed(1)} points left.`;
        document.documentElement.setAttribute("data-train", right ? "right" : "wrong");
        show(at + 1);
      });
      choices.appendChild(b);
    });
    quiz.append(ask, choices);
    if (d.kind !== "fantasyland" && d.played_rows) quiz.append(ownMove(hand, d, answer, () => show(at + 1)));
    quiz.append(answer);
    box.insertBefore(quiz, box.children[1] || null);
    return true;
  }

  // A move of one's own: a row (or the discard) for each card dealt, rolled out on the spot by the server against
  // the move played, from the decision's own seed.
  function ownMove(hand, d, answer, done) {
    const own = document.createElement("div");
    own.className = "replay-bar trainer-own";
    const label = document.createElement("span");
    label.textContent = "Or your own move:";
    own.appendChild(label);
    const ROWS = [["t", "top"], ["m", "middle"], ["b", "bottom"], ["x", "discard"]];
    const open = d.played_rows.includes("x") ? ROWS : ROWS.slice(0, 3);
    const selects = d.dealt.split(" ").map((card, i) => {
      const pick = document.createElement("select");
      pick.setAttribute("aria-label", `where ${card} goes`);
      open.forEach(([code, name]) => pick.add(new Option(`${card} ${name}`, code)));
      pick.value = d.played_rows[i];
      own.appendChild(pick);
      return pick;
    });
    const go = document.createElement("button");
    go.type = "button";
    go.textContent = "Weigh my move";
    go.addEventListener("click", () => {
      const move = selects.map((x) => x.value).join("");
      const ask = new URLSearchParams({ hand: hand.id, player: d.player, street: d.street, move });
      go.disabled = true;
      answer.textContent = "Rolling your move out against the move played\u2026";
      fetch(`/train/weigh?${ask}`)
        .then((r) => r.json())
        .then((w) => {
          go.disabled = false;
          if (w.error) {
            answer.textContent = w.error;
            document.documentElement.setAttribute("data-train", "refused");
            return;
          }
          const best = move === w.best_rows;
          const s = score();
          s.asked += 1;
          s.right += best ? 1 : 0;
          s.lost += Math.max(w.ev_best - w.ev_move, 0);
          try {
            localStorage.setItem(SCORE_KEY, JSON.stringify(s));
          } catch (e) {
            // private windows may refuse: the answer is still shown
          }
          answer.textContent =
            `Your move: expected ${w.ev_move.toFixed(2)} points, the move played ${w.ev_played.toFixed(2)} ` +
            `(${w.rollouts} rollouts of each on the same cards; \u00b1 ${w.se.toFixed(2)}, the standard error of ` +
            `the difference). Best found by the analysis: ${w.best}, expected ${w.ev_best.toFixed(2)} ` +
            `(\u00b1 ${w.se_best.toFixed(2)} against the move played). ` +
            `This browser's training: ${s.right} of ${s.asked} best, ${s.lost.toFixed(1)} points left.`;
          document.documentElement.setAttribute("data-train", "weighed");
          done();
        })
        .catch(() => {
          go.disabled = false;
          answer.textContent = "The server did not answer: is ofc serve still running?";
        });
    });
    own.appendChild(go);
    // A move in the address (?train=STREET:PLAYER&move=tmx) is weighed at once: a link to "what if I had played
    // this" can be shared.
    const asked = new URLSearchParams(location.search).get("move");
    if (asked && asked.length === selects.length) {
      selects.forEach((pick, i) => (pick.value = asked[i]));
      setTimeout(() => go.click(), 0);
    }
    return own;
  }

  function filters() {
    return new URLSearchParams(location.search);
  }

  function namesIn(selector) {
    return new Set(Array.from(document.querySelectorAll(selector)).map((o) => o.value).filter(Boolean));
  }

  // The hands page of these changes to the page's filters; ``from``: the element clicked, whose game (the
  // report's part it is in) the list keeps unless the changes name one.
  function handsOf(changes, from) {
    const params = filters();
    params.delete("min_hands");
    const game = from && from.closest && from.closest(".game[data-game]");
    if (game && !("variant" in changes)) params.set("variant", game.getAttribute("data-game"));
    for (const [k, v] of Object.entries(changes)) params.set(k, v);
    return "/hands?" + params.toString();
  }

  // The boards behind a chart's point: what the chart says of it (its trace's meta.drill: the parameters every
  // point shares and each point's own, a heatmap's by row then column; null: no board, nowhere to go), else
  // (undefined) what its label names.
  function drillOf(point, div) {
    const drill = point.data && point.data.meta && point.data.meta.drill;
    if (!drill) return undefined;
    const at = point.pointNumber !== undefined ? point.pointNumber : point.pointIndex;
    let own = {};
    if (drill.points && at !== undefined) {
      own = Array.isArray(at) ? (drill.points[at[0]] || [])[at[1]] : drill.points[at];
      if (own === null) return null;
    }
    return handsOf(Object.assign({}, drill.every || {}, own || {}), div);
  }

  // What a chart element or a table cell names: a player or a game, a seat (as the charts name one: ORDER,
  // whose place after the button is its index + 1, the button's 0), a table size ("3 players", the label or
  // the bar's series), boards in Fantasyland or not; else the page's own filters.
  function drillTo(label, series, div) {
    const text = String(label == null ? "" : label).trim();
    if (namesIn("#serve-players option").has(text)) return handsOf({ player: text }, div);
    if (namesIn('select[name="variant"] option').has(text)) return handsOf({ variant: text }, div);
    const changes = {};
    if (ORDER.includes(text)) changes.position = String((ORDER.indexOf(text) + 1) % ORDER.length);
    const size = /^([2-4]) players$/.exec(text) || /^([2-4]) players$/.exec(String(series || "").trim());
    if (size) changes.table_size = size[1];
    if (text === "in Fantasyland") changes.fantasyland = "in";
    if (text === "normal hands") changes.fantasyland = "out";
    return handsOf(changes, div);
  }

  function wireCharts() {
    document.querySelectorAll(".chart").forEach((div) => {
      if (!div.on || div.dataset.drill) return;
      div.dataset.drill = "1";
      div.on("plotly_click", (ev) => {
        const p = ev && ev.points && ev.points[0];
        if (!p) return;
        const horizontal = p.data && p.data.orientation === "h";
        const to = drillOf(p, div);
        if (to === null) return;
        location.href = to || drillTo(horizontal ? p.y : p.x, p.data && p.data.name, div);
      });
    });
  }

  function wireTables() {
    // A row that says what it counts (data-drill: the boards' parameters) leads to them from its first cell.
    document.querySelectorAll(".table-block tr[data-drill]").forEach((tr) => {
      const first = tr.cells[0];
      if (!first || first.querySelector("a.drill")) return;
      let changes;
      try {
        changes = JSON.parse(tr.getAttribute("data-drill"));
      } catch (e) {
        return;
      }
      const a = document.createElement("a");
      a.className = "drill";
      a.href = handsOf(changes, tr);
      a.title = "the boards of this row";
      a.textContent = " \u2197";
      first.appendChild(a);
    });
    const players = namesIn("#serve-players option");
    document.querySelectorAll(".table-block tr:not([data-drill]) td.text").forEach((td) => {
      const name = td.textContent.trim();
      if (!players.has(name) || td.querySelector("a.drill")) return;
      const a = document.createElement("a");
      a.className = "drill";
      a.href = handsOf({ player: name }, td);
      a.title = "the hands of " + name;
      a.textContent = " ↗";
      td.appendChild(a);
    });
  }

  function watchLake() {
    const live = document.getElementById("serve-live");
    if (!live || !window.fetch) return;
    const mine = live.getAttribute("data-state");
    const every = Number(live.getAttribute("data-poll-ms")) || 3000;
    document.getElementById("serve-reload").addEventListener("click", () => location.reload());
    const look = () => {
      fetch("/state", { cache: "no-store" })
        .then((r) => r.json())
        .then((s) => {
          if (s.state !== mine) {
            live.hidden = false;
            document.documentElement.setAttribute("data-lake-changed", "1");
          } else setTimeout(look, every);
        })
        .catch(() => setTimeout(look, every * 2));
    };
    setTimeout(look, every);
  }

  window.addEventListener("load", () => {
    setUpReplayer();
    watchLake();
    wireTables();
    wireCharts();
    // charts drawn after load (a game's tab opened later) are wired as they come
    setInterval(wireCharts, 1000);
  });
})();
