// view.js - the page of `attnviz --export html` (compiled into attnviz by
// scripts/gen-sentences.sh; src/render/html.c writes it after the data).
// Reads the JSON of <script id="attnviz-data">, draws the heads of a layer as
// small multiples, the focused head, a token's row as bars and a cell's
// weight and raw score. The URL fragment #layer=L&head=H&token=T&key=K
// (1-based) selects the view; the selection is written back into it. The
// sentence's chips (<span class="tok" data-token="T">) select their token's
// row on a click, Enter or Space.
"use strict";
(function () {
  var D = JSON.parse(document.getElementById("attnviz-data").textContent);
  var SVGNS = "http://www.w3.org/2000/svg";
  function bytes(b64) {
    var s = atob(b64), a = new Uint8Array(s.length);
    for (var k = 0; k < s.length; k++) a[k] = s.charCodeAt(k);
    return new DataView(a.buffer);
  }
  function half(u) {
    var s = u & 0x8000 ? -1 : 1, e = (u >> 10) & 31, m = u & 1023;
    if (e === 0) return s * m * Math.pow(2, -24);
    if (e === 31) return m ? NaN : s * Infinity;
    return s * (1 + m / 1024) * Math.pow(2, e - 15);
  }
  var W = bytes(D.weights), S = D.scores ? bytes(D.scores) : null;
  var rowStart = [0], perHead = 0;
  for (var i = 0; i < D.rows; i++) { perHead += D.vis[i]; rowStart.push(perHead); }
  var st = { layer: D.focus.layer, head: D.focus.head, token: -1, key: -1 };

  // Weight of cell (i, j) of head h of layer l: a number, or null when masked.
  function weight(l, h, i, j) {
    if (j >= D.vis[i]) return null;
    var v = W.getUint16(2 * ((l * D.H + h) * perHead + rowStart[i] + j), true);
    return v === D.masked ? null : v / D.scale;
  }
  function score(l, h, i, j) {
    if (!S || j >= D.vis[i]) return null;
    return half(S.getUint16(2 * ((l * D.H + h) * perHead + rowStart[i] + j), true));
  }
  function level(w) { return w >= 1 ? 15 : Math.max(0, Math.min(15, Math.floor(Math.sqrt(w) * 16))); }
  function colour(w) { return w === null ? "url(#hatch)" : D.ramp[level(w)]; }
  function pct(w) { return (100 * w).toFixed(1) + "%"; }
  function el(tag, attrs, text, ns) {
    var e = ns ? document.createElementNS(SVGNS, tag) : document.createElement(tag);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function rowLabel(i) { return (D.numberRows ? i + 1 + " " : "") + D.rowLabels[i]; }
  function short(s) { return s.length > 12 ? s.slice(0, 12) + "\u2026" : s; }

  // The hatching of masked cells, as a canvas pattern (the SVG's <pattern>).
  var hatchTile = null;
  function hatch(g) {
    if (!hatchTile) {
      hatchTile = el("canvas", { width: 6, height: 6 });
      var x = hatchTile.getContext("2d");
      x.fillStyle = D.maskFill; x.fillRect(0, 0, 6, 6);
      x.strokeStyle = "#808080"; x.beginPath();
      x.moveTo(0, 6); x.lineTo(6, 0); x.moveTo(0, 0); x.lineTo(6, 6); x.stroke();
    }
    return g.createPattern(hatchTile, "repeat");
  }

  // The small multiples: one canvas a head of the current layer.
  function multiples(box) {
    box.textContent = "";
    var px = Math.max(1, Math.floor(120 / Math.max(D.rows, D.cols)));
    for (var h = 0; h < D.H; h++) {
      var fig = el("figure", { "class": h === st.head ? "mult on" : "mult", "data-head": h + 1 });
      var cv = el("canvas", { width: D.cols * px, height: D.rows * px });
      var g = cv.getContext("2d");
      for (var i = 0; i < D.rows; i++)
        for (var j = 0; j < D.cols; j++) {
          var w = weight(st.layer, h, i, j);
          g.fillStyle = w === null ? hatch(g) : D.ramp[level(w)];
          g.fillRect(j * px, i * px, px, px);
        }
      fig.appendChild(cv);
      fig.appendChild(el("figcaption", {}, "Head " + (h + 1) + ": " + D.headLabels[st.layer][h]));
      fig.addEventListener("click", (function (hh) { return function () { select({ head: hh }); }; })(h));
      box.appendChild(fig);
    }
  }

  // The focused head as SVG: row labels select a token, cells a key.
  function focus(box) {
    box.textContent = "";
    var n = Math.max(D.rows, D.cols), cs = Math.max(6, Math.min(32, Math.floor(640 / n)));
    var lw = 110, lh = 90, fs = Math.min(12, Math.max(7, Math.floor(cs * 0.55)));
    var svg = el("svg", { width: lw + cs * D.cols + 4, height: lh + cs * D.rows + 4, id: "focus-svg" }, undefined, true);
    var defs = el("defs", {}, undefined, true), pat = el("pattern", { id: "hatch", patternUnits: "userSpaceOnUse", width: 6, height: 6 }, undefined, true);
    pat.appendChild(el("rect", { width: 6, height: 6, fill: D.maskFill }, undefined, true));
    pat.appendChild(el("path", { d: "M0 6L6 0M-1 1L1 -1M5 7L7 5M0 0L6 6M-1 5L1 7M5 -1L7 1", stroke: "#808080" }, undefined, true));
    defs.appendChild(pat); svg.appendChild(defs);
    for (var i = 0; i < D.rows; i++) {
      var t = el("text", { x: lw - 4, y: lh + cs * (i + 0.5) + fs * 0.35, "text-anchor": "end", "font-size": fs,
        "class": i === st.token ? "rowlab sel" : "rowlab", "data-token": i + 1 }, short(rowLabel(i)), true);
      t.addEventListener("click", (function (ii) { return function () { select({ token: ii }); }; })(i));
      t.addEventListener("mouseenter", (function (ii) { return function () { preview(ii); }; })(i));
      svg.appendChild(t);
    }
    for (var j = 0; j < D.cols; j++)
      svg.appendChild(el("text", { transform: "translate(" + (lw + cs * (j + 0.5) + fs * 0.35) + " " + (lh - 4) + ") rotate(-90)",
        "font-size": fs, "class": j === st.key ? "collab sel" : "collab" }, short(D.colLabels[j]), true));
    for (i = 0; i < D.rows; i++)
      for (j = 0; j < D.cols; j++) {
        var w = weight(st.layer, st.head, i, j);
        var r = el("rect", { x: lw + cs * j, y: lh + cs * i, width: cs, height: cs, fill: colour(w),
          "class": i === st.token && j === st.key ? "cell cur" : "cell", "data-token": i + 1, "data-key": j + 1 }, undefined, true);
        r.addEventListener("click", (function (ii, jj) { return function () { select({ token: ii, key: jj }); }; })(i, j));
        svg.appendChild(r);
      }
    box.appendChild(svg);
  }

  // The bars of row i: weights ranked, masked keys last, as on the screen.
  function bars(box, i) {
    box.textContent = "";
    var title = document.getElementById("bars-title");
    if (i < 0) { title.textContent = "Click or hover a token to see its row"; return; }
    title.textContent = "Token " + rowLabel(i) + " attends to";
    var ks = [];
    for (var j = 0; j < D.cols; j++) ks.push(j);
    var wt = function (j) { var w = weight(st.layer, st.head, i, j); return w === null ? -1 : w; };
    ks.sort(function (a, b) { return wt(b) - wt(a) || a - b; });
    ks.forEach(function (j) {
      var w = weight(st.layer, st.head, i, j), row = el("div", { "class": "bar", "data-key": j + 1,
        "data-weight": w === null ? "masked" : w.toFixed(6) });
      row.appendChild(el("span", { "class": "lab" }, short(D.colLabels[j])));
      var b = el("span", { "class": "b" });
      b.style.width = w === null ? "0" : (100 * w).toFixed(2) + "%";
      if (w !== null) b.style.background = D.ramp[level(w)];
      var track = el("span", { "class": "track" }); track.appendChild(b);
      row.appendChild(track);
      row.appendChild(el("span", { "class": "num" }, w === null ? "masked" : pct(w)));
      box.appendChild(row);
    });
  }

  function cellInfo(box) {
    if (st.token < 0 || st.key < 0) { box.textContent = "Click a cell for its weight and raw score."; return; }
    var w = weight(st.layer, st.head, st.token, st.key), s = score(st.layer, st.head, st.token, st.key);
    var t = rowLabel(st.token) + " \u2192 " + D.colLabels[st.key] + ": ";
    if (w === null) t += "masked (weight exactly 0, no score: it is \u2212\u221e before softmax)";
    else {
      t += "weight " + pct(w);
      t += s === null ? "; raw score: " + (D.scoreNote || "none") : "; raw score " + s.toPrecision(4) + " (" + D.scoreKind + ")";
    }
    box.textContent = t;
    box.setAttribute("data-weight", w === null ? "masked" : w.toFixed(6));
    box.setAttribute("data-score", s === null ? "none" : String(s));
  }

  // The row of the sentence's token t (0-based): itself, or the pooled row
  // that covers it (rows of svg_matrix: tokens floor(x n / rows) .. floor((x + 1) n / rows) - 1).
  function rowOf(t) {
    if (!D.pooled) return t;
    for (var x = 0; x < D.rows; x++) if (t < Math.floor((x + 1) * D.tokens / D.rows)) return x;
    return D.rows - 1;
  }
  function chipsAll() { return document.querySelectorAll("#sentence .tok"); }
  // The chips as buttons: focusable, Enter or Space selects like a click.
  function chips() {
    document.getElementById("sentence").className = "live";
    Array.prototype.forEach.call(chipsAll(), function (c) {
      var row = rowOf(+c.getAttribute("data-token") - 1);
      c.setAttribute("tabindex", "0"); c.setAttribute("role", "button");
      c.setAttribute("data-row", row + 1);
      c.setAttribute("title", "Show what " + (D.pooled ? "row " + D.rowLabels[row] : "this token") + " attends to");
      c.addEventListener("click", function () { select({ token: row }); });
      c.addEventListener("keydown", function (e) {
        if (e.key === "Enter" || e.key === " ") { e.preventDefault(); select({ token: row }); }
      });
    });
  }
  function chipState() {
    Array.prototype.forEach.call(chipsAll(), function (c) {
      var on = +c.getAttribute("data-row") - 1 === st.token;
      c.className = on ? "tok sel" : "tok"; c.setAttribute("aria-pressed", on ? "true" : "false");
    });
  }

  function preview(i) { bars(document.getElementById("bars"), i); }

  function render() {
    var b = document.body;
    b.setAttribute("data-layer", st.layer + 1); b.setAttribute("data-head", st.head + 1);
    b.setAttribute("data-token", st.token + 1); b.setAttribute("data-key", st.key + 1);
    document.getElementById("layer").value = st.layer;
    document.getElementById("head").value = st.head;
    document.getElementById("focus-title").textContent = "Layer " + (st.layer + 1) + ", head " + (st.head + 1) + ": " + D.headLabels[st.layer][st.head];
    multiples(document.getElementById("multiples"));
    focus(document.getElementById("focus"));
    bars(document.getElementById("bars"), st.token);
    cellInfo(document.getElementById("cell"));
    chipState();
  }

  function clamp(v, n) { return isNaN(v) ? -1 : Math.max(-1, Math.min(n - 1, v)); }
  function fromHash() {
    var h = location.hash.replace(/^#/, "").split("&");
    h.forEach(function (kv) {
      var p = kv.split("="), v = parseInt(p[1], 10) - 1;
      if (p[0] === "layer" && v >= 0 && v < D.L) st.layer = v;
      else if (p[0] === "head" && v >= 0 && v < D.H) st.head = v;
      else if (p[0] === "token") st.token = clamp(v, D.rows);
      else if (p[0] === "key") st.key = clamp(v, D.cols);
    });
  }
  function select(ch) {
    for (var k in ch) st[k] = ch[k];
    var h = "#layer=" + (st.layer + 1) + "&head=" + (st.head + 1);
    if (st.token >= 0) h += "&token=" + (st.token + 1);
    if (st.key >= 0) h += "&key=" + (st.key + 1);
    if (history.replaceState) history.replaceState(null, "", h);
    render();
  }

  function build() {
    var app = document.getElementById("app");
    var ctl = el("div", { id: "controls" }), ls = el("select", { id: "layer" }), hs = el("select", { id: "head" });
    for (var l = 0; l < D.L; l++) ls.appendChild(el("option", { value: l }, "Layer " + (l + 1)));
    for (var h = 0; h < D.H; h++) hs.appendChild(el("option", { value: h }, "Head " + (h + 1)));
    ls.addEventListener("change", function () { select({ layer: +ls.value }); });
    hs.addEventListener("change", function () { select({ head: +hs.value }); });
    ctl.appendChild(ls); ctl.appendChild(hs);
    ctl.appendChild(el("span", { id: "mask" }, "mask: " + (!D.causal ? "off" : D.pooled ? "causal (a hatched cell: every pair it covers is masked)" : "causal (hatched cells are masked)")));
    if (D.pooled) ctl.appendChild(el("span", { id: "pooled" }, "long text pooled: a cell is the largest weight of the tokens it covers"));
    app.appendChild(ctl);
    app.appendChild(el("div", { id: "multiples" }));
    var main = el("div", { id: "main" }), left = el("div", {}), side = el("div", { id: "side" });
    left.appendChild(el("h2", { id: "focus-title" })); left.appendChild(el("div", { id: "focus" }));
    side.appendChild(el("h2", { id: "bars-title" })); side.appendChild(el("div", { id: "bars" }));
    side.appendChild(el("p", { id: "cell" }));
    var legend = el("p", { id: "legend" });
    for (var k = 0; k < 16; k++) { var sw = el("span", { "class": "sw" }); sw.style.background = D.ramp[k]; legend.appendChild(sw); }
    legend.appendChild(document.createTextNode(" weight 0 \u2192 100% (colour level floor(16\u221aw))"));
    side.appendChild(legend);
    main.appendChild(left); main.appendChild(side); app.appendChild(main);
    chips();
    document.getElementById("static").hidden = true;
    app.hidden = false;
  }

  build();
  fromHash();
  render();
  window.addEventListener("hashchange", function () { fromHash(); render(); });
})();
