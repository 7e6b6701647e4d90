// Progressive enhancement only: every page works without this file.
(function () {
  "use strict";
  // "/" focuses the search box, as on many sites, unless the user is typing.
  document.addEventListener("keydown", function (e) {
    if (e.key !== "/" || e.ctrlKey || e.metaKey || e.altKey) return;
    var t = e.target;
    if (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName))) return;
    var box = document.querySelector("[data-search-box]");
    if (!box) return;
    e.preventDefault();
    box.focus();
    box.select();
  });

  // The table of contents marks the section being read: the last one whose
  // heading has scrolled past the top fifth of the window.
  var toc = document.querySelector(".toc");
  if (toc) {
    var entries = [];
    toc.querySelectorAll('a[href^="#"]').forEach(function (a) {
      var target = document.getElementById(decodeURIComponent(a.hash.slice(1)));
      if (target) entries.push({ link: a, target: target });
    });
    var current = null, pending = false;
    var mark = function () {
      pending = false;
      var line = window.innerHeight / 5, found = null;
      entries.forEach(function (e) {
        if (e.target.getBoundingClientRect().top <= line) found = e.link;
      });
      if (found === current) return;
      if (current) current.removeAttribute("aria-current");
      if (found) found.setAttribute("aria-current", "location");
      current = found;
    };
    window.addEventListener("scroll", function () {
      if (!pending) {
        pending = true;
        window.requestAnimationFrame(mark);
      }
    }, { passive: true });
    mark();
  }
})();
