/* In-page search over window.EXO_SEARCH_INDEX (built by sitegen/search_index.py).
 * tokens() and stem() mirror sitegen/textutil.py line by line: change them together.
 * Ranking: FTS5's bm25() over one weighted document per skill, then
 * score = bm25/best * (1 - qw + qw*quality) * lifecycle, ties by NAME@HOME; a skill holding
 * less than the floor (fl) of the query's words, weighted by idf, is no match. */
(function () {
  "use strict";
  var WORD = /[\p{L}\p{N}]+/gu;
  var DIGIT = /\p{Nd}/u;
  var VOWEL = /[aeiouy]/;

  function tokens(text) {
    return (String(text || "").normalize("NFKC").toLowerCase().match(WORD)) || [];
  }

  function stem(w) {
    if (w.length > 3 && !DIGIT.test(w)) {
      if (w.endsWith("ies") && w.length > 4) w = w.slice(0, -3) + "y";
      else if (w.endsWith("sses")) w = w.slice(0, -2);
      else if (w.endsWith("s") && !(w.endsWith("ss") || w.endsWith("us") || w.endsWith("is"))) w = w.slice(0, -1);
      var sufs = ["ing", "ed"];
      for (var i = 0; i < sufs.length; i++) {
        if (w.endsWith(sufs[i])) {
          var rest = w.slice(0, -sufs[i].length);
          if (rest.length >= 3 && VOWEL.test(rest)) w = rest;
          break;
        }
      }
      if (w.endsWith("e") && w.length > 3) w = w.slice(0, -1);
    }
    return w;
  }

  function queryWords(index, query, prefixLast) {
    var words = tokens(query), stop = new Set(index.sw || []), keep = [];
    words.forEach(function (w, k) {
      if (!stop.has(w) || (prefixLast && k === words.length - 1)) keep.push(w);
    });
    if (!keep.length) keep = words;
    return Array.from(new Set(keep));
  }

  var termList = null;
  function decode(plist, into) {
    var doc = 0;
    for (var j = 0; j < plist.length; j += 2) {
      doc += plist[j];
      into.set(doc, (into.get(doc) || 0) + plist[j + 1] / 2);
    }
  }

  /* Returns [{doc, ref, score}] best first. */
  function rank(index, query, prefixLast) {
    var words = queryWords(index, query, prefixLast);
    if (!words.length) return [];
    var N = index.N, avgdl = index.avgdl || 1, k1 = index.k1, b = index.b;
    var bm = new Map(), held = new Map(), whole = 0;
    words.forEach(function (word, k) {
      var keys = new Set([stem(word)]);
      if (prefixLast && k === words.length - 1 && word.length >= 2) {
        if (!termList) termList = Object.keys(index.t);
        for (var i = 0; i < termList.length; i++) if (termList[i].startsWith(word)) keys.add(termList[i]);
      }
      var freq = new Map();
      keys.forEach(function (key) { if (index.t[key]) decode(index.t[key], freq); });
      var weight = Math.log((N - freq.size + 0.5) / (freq.size + 0.5) + 1);
      whole += weight;
      if (!freq.size) return;
      var idf = Math.max(Math.log((N - freq.size + 0.5) / (freq.size + 0.5)), 1e-6);
      freq.forEach(function (f, doc) {
        held.set(doc, (held.get(doc) || 0) + weight);
        var dl = index.len[doc];
        bm.set(doc, (bm.get(doc) || 0) + idf * f * (k1 + 1) / (f + k1 * (1 - b + b * dl / avgdl)));
      });
    });
    var floor = (index.fl || 0) * whole;
    bm.forEach(function (v, doc) { if (held.get(doc) < floor - 1e-9) bm.delete(doc); });
    if (!bm.size) return [];
    var best = 0;
    bm.forEach(function (v) { if (v > best) best = v; });
    var out = [];
    bm.forEach(function (raw, doc) {
      var d = index.d[doc], q = d[4] === null ? index.qn : d[4];
      var lc = Object.prototype.hasOwnProperty.call(index.lc, d[3]) ? index.lc[d[3]] : 1;
      out.push({ doc: doc, ref: d[0], score: raw / best * (1 - index.qw + index.qw * q) * lc });
    });
    out.sort(function (a, b2) { return b2.score - a.score || (a.ref < b2.ref ? -1 : a.ref > b2.ref ? 1 : 0); });
    return out;
  }

  window.ExoSearch = { tokens: tokens, stem: stem, queryWords: queryWords, rank: rank };
})();
