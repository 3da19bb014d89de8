/* ofc-analytics report: tables you can sort, filter and save as CSV, and the hand viewer.
   Plain ES2017, no libraries, no network: the report is one file opened from disk. Text from the data
   (player names above all) only ever goes in as textContent, never as HTML. DOM contract: README.md. */
(function () {
  "use strict";

  const PAGE_ROWS = 25; // rows shown before "Show all"
  const root = document.documentElement;
  const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: "base" });

  // The one way this script makes elements: text is set as text, so data never becomes markup.
  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text != null) node.textContent = String(text);
    return node;
  }

  function count(n, word) {
    return n.toLocaleString("en-US") + " " + word + (n === 1 ? "" : "s");
  }

  /* ---- tables ---- */

  const tables = new WeakMap(); // table element -> its state

  // The raw value: data-v (empty means null), else the text shown.
  function cellValue(td) {
    if (!td) return "";
    return td.hasAttribute("data-v") ? td.getAttribute("data-v") : td.textContent.trim();
  }

  function sortKey(td, numeric) {
    const raw = cellValue(td).trim();
    if (raw === "") return null;
    if (!numeric) return raw;
    const n = Number(raw);
    return Number.isFinite(n) ? n : null;
  }

  function isNumeric(state, col) {
    return state.headers[col].getAttribute("data-type") === "num";
  }

  function stateOf(target) {
    const table = target && (target.matches("table") ? target : target.querySelector("table"));
    if (table && !tables.has(table)) setUpTable(table);
    return tables.get(table) || null;
  }

  function setUpTable(table) {
    const head = table.tHead && table.tHead.rows[0];
    const body = table.tBodies[0];
    if (!head || !body) return;
    const block = table.closest(".table-block") || table.parentNode;
    const rows = Array.from(body.rows);
    const state = {
      table, block, body, rows,
      headers: Array.from(head.cells),
      order: new Map(rows.map((tr, i) => [tr, i])), // the page's order breaks ties
      // Cells joined by a newline, so no filter word matches across two cells.
      text: new Map(rows.map((tr) => [tr, Array.from(tr.cells, (td) => td.textContent).join("\n").toLowerCase()])),
      words: [],
      expanded: rows.length <= PAGE_ROWS,
      col: -1,
      desc: false,
      counter: block.querySelector(".table-count"),
      more: null,
    };
    tables.set(table, state);
    state.headers.forEach((th, col) => {
      th.tabIndex = 0;
      th.setAttribute("role", "columnheader");
      th.classList.add("sortable");
      th.title = "Sort by " + th.textContent.trim();
      th.addEventListener("click", () => sortTable(table, col));
      th.addEventListener("keydown", (e) => {
        if (e.key !== "Enter" && e.key !== " ") return;
        e.preventDefault(); // Space would scroll the page
        sortTable(table, col);
      });
    });
    wireTools(state);
    render(state);
  }

  function wireTools(state) {
    const filter = state.block.querySelector(".table-filter");
    if (filter) {
      filter.addEventListener("input", () => setFilter(state, filter.value));
      if (filter.value) setFilter(state, filter.value); // the browser may restore it on reload
    }
    const save = state.block.querySelector(".table-csv");
    if (save) save.addEventListener("click", () => saveCsv(state));
    if (state.rows.length > PAGE_ROWS) {
      state.more = el("button", "table-showall");
      state.more.type = "button";
      state.more.addEventListener("click", () => {
        state.expanded = true;
        render(state);
      });
      const scroll = state.table.closest(".table-scroll") || state.table;
      scroll.parentNode.insertBefore(state.more, scroll.nextSibling);
    }
  }

  // Without `descending`: the first click sorts numbers high-first and text A-Z, the next reverses.
  function sortTable(target, col, descending) {
    const state = stateOf(target);
    if (!state || !state.headers[col]) return;
    const numeric = isNumeric(state, col);
    const desc = typeof descending === "boolean" ? descending : state.col === col ? !state.desc : numeric;
    const sign = desc ? -1 : 1;
    const keyed = state.rows.map((tr) => ({ tr, i: state.order.get(tr), k: sortKey(tr.cells[col], numeric) }));
    keyed.sort((a, b) => {
      if (a.k === null || b.k === null) return (a.k === null) - (b.k === null) || a.i - b.i; // nulls last
      return sign * (numeric ? a.k - b.k : collator.compare(a.k, b.k)) || a.i - b.i;
    });
    state.rows = keyed.map((x) => x.tr);
    const moved = document.createDocumentFragment();
    state.rows.forEach((tr) => moved.appendChild(tr)); // moves the rows: nothing is re-parsed
    state.body.appendChild(moved);
    Object.assign(state, { col, desc });
    state.headers.forEach((th, i) => {
      if (i === col) th.setAttribute("aria-sort", desc ? "descending" : "ascending");
      else th.removeAttribute("aria-sort");
    });
    render(state);
  }

  function setFilter(state, value) {
    state.words = value.toLowerCase().split(/\s+/).filter(Boolean);
    render(state);
  }

  function matches(state, tr) {
    const text = state.text.get(tr);
    return state.words.every((w) => text.includes(w));
  }

  // Hide what the filter rejects and, until "Show all", what lies past the first page.
  function render(state) {
    let matched = 0;
    state.rows.forEach((tr) => {
      const ok = matches(state, tr);
      if (ok) matched += 1;
      tr.hidden = !(ok && (state.expanded || matched <= PAGE_ROWS));
    });
    const total = state.rows.length;
    if (state.counter) {
      state.counter.textContent =
        matched === total ? count(total, "row") : matched.toLocaleString("en-US") + " of " + count(total, "row");
    }
    if (state.more) {
      state.more.hidden = state.expanded || matched <= PAGE_ROWS;
      state.more.textContent = "Show all " + count(matched, "row");
    }
  }

  // RFC 4180: quote a field holding a quote, comma, line break or edge space; double its quotes.
  function csvField(value) {
    return /[",\r\n]|^\s|\s$/.test(value) ? '"' + value.replace(/"/g, '""') + '"' : value;
  }

  // The rows the filter keeps (past "Show all" too), in the order shown, with raw values. A text
  // value a spreadsheet would run as a formula (= + - @) gets a leading ' so it stays text.
  function csv(target) {
    const state = stateOf(target);
    if (!state) return "";
    const lines = [state.headers.map((th) => th.textContent.trim())];
    state.rows.filter((tr) => matches(state, tr)).forEach((tr) => {
      lines.push(state.headers.map((th, col) => {
        const value = cellValue(tr.cells[col]);
        return !isNumeric(state, col) && /^[=+\-@\t\r]/.test(value) ? "'" + value : value;
      }));
    });
    return lines.map((cells) => cells.map(csvField).join(",")).join("\r\n") + "\r\n";
  }

  function saveCsv(state) {
    const name = (state.block.getAttribute("data-name") || "table").replace(/[^\w.-]+/g, "_");
    // The BOM makes Excel read the file as UTF-8.
    const url = URL.createObjectURL(new Blob(["\ufeff" + csv(state.table)], { type: "text/csv;charset=utf-8" }));
    const link = el("a");
    link.href = url;
    link.download = name + ".csv";
    document.body.appendChild(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 30000); // the download may start after click returns
  }

  /* ---- hand viewer ---- */

  let hands = {}; // id -> hand, from the JSON element #report-hands
  let dialog = null;
  let returnFocus = null;

  const SUITS = { c: ["\u2663", "clubs"], d: ["\u2666", "diamonds"], h: ["\u2665", "hearts"], s: ["\u2660", "spades"] };
  const RANKS = {
    2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine",
    T: "ten", J: "jack", Q: "queen", K: "king", A: "ace",
  };
  const ROW_SIZE = { top: 3, middle: 5, bottom: 5 };

  function loadHands() {
    const node = document.getElementById("report-hands");
    try {
      const data = node ? JSON.parse(node.textContent) : null;
      return isObject(data) && isObject(data.hands) ? data.hands : {};
    } catch (e) {
      console.warn("report-hands is not valid JSON", e); // the tables work without it
      return {};
    }
  }

  function isObject(x) {
    return x !== null && typeof x === "object" && !Array.isArray(x);
  }

  function list(x) {
    return Array.isArray(x) ? x.filter((item) => item != null) : [];
  }

  function has(obj, key) {
    return Object.prototype.hasOwnProperty.call(obj, key);
  }

  // 12 -> "12", 0.4345 -> "0.43", -18 -> "−18" (a real minus sign); not a number -> "".
  function num(x) {
    const n = typeof x === "number" ? x : NaN;
    if (!Number.isFinite(n)) return "";
    return (n < 0 ? "\u2212" : "") + Math.abs(n).toLocaleString("en-US", { maximumFractionDigits: 2 });
  }

  // Points with their sign, coloured by the CSS (+ green, − red).
  function points(x, className) {
    const kind = x > 0 ? " pos" : x < 0 ? " neg" : " zero";
    return el("span", (className || "pts") + kind, (x > 0 ? "+" : "") + num(x));
  }

  function card(text) {
    const m = /^(10|[2-9TJQKA])([cdhs])$/i.exec(String(text == null ? "" : text).trim());
    const rank = m && (m[1] === "10" ? "T" : m[1].toUpperCase());
    const suit = m && m[2].toLowerCase();
    const node = el("span", m ? "card suit-" + suit : "card back");
    node.setAttribute("role", "img");
    node.setAttribute("aria-label", m ? RANKS[rank] + " of " + SUITS[suit][1] : "unknown card");
    if (m) node.append(el("span", "rank", rank === "T" ? "10" : rank), el("span", "suit", SUITS[suit][0]));
    return node;
  }

  function boardHead(b) {
    const head = el("div", "board-head");
    const who = el("div", "who");
    who.appendChild(el("span", "player", b.player));
    const where = [b.seat != null ? "seat " + b.seat : "", b.position || ""].filter(Boolean).join(" \u00b7 ");
    if (where) who.appendChild(el("span", "seat", where));
    const badges = el("div", "badges");
    const add = (on, text, kind) => on && badges.appendChild(el("span", "badge " + kind, text));
    add(b.fantasyland, "Fantasyland" + (b.fantasyland_cards ? " " + b.fantasyland_cards : ""), "fl");
    add(b.fouled, "FOULED", "foul");
    add(b.natural, "natural: " + b.natural, "natural");
    add(b.surrendered, "surrendered", "natural");
    add(b.entry, "earned Fantasyland", "earned");
    add(b.stay, "stays in Fantasyland", "earned");
    head.append(who, badges);
    if (typeof b.points === "number") head.appendChild(points(b.points, "net"));
    return head;
  }

  function boardRow(r) {
    const name = String(r.row || "");
    const cards = el("span", "cards");
    const dealt = list(r.cards);
    dealt.forEach((c) => cards.appendChild(card(c)));
    // Cards not dealt yet keep their place, so the top row stays 3 wide over the 5-card rows.
    for (let i = dealt.length; i < (ROW_SIZE[name] || 0); i += 1) cards.appendChild(el("span", "card slot"));
    const line = el("div", "hv-row");
    const royalty = r.royalty ? (r.royalty > 0 ? "+" : "") + num(r.royalty) : "";
    line.append(el("span", "row-name", name), cards, el("span", "row-hand", r.hand), el("span", "royalty", royalty));
    return line;
  }

  function board(b) {
    const box = el("article", "board" + (b.fouled ? " fouled" : ""));
    const rows = el("div", "hv-rows");
    list(b.rows).forEach((r) => rows.appendChild(boardRow(r)));
    box.append(boardHead(b), rows);
    if (typeof b.royalties === "number") box.appendChild(el("div", "board-foot", "royalties " + num(b.royalties)));
    return box;
  }

  function part(title, content) {
    const box = el("div", "hv-part");
    box.append(el("h3", null, title), content);
    return box;
  }

  // A small table: headers, then rows of cells (text, or an element put in as is).
  function table(headers, rows) {
    const t = el("table", "hv-table");
    const head = t.createTHead().insertRow();
    headers.forEach((h) => head.appendChild(el("th", null, h)));
    const body = t.createTBody();
    rows.forEach((cells) => {
      const tr = body.insertRow();
      cells.forEach((c) => {
        const td = tr.insertCell();
        if (c instanceof Node) td.appendChild(c);
        else td.textContent = c == null ? "" : String(c);
      });
    });
    const wrap = el("div", "hv-wide"); // a wide table scrolls, the dialog does not
    wrap.appendChild(t);
    return wrap;
  }

  // One row's result from A's side: W (A won), L (B won), T (tie).
  function mark(v, a, b, row) {
    if (typeof v !== "number") return el("span", "mark", "\u2013");
    const [text, kind, who] = v > 0 ? ["W", "win", a + " won"] : v < 0 ? ["L", "loss", b + " won"] : ["T", "tie", "tie"];
    const node = el("span", "mark " + kind, text);
    node.title = row + ": " + who;
    node.setAttribute("aria-label", node.title);
    return node;
  }

  function pairsTable(pairs) {
    const rows = pairs.map((p) => {
      const a = String(p.a != null ? p.a : "?"), b = String(p.b != null ? p.b : "?");
      const who = el("span", "text");
      who.append(el("b", null, a), " vs ", el("b", null, b));
      const results = list(p.rows);
      const scoop = p.scoop > 0 ? a + " scooped" : p.scoop < 0 ? b + " scooped" : "";
      const royalties = p.royalties_a != null || p.royalties_b != null
        ? (num(p.royalties_a) || "0") + " \u2013 " + (num(p.royalties_b) || "0") : "";
      const marks = ["top", "middle", "bottom"].map((row, i) => mark(results[i], a, b, row));
      return [who, ...marks, scoop, royalties, points(p.points), String(p.settled || "").replace("_", " ")];
    });
    return table(["A vs B", "Top", "Middle", "Bottom", "Scoop", "Royalties A\u2013B", "Points of A", "Settled"], rows);
  }

  // Net points per player: as scored in this report, then under each other rule set.
  function compareTable(hand, boards) {
    const own = {};
    boards.forEach((b) => { own[b.player] = b.points; });
    const sets = [{ rules: (hand.rules || "this report") + " (as scored here)", points: own }];
    list(hand.compare).forEach((c) => sets.push({ rules: c.rules, points: isObject(c.points) ? c.points : {} }));
    const players = [];
    sets.forEach((s) => Object.keys(s.points).forEach((p) => players.includes(p) || players.push(p)));
    const rows = sets.map((s) => [String(s.rules), ...players.map((p) => (has(s.points, p) ? points(s.points[p]) : ""))]);
    return table(["Rule set", ...players], rows);
  }

  function streetsOf(b) {
    const box = el("div", "hv-streets");
    const ol = el("ol");
    list(b.streets).forEach((s, i) => {
      const li = el("li");
      li.appendChild(el("span", "street-no", s.street != null ? s.street : i + 1));
      list(s.placed).forEach((p) => {
        const put = el("span", "placed");
        put.append(card(p.card), el("span", "to", p.row || "?"));
        li.appendChild(put);
      });
      if (list(s.discarded).length) {
        const out = el("span", "discarded");
        out.appendChild(el("span", "to", "discarded"));
        list(s.discarded).forEach((c) => {
          const node = card(c);
          node.setAttribute("aria-label", node.getAttribute("aria-label") + ", discarded");
          node.title = "discarded";
          out.appendChild(node);
        });
        li.appendChild(out);
      }
      ol.appendChild(li);
    });
    box.append(el("h4", null, b.player), ol);
    return box;
  }

  const KIND = { initial: "first five", placement: "placement", discard: "with discard", fantasyland: "Fantasyland" };

  // Every decision weighed in the hand: the move played and the best found, with what the difference cost.
  function decisionsTable(decisions) {
    const rows = decisions.map((d) => {
      const cards = el("span", "cards");
      String(d.dealt || "").split(" ").filter(Boolean).forEach((c) => cards.appendChild(card(c)));
      const lost = el("span", d.ev_lost > 0 ? "pts neg" : "pts zero", d.ev_lost > 0 ? "\u2212" + num(d.ev_lost) : "0");
      const se = typeof d.se === "number" ? " \u00b1 " + num(d.se) : "";
      return [String(d.player), d.street, KIND[d.kind] || String(d.kind || ""), cards, String(d.played || ""),
        d.best === d.played ? "the same" : String(d.best || ""), points(d.ev_played), points(d.ev_best), lost, se];
    });
    const wrap = table(["Player", "Street", "Kind", "Cards", "Played", "Best found", "Expected, played",
      "Expected, best", "Lost", "\u00b1 s.e."], rows);
    wrap.firstChild.classList.add("hv-decisions");
    return wrap;
  }

  function meta(hand) {
    const bits = [hand.session, hand.table != null ? "table " + hand.table : "",
      hand.hand_number != null ? "hand " + hand.hand_number : "", hand.played_at, hand.variant,
      hand.rules ? "scored under " + hand.rules : "", hand.hand_id ? "id " + hand.hand_id : ""];
    return bits.filter(Boolean).join(" \u00b7 ");
  }

  function handBody(hand) {
    const body = el("div", "hv-body");
    const boards = list(hand.boards).filter(isObject);
    const grid = el("div", "hv-boards");
    boards.forEach((b) => grid.appendChild(board(b)));
    body.appendChild(grid);
    const pairs = list(hand.pairs).filter(isObject);
    if (pairs.length) body.appendChild(part("Pairs", pairsTable(pairs)));
    if (list(hand.compare).length) body.appendChild(part("Under other rule sets", compareTable(hand, boards)));
    const recorded = boards.filter((b) => list(b.streets).length);
    if (recorded.length) {
      const cols = el("div", "hv-street-grid");
      recorded.forEach((b) => cols.appendChild(streetsOf(b)));
      const box = part("Street by street", cols);
      if (recorded.some((b) => list(b.streets).some((s) => list(s.discarded).length))) {
        const legend = el("p", "hv-legend");
        const x = el("span", "hv-x");
        x.setAttribute("aria-hidden", "true");
        legend.append(x, "a card discarded; every other card is shown with the row it went to.");
        box.insertBefore(legend, cols);
      }
      body.appendChild(box);
    }
    const decisions = list(hand.decisions).filter(isObject);
    if (decisions.length) body.appendChild(part("Decisions weighed (ofc analyse)", decisionsTable(decisions)));
    return body;
  }

  // Fills the dialog with one hand, or says it is missing; returns the Close button.
  function fill(d, id, hand) {
    while (d.firstChild) d.removeChild(d.firstChild);
    const titles = el("div", "hv-titles");
    const h2 = el("h2", null, (hand && hand.title) || "Hand " + id);
    h2.id = "hand-viewer-title";
    titles.appendChild(h2);
    if (hand && meta(hand)) titles.appendChild(el("p", "hv-meta", meta(hand)));
    const close = el("button", "hv-close", "Close \u2715");
    close.type = "button";
    close.addEventListener("click", closeHand);
    const head = el("div", "hv-head");
    head.append(titles, close);
    const missing = el("div", "hv-body");
    missing.appendChild(el("p", "hv-missing", "This hand is not in the report."));
    d.append(head, hand ? handBody(hand) : missing);
    return close;
  }

  function viewer() {
    if (dialog) return dialog;
    dialog = el("dialog", "hand-viewer");
    dialog.setAttribute("aria-labelledby", "hand-viewer-title");
    // Esc: "cancel" comes at once, "close" only later (or never, in a headless browser).
    dialog.addEventListener("cancel", closeHand);
    dialog.addEventListener("close", closed);
    dialog.addEventListener("click", (e) => {
      // A click on the backdrop lands on the dialog itself, outside its box.
      const box = dialog.getBoundingClientRect();
      const out = e.clientX < box.left || e.clientX > box.right || e.clientY < box.top || e.clientY > box.bottom;
      if (e.target === dialog && out) closeHand();
    });
    document.body.appendChild(dialog);
    return dialog;
  }

  function openHand(id) {
    const key = String(id);
    const hand = has(hands, key) && isObject(hands[key]) ? hands[key] : null;
    const d = viewer();
    const close = fill(d, key, hand);
    if (!d.open) {
      returnFocus = document.activeElement;
      if (d.showModal) d.showModal();
      else d.setAttribute("open", ""); // no <dialog> support: shown at the end of the page
    }
    root.dataset.handOpen = key;
    setHash("#hand-" + encodeURIComponent(key));
    d.scrollTop = 0;
    close.focus();
  }

  function closeHand() {
    if (!dialog || !dialog.open) return;
    if (dialog.close) dialog.close();
    else dialog.removeAttribute("open");
    closed(); // now, not when the queued "close" event arrives
  }

  // Runs once per close: "close" events come later, when the viewer may already show another hand.
  function closed() {
    if (dialog.open || root.dataset.handOpen === undefined) return;
    delete root.dataset.handOpen;
    if (handInHash() !== null) setHash(location.pathname + location.search);
    if (returnFocus && returnFocus.isConnected) returnFocus.focus();
    returnFocus = null;
  }

  // replaceState: opening and closing hands adds no history entries and fires no hashchange.
  function setHash(url) {
    try {
      history.replaceState(history.state, "", url);
    } catch (e) {
      // A sandboxed frame may refuse; the viewer works without the address.
    }
  }

  function handInHash() {
    const hash = location.hash;
    if (!hash.startsWith("#hand-")) return null;
    try {
      return decodeURIComponent(hash.slice(6));
    } catch (e) {
      return hash.slice(6);
    }
  }

  function setUpHands() {
    hands = loadHands();
    if (!Object.keys(hands).length) return; // no hands in this report: links stay plain anchors
    document.addEventListener("click", (e) => {
      const link = e.target.closest && e.target.closest("a.hand-link[data-hand]");
      if (!link || e.button !== 0 || e.ctrlKey || e.metaKey || e.shiftKey || e.altKey) return;
      e.preventDefault();
      openHand(link.getAttribute("data-hand"));
    });
    window.addEventListener("hashchange", () => {
      const id = handInHash();
      if (id === null) closeHand();
      else if (root.dataset.handOpen !== id) openHand(id);
    });
    if (handInHash() !== null) openHand(handInHash());
  }

  /* ---- games: one variant's figures at a time ---- */

  // The game an address names: #game-VARIANT, or the id of anything inside a game (#VARIANT-fouls).
  function gameOf(hash) {
    if (!hash || hash.length < 2 || hash.startsWith("#hand-")) return null;
    let target = null;
    try {
      target = document.getElementById(decodeURIComponent(hash.slice(1)));
    } catch (e) {
      target = document.getElementById(hash.slice(1));
    }
    return target ? target.closest(".game") : null;
  }

  function showGame(which, fromAddress) {
    const games = Array.from(document.querySelectorAll(".game[data-game]"));
    const game = typeof which === "string" ? games.find((g) => g.dataset.game === which) : which;
    if (!game) return;
    games.forEach((g) => g.classList.toggle("shown", g === game));
    document.querySelectorAll(".game-tab[data-game]").forEach((tab) => {
      const on = tab.dataset.game === game.dataset.game;
      tab.setAttribute("aria-selected", String(on));
      tab.tabIndex = on ? 0 : -1;
    });
    root.dataset.game = game.dataset.game;
    // Charts drawn while their game was hidden take the width they have now.
    if (window.Plotly && Plotly.Plots) {
      game.querySelectorAll(".js-plotly-plot").forEach((chart) => Plotly.Plots.resize(chart));
    }
    if (!fromAddress) setHash("#game-" + game.dataset.game);
  }

  function setUpGames() {
    const tabs = Array.from(document.querySelectorAll(".game-tab[data-game]"));
    if (!tabs.length) return;
    root.classList.add("js-games");
    tabs.forEach((tab, i) => {
      tab.addEventListener("click", () => showGame(tab.dataset.game));
      tab.addEventListener("keydown", (e) => {
        const step = e.key === "ArrowRight" ? 1 : e.key === "ArrowLeft" ? -1 : 0;
        if (!step) return;
        const next = tabs[(i + step + tabs.length) % tabs.length];
        next.focus();
        showGame(next.dataset.game);
      });
    });
    const named = gameOf(location.hash);
    showGame(named || tabs[0].dataset.game, true);
    if (named && location.hash.slice(1) !== "game-" + named.dataset.game) {
      const target = document.getElementById(location.hash.slice(1));
      if (target) target.scrollIntoView();
    }
    window.addEventListener("hashchange", () => {
      const game = gameOf(location.hash);
      if (game) showGame(game, true);
    });
  }

  window.ofcReport = { openHand, closeHand, sortTable, csv, showGame, board, card };

  function start() {
    document.querySelectorAll(".table-block table.data").forEach(stateOf);
    setUpGames();
    setUpHands();
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
