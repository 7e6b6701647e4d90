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

  // A form that failed validation opens on its error summary, so screen
  // readers announce it and keyboard users start from the list of links.
  // Its autofocus does that without JavaScript; browsers from before
  // autofocus applied to any focusable element honour only this.
  var summary = document.querySelector("[data-error-summary]");
  if (summary) summary.focus();

  // Forms marked data-guard warn before the page is left with unsaved text.
  document.querySelectorAll("form[data-guard]").forEach(function (form) {
    var dirty = false;
    form.addEventListener("input", function () { dirty = true; });
    form.addEventListener("submit", function () { dirty = false; });
    window.addEventListener("beforeunload", function (e) {
      if (dirty) { e.preventDefault(); e.returnValue = ""; }
    });
  });

  // Pattern suggestions in the postmortem form: the buttons of the panel
  // (suggest, accept, reject, link as variant) are submit buttons that work
  // without this code. Here they post the same form in the background and
  // swap in the new panel and pattern list, so the page and the writer's
  // place in it stay put.
  var panel = document.querySelector("[data-suggestions]");
  var pmForm = panel && panel.closest("form");
  if (pmForm && window.fetch && window.DOMParser) {
    pmForm.addEventListener("submit", function (e) {
      var b = e.submitter;
      if (!b || !b.closest("[data-suggestions]") || pmForm.dataset.plain) return;
      e.preventDefault();
      // The form as the browser would send it, button included, encoded
      // as a plain submission is (the import review is multipart), to where the button posts: its own
      // formaction (each step of the postmortem form has its route).
      var data = new FormData(pmForm, b);
      var body = pmForm.enctype === "multipart/form-data" ? data : new URLSearchParams(data);
      var to = b.getAttribute("formaction");
      b.disabled = true;
      fetch(to, { method: "POST", body: body, credentials: "same-origin" })
        .then(function (r) { return r.ok ? r.text() : Promise.reject(r.status); })
        .then(function (html) {
          var doc = new DOMParser().parseFromString(html, "text/html");
          var tags = doc.getElementById("f-tags");
          if (!tags) return Promise.reject("no pattern list");
          document.getElementById("f-tags").replaceWith(tags);
          var of = doc.querySelector("input[name=variant_of]");
          var mine = pmForm.querySelector("input[name=variant_of]");
          if (of && mine) mine.value = of.value;
          var kind = doc.querySelector("input[name=variant_kind]:checked");
          if (kind) pmForm.querySelectorAll("input[name=variant_kind]").forEach(function (k) { k.checked = k.value === kind.value; });
          // The text is still unsaved: keep the leave-page warning armed.
          pmForm.dispatchEvent(new Event("input"));
          var fresh = document.getElementById("suggestions");
          fresh.setAttribute("tabindex", "-1");
          fresh.focus();
        })
        .catch(function () {
          // Fall back to the ordinary submission, which needs no script.
          b.disabled = false;
          pmForm.dataset.plain = "1";
          pmForm.requestSubmit(b);
        });
    });
  }

  // Live preview of Markdown fields: the server renders (and sanitises)
  // the text, exactly as it will on the page. The Preview button stays the
  // way to see the whole postmortem.
  document.querySelectorAll("textarea[data-markdown]").forEach(function (area) {
    var box = document.createElement("div");
    box.className = "live-preview prose";
    box.hidden = true;
    var label = document.createElement("p");
    label.className = "meta";
    label.textContent = "Preview";
    var out = document.createElement("div");
    box.appendChild(label);
    box.appendChild(out);
    area.insertAdjacentElement("afterend", box);
    var timer = null, seq = 0;
    // aria-busy says a newer preview is on its way, from the keystroke to
    // the answer; the box grows when it comes.
    function settled() { box.removeAttribute("aria-busy"); }
    function refresh() {
      var text = area.value;
      if (!text.trim()) { box.hidden = true; settled(); return; }
      var mine = ++seq;
      var body = new URLSearchParams();
      body.append("text", text);
      fetch("/preview", { method: "POST", body: body, credentials: "same-origin" })
        .then(function (r) { return r.ok ? r.text() : Promise.reject(r.status); })
        .then(function (html) {
          if (mine !== seq) return; // a newer request is on its way
          out.innerHTML = html; // sanitised by the server's renderMarkdown
          box.hidden = false;
          settled();
        })
        .catch(function () { if (mine === seq) settled(); /* the Preview button still works */ });
    }
    area.addEventListener("input", function () {
      clearTimeout(timer);
      box.setAttribute("aria-busy", "true");
      timer = setTimeout(refresh, 500);
    });
  });

  // Checklist ticks on a postmortem page are saved one at a time, the
  // moment a box changes, with the name typed (or the one the browser
  // remembers). The answer is the page as it now is: the item is swapped
  // for the saved one, with its who and when. Without this code, every
  // button of the page posts the ticks with it.
  var ticks = document.querySelector("[data-ticks]");
  if (ticks && window.fetch && window.DOMParser) {
    var base = ticks.getAttribute("data-ticks");
    var nameBox = document.getElementById("tick-author");
    ticks.querySelectorAll("[data-save-ticks]").forEach(function (el) { el.hidden = true; });
    // Signed-in users have no name field: their name signs the tick.
    var field = nameBox && nameBox.closest(".field");
    var showError = function (msg) {
      var err = document.getElementById("tick-author-error");
      if (!msg) {
        if (err) err.remove();
        if (field) field.classList.remove("has-error");
        if (nameBox) nameBox.removeAttribute("aria-invalid");
        return;
      }
      if (!err) {
        err = document.createElement("p");
        err.className = "field-error";
        err.id = "tick-author-error";
        err.setAttribute("role", "alert");
        if (nameBox) nameBox.insertAdjacentElement("beforebegin", err);
        else ticks.querySelector("h2").insertAdjacentElement("afterend", err);
      }
      err.textContent = msg;
      if (field) field.classList.add("has-error");
      if (nameBox) nameBox.setAttribute("aria-invalid", "true");
    };
    var progress = function (details) {
      var boxes = details.querySelectorAll(".tick-list input[type=checkbox]");
      var done = 0;
      boxes.forEach(function (b) { if (b.checked) done++; });
      details.querySelector("[data-progress]").textContent = done + " of " + boxes.length + " done";
    };
    ticks.addEventListener("change", function (e) {
      var box = e.target;
      if (!box.matches(".tick-list input[type=checkbox]")) return;
      var li = box.closest("li.tick");
      var body = new URLSearchParams();
      if (box.checked) body.append("done", "1");
      if (nameBox) body.append("author", nameBox.value);
      box.disabled = true;
      fetch(base + "/" + encodeURIComponent(box.value), { method: "POST", body: body, credentials: "same-origin" })
        .then(function (r) {
          return r.text().then(function (html) {
            var doc = new DOMParser().parseFromString(html, "text/html");
            if (!r.ok) {
              var msg = doc.getElementById("tick-author-error");
              return Promise.reject(msg ? msg.textContent.replace(/^Error: /, "") : "The tick could not be saved.");
            }
            var fresh = doc.getElementById(li.id);
            if (!fresh) return Promise.reject("The tick could not be saved.");
            showError("");
            li.replaceWith(fresh);
            progress(fresh.closest("details"));
            document.getElementById(box.id).focus();
          });
        })
        .catch(function (msg) {
          box.disabled = false;
          box.checked = !box.checked;
          showError(typeof msg === "string" ? msg : "The tick could not be saved: check your connection and try again.");
          (nameBox || box).focus();
        });
    });
  }

  // "More rows" of the form's timeline adds an empty row in place (without
  // this code it asks the server for the form with more rows).
  var rows = document.querySelector("[data-timeline-rows]");
  var more = document.querySelector("[data-add-row]");
  if (rows && more) {
    more.addEventListener("click", function (e) {
      e.preventDefault();
      var last = rows.lastElementChild;
      var row = last.cloneNode(true);
      var n = rows.children.length;
      row.querySelectorAll("input").forEach(function (input) {
        input.value = "";
        input.id = input.id.replace(/\d+$/, String(n));
        input.removeAttribute("aria-invalid");
        input.removeAttribute("aria-describedby");
      });
      row.querySelectorAll("label").forEach(function (label) {
        label.htmlFor = label.htmlFor.replace(/\d+$/, String(n));
        label.textContent = label.textContent.replace(/\d+$/, String(n + 1));
      });
      rows.appendChild(row);
      row.querySelector("input").focus();
    });
  }

  // The incident date gets a warning beside it while it falls outside the
  // days of the incident's own times, as the server warns on a preview.
  var dateBox = document.getElementById("f-incident_date");
  var startBox = document.getElementById("f-started_at");
  if (dateBox && startBox) {
    var endBox = document.getElementById("f-resolved_at");
    var zoneBox = document.getElementById("f-time_zone");
    var human = function (d) {
      var t = new Date(d + "T00:00:00Z");
      return isNaN(t) ? d : t.toLocaleDateString("en-GB", { day: "numeric", month: "long", year: "numeric", timeZone: "UTC" });
    };
    var checkDate = function () {
      var d = dateBox.value, first = startBox.value.slice(0, 10), last = first;
      if (endBox && endBox.value.slice(0, 10) > last) last = endBox.value.slice(0, 10);
      var msg = "";
      if (d && first && (d < first || d > last)) {
        msg = "The incident date is " + human(d) + ", but the incident started on " + human(first) +
          " (" + (zoneBox ? zoneBox.value : "UTC") + "). Check which is right; an empty date is taken from the start.";
      }
      var warn = document.getElementById("f-incident_date-warning");
      if (!msg) { if (warn) warn.remove(); return; }
      if (!warn) {
        warn = document.createElement("p");
        warn.className = "field-warning";
        warn.id = "f-incident_date-warning";
        dateBox.insertAdjacentElement("beforebegin", warn);
        var by = (dateBox.getAttribute("aria-describedby") || "").split(" ").filter(Boolean);
        if (by.indexOf(warn.id) < 0) by.push(warn.id);
        dateBox.setAttribute("aria-describedby", by.join(" "));
      }
      warn.textContent = msg;
    };
    [dateBox, startBox, endBox, zoneBox].forEach(function (el) { if (el) el.addEventListener("change", checkDate); });
  }
})();
