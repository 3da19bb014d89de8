/* ofc-analytics, pages served by `ofc serve`: the live-lake notice, drill-down from charts and tables to the
   hands behind them, and the hand page opening its hand. Loaded before report.js. */
(function () {
  "use strict";

  // The hand page: its hand opens in the viewer (report.js opens the hand its address names).
  const handMeta = document.querySelector('meta[name="ofc-hand"]');
  if (handMeta && !location.hash) {
    try {
      history.replaceState(null, "", location.pathname + location.search + "#hand-" + handMeta.content);
    } catch (e) {
      // without the address the link on the page opens it
    }
  }

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

  function filters() {
    return new URLSearchParams(location.search);
  }

  function namesIn(selector) {
    return new Set(Array.from(document.querySelectorAll(selector)).map((o) => o.value).filter(Boolean));
  }

  function handsOf(changes) {
    const params = filters();
    params.delete("min_hands");
    for (const [k, v] of Object.entries(changes)) params.set(k, v);
    return "/hands?" + params.toString();
  }

  // What a chart element or a table cell names: a player or a game; else the page's own filters.
  function drillTo(label) {
    const text = String(label == null ? "" : label).trim();
    if (namesIn("#serve-players option").has(text)) return handsOf({ player: text });
    if (namesIn('select[name="variant"] option').has(text)) return handsOf({ variant: text });
    return handsOf({});
  }

  function wireCharts() {
    document.querySelectorAll(".chart").forEach((div) => {
      if (!div.on || div.dataset.drill) return;
      div.dataset.drill = "1";
      div.on("plotly_click", (ev) => {
        const p = ev && ev.points && ev.points[0];
        if (!p) return;
        const horizontal = p.data && p.data.orientation === "h";
        location.href = drillTo(horizontal ? p.y : p.x);
      });
    });
  }

  function wireTables() {
    const players = namesIn("#serve-players option");
    document.querySelectorAll(".table-block td.text").forEach((td) => {
      const name = td.textContent.trim();
      if (!players.has(name) || td.querySelector("a.drill")) return;
      const a = document.createElement("a");
      a.className = "drill";
      a.href = handsOf({ player: name });
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
    watchLake();
    wireTables();
    wireCharts();
    // charts drawn after load (a game's tab opened later) are wired as they come
    setInterval(wireCharts, 1000);
  });
})();
