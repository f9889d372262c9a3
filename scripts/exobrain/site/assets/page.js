/* Skill pages: copy buttons for the commands (clipboard API, else select the text). */
(function () {
  "use strict";
  function selectText(el) {
    var range = document.createRange();
    range.selectNodeContents(el);
    var sel = window.getSelection();
    sel.removeAllRanges();
    sel.addRange(range);
  }
  Array.prototype.forEach.call(document.querySelectorAll("button.copy[data-copy]"), function (btn) {
    btn.addEventListener("click", function () {
      var code = document.getElementById(btn.getAttribute("data-copy"));
      if (!code) return;
      var done = function (msg) { btn.textContent = msg; setTimeout(function () { btn.textContent = "Copy"; }, 1500); };
      var fallback = function () {
        selectText(code);
        var ok = false;
        try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
        done(ok ? "Copied" : "Press Ctrl+C");
      };
      if (navigator.clipboard && navigator.clipboard.writeText) {
        navigator.clipboard.writeText(code.textContent).then(function () { done("Copied"); }, fallback);
      } else {
        fallback();
      }
    });
  });
})();
