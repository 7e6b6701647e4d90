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
})();
