// Live search, as progressive enhancement: without this file every search box
// is a plain GET form to /search.
//  - On /search, typing refreshes the results in place (the server renders
//    them; this only swaps the HTML) and keeps the address in step.
//  - Elsewhere, typing in the header box shows the first few matches below it.
(function () {
  "use strict";
  var results = document.querySelector("[data-search-results]");
  var boxes = document.querySelectorAll("[data-search-box]");
  var delay = 200; // ms after the last keystroke
  var timer = 0;
  var pending = null; // AbortController of the request in flight

  function fetchText(url) {
    if (pending) pending.abort();
    pending = new AbortController();
    return fetch(url, { signal: pending.signal })
      .then(function (r) {
        if (!r.ok) throw new Error("search failed: " + r.status);
        return r.text();
      });
  }

  function refreshResults(q) {
    var url = "/search?q=" + encodeURIComponent(q);
    // typing=1: the last word may be unfinished, so it also matches as a
    // prefix; the address keeps the words as typed.
    fetchText(url + "&typing=1").then(function (html) {
      var fresh = new DOMParser().parseFromString(html, "text/html").querySelector("[data-search-results]");
      if (!fresh) return;
      results.replaceChildren.apply(results, Array.prototype.slice.call(fresh.childNodes));
      history.replaceState(null, "", url);
    }).catch(function () { /* the form still works: Enter submits it */ });
  }

  // suggestions returns the drop-down under a box's form, made on first use.
  function suggestions(box) {
    var form = box.form;
    var list = form.querySelector(".search-suggest");
    if (!list) {
      list = document.createElement("div");
      list.className = "search-suggest";
      list.hidden = true;
      list.setAttribute("aria-live", "polite");
      form.appendChild(list);
    }
    return list;
  }

  function showSuggestions(box, q) {
    var list = suggestions(box);
    if (!q.trim()) {
      list.hidden = true;
      return;
    }
    // The last word is probably still being typed: typing=1 matches it as
    // a prefix too, and still as a word with its stems and synonyms.
    fetchText("/api/search?limit=5&typing=1&q=" + encodeURIComponent(q)).then(JSON.parse).then(function (data) {
      var ul = document.createElement("ul");
      data.items.forEach(function (item) {
        var li = document.createElement("li");
        var a = document.createElement("a");
        a.href = item.url;
        var title = document.createElement("strong");
        title.textContent = item.title;
        a.appendChild(title);
        var snippet = document.createElement("span");
        item.snippet_parts.forEach(function (part) {
          var node = part.mark ? document.createElement("mark") : document.createElement("span");
          node.textContent = part.text;
          snippet.appendChild(node);
        });
        a.appendChild(snippet);
        li.appendChild(a);
        ul.appendChild(li);
      });
      var all = document.createElement("li");
      var more = document.createElement("a");
      more.href = data.url; // the query as searched, prefix included
      more.className = "all-results";
      more.textContent = data.total === 0 ? "No match: see search tips" :
        "All " + data.total + " result" + (data.total === 1 ? "" : "s") + " →";
      all.appendChild(more);
      ul.appendChild(all);
      list.replaceChildren(ul);
      list.hidden = false;
    }).catch(function () { list.hidden = true; });
  }

  Array.prototype.forEach.call(boxes, function (box) {
    if (!box.form) return;
    box.addEventListener("input", function () {
      clearTimeout(timer);
      timer = setTimeout(function () {
        if (results) refreshResults(box.value);
        else showSuggestions(box, box.value);
      }, delay);
    });
    box.addEventListener("keydown", function (e) {
      var list = box.form.querySelector(".search-suggest");
      if (!list || list.hidden) return;
      if (e.key === "Escape") {
        list.hidden = true;
      } else if (e.key === "ArrowDown") {
        var first = list.querySelector("a");
        if (first) {
          e.preventDefault();
          first.focus();
        }
      }
    });
  });

  // Arrow keys move through the suggestions; Escape or a click elsewhere closes them.
  document.addEventListener("keydown", function (e) {
    var list = e.target.closest && e.target.closest(".search-suggest");
    if (!list) return;
    var links = Array.prototype.slice.call(list.querySelectorAll("a"));
    var i = links.indexOf(e.target);
    if (e.key === "ArrowDown" && i < links.length - 1) {
      e.preventDefault();
      links[i + 1].focus();
    } else if (e.key === "ArrowUp") {
      e.preventDefault();
      if (i > 0) links[i - 1].focus();
      else list.parentNode.querySelector("[data-search-box]").focus();
    } else if (e.key === "Escape") {
      list.hidden = true;
      list.parentNode.querySelector("[data-search-box]").focus();
    }
  });
  document.addEventListener("click", function (e) {
    Array.prototype.forEach.call(document.querySelectorAll(".search-suggest"), function (list) {
      if (!list.parentNode.contains(e.target)) list.hidden = true;
    });
  });
})();
