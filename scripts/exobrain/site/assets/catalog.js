/* Catalog behaviour: search as you type, filters, sorting; state kept in the URL
 * fragment (#q=…&scope=…&tag=…&persona=…&lifecycle=…&sort=…). Row i of the table is
 * document i of window.EXO_SEARCH_INDEX. Nothing is fetched: the index is a script.
 * Only the first PAGE matching rows are kept in the table (more on request): laying out
 * a table of thousands of rows on every keystroke is what makes a page slow. */
(function () {
  "use strict";
  var index = window.EXO_SEARCH_INDEX, S = window.ExoSearch;
  var table = document.getElementById("catalog");
  if (!index || !S || !table) return;
  var tbody = table.tBodies[0];
  var rows = Array.prototype.slice.call(tbody.rows);
  var $ = function (id) { return document.getElementById(id); };
  var q = $("q"), fScope = $("f-scope"), fTag = $("f-tag"), fPersona = $("f-persona"),
      fLc = $("f-lifecycle"), sortSel = $("sort"), count = $("count");
  var FIELDS = { q: q, scope: fScope, tag: fTag, persona: fPersona, lifecycle: fLc, sort: sortSel };
  var PAGE = 100, limit = PAGE;
  var more = $("more"), all = $("all");
  var tagId = new Map(index.tags.map(function (t, i) { return [t, i]; }));
  var personaId = new Map(index.personas.map(function (t, i) { return [t, i]; }));

  function readHash() {
    var p = new URLSearchParams(location.hash.slice(1));
    Object.keys(FIELDS).forEach(function (k) {
      if (!p.has(k)) return;
      var el = FIELDS[k], v = p.get(k);
      if (el.tagName === "SELECT" && !Array.prototype.some.call(el.options, function (o) { return o.value === v; })) return;
      el.value = v;
    });
  }

  function writeHash() {
    var p = new URLSearchParams();
    Object.keys(FIELDS).forEach(function (k) { if (FIELDS[k].value) p.set(k, FIELDS[k].value); });
    var h = p.toString();
    try { history.replaceState(null, "", h ? "#" + h : location.pathname + location.search); } catch (e) { /* file:// quirks */ }
  }

  var CMP = {
    quality: function (a, b) { var x = index.d[a][4], y = index.d[b][4];
      return (y === null ? -1 : y) - (x === null ? -1 : x); },
    usage: function (a, b) { return index.d[b][5] - index.d[a][5]; },
    changed: function (a, b) { var x = index.d[a][6] || "", y = index.d[b][6] || "";
      return x < y ? 1 : x > y ? -1 : 0; }
  };

  function apply() {
    var query = q.value, searching = S.tokens(query).length > 0;
    var scores = null;
    if (searching) {
      scores = new Map();
      S.rank(index, query, !/\s$/.test(query)).forEach(function (h) { scores.set(h.doc, h.score); });
    }
    var scope = fScope.value, lc = fLc.value;
    var tag = fTag.value ? tagId.get(fTag.value) : null;
    var persona = fPersona.value ? personaId.get(fPersona.value) : null;
    var shown = [];
    for (var i = 0; i < rows.length; i++) {
      var d = index.d[i];
      var ok = (!scope || d[2] === scope) && (!lc || d[3] === lc) &&
        (tag === null || d[7].indexOf(tag) >= 0) && (persona === null || d[8].indexOf(persona) >= 0) &&
        (!scores || scores.has(i));
      if (ok) shown.push(i);
    }
    var how = sortSel.value;
    if (how === "") {
      if (scores) shown.sort(function (a, b) { return scores.get(b) - scores.get(a) || a - b; });
    } else if (CMP[how]) {
      shown.sort(function (a, b) { return CMP[how](a, b) || a - b; });
    }
    var frag = document.createDocumentFragment();
    shown.slice(0, limit).forEach(function (i) { frag.appendChild(rows[i]); });
    tbody.replaceChildren(frag);
    var displayed = Math.min(limit, shown.length);
    more.hidden = all.hidden = displayed >= shown.length;
    more.textContent = "Show " + Math.min(PAGE, shown.length - displayed) + " more";
    all.textContent = "Show all " + shown.length;
    var m = shown.length, total = rows.length;
    count.textContent = (searching || m < total ? m + " of " + total : String(total)) + " skills" +
      (searching ? " matching \u201c" + query.trim() + "\u201d" : "") +
      (displayed < m ? " \u00b7 showing the first " + displayed : "");
    table.setAttribute("data-shown", String(shown.length));
    table.setAttribute("data-displayed", String(displayed));
    writeHash();
  }

  function reset() { limit = PAGE; apply(); }
  var pending = 0;
  function schedule() {
    if (pending) return;
    pending = requestAnimationFrame(function () { pending = 0; limit = PAGE; apply(); });
  }
  q.addEventListener("input", schedule);
  [fScope, fTag, fPersona, fLc, sortSel].forEach(function (el) { el.addEventListener("change", reset); });
  $("controls").addEventListener("submit", function (e) { e.preventDefault(); reset(); });
  $("controls").addEventListener("reset", function () { setTimeout(reset, 0); });
  more.addEventListener("click", function () { limit += PAGE; apply(); });
  all.addEventListener("click", function () { limit = rows.length; apply(); });
  window.addEventListener("hashchange", function () { readHash(); reset(); });
  readHash();
  apply();
  table.setAttribute("data-ready", "1");
})();
