// Progressive enhancement of the postmortem form's "Graphs and files"
// (templates/partials/attach-field.html): without this file, "Upload and
// insert" posts the whole form and the page comes back with the Markdown
// inserted. With it, an image pasted or dropped into any Markdown field,
// or a file chosen and uploaded with the button, is sent to the API with
// its progress shown, and its Markdown is inserted at the cursor in place.
(function () {
  "use strict";
  var box = document.querySelector("[data-attach-api]");
  if (!box || !window.FormData || !window.XMLHttpRequest) return;
  var form = box.closest("form");
  var api = box.getAttribute("data-attach-api");
  var fileInput = box.querySelector("input[type=file]");
  var altInput = box.querySelector("input[name=alt]");
  var into = box.querySelector("select[name=attach_field]");
  var cursorInput = box.querySelector("[data-attach-cursor]");
  var button = box.querySelector("button[formaction]");
  var status = box.querySelector("[data-attach-status]");
  var areas = form.querySelectorAll("textarea[data-markdown]");
  var target = null; // the Markdown field the writer was in
  var pending = null; // a pasted image waiting for its alt text

  // Remember the field and the cursor, for the upload without script too.
  function remember(area) {
    target = area;
    if (into && into.querySelector('option[value="' + area.name + '"]')) into.value = area.name;
    if (cursorInput) cursorInput.value = String(area.selectionStart);
  }
  areas.forEach(function (area) {
    ["focus", "click", "keyup", "select", "input"].forEach(function (ev) {
      area.addEventListener(ev, function () { remember(area); });
    });
    area.addEventListener("paste", function (e) {
      var files = e.clipboardData && e.clipboardData.files;
      if (!files || !files.length) return;
      e.preventDefault();
      remember(area);
      take(files[0]);
    });
    area.addEventListener("dragover", function (e) {
      if (e.dataTransfer && Array.prototype.indexOf.call(e.dataTransfer.types, "Files") >= 0) e.preventDefault();
    });
    area.addEventListener("drop", function (e) {
      var files = e.dataTransfer && e.dataTransfer.files;
      if (!files || !files.length) return;
      e.preventDefault();
      area.focus();
      remember(area);
      take(files[0]);
    });
  });

  function say(msg, isError) {
    status.hidden = false;
    status.textContent = "";
    status.className = isError ? "attach-status field-error" : "attach-status";
    status.setAttribute("role", isError ? "alert" : "status");
    status.textContent = msg;
  }

  // take uploads a pasted or dropped file, or keeps an image until its alt
  // text is written.
  function take(file) {
    var image = /^image\//.test(file.type);
    if (image && !altInput.value.trim()) {
      pending = file;
      say("Pasted " + (file.name || "an image") + ". Write what it shows under “What the image shows”, then press “Upload and insert”.", false);
      altInput.focus();
      return;
    }
    send(file);
  }

  button.addEventListener("click", function (e) {
    var file = pending || (fileInput.files && fileInput.files[0]);
    if (!file) return; // the plain submission explains what is missing
    e.preventDefault();
    send(file);
  });
  // Enter in the alt box uploads what waits for it.
  altInput.addEventListener("keydown", function (e) {
    if (e.key === "Enter" && pending) {
      e.preventDefault();
      send(pending);
    }
  });

  function send(file) {
    var name = file.name || "pasted.png";
    var data = new FormData();
    data.append("alt", altInput.value);
    data.append("file", file, name);
    var xhr = new XMLHttpRequest();
    var bar = document.createElement("progress");
    bar.max = 100;
    bar.value = 0;
    bar.setAttribute("aria-label", "Uploading " + name);
    say("Uploading " + name + "…", false);
    status.appendChild(bar);
    button.disabled = true;
    xhr.upload.addEventListener("progress", function (e) {
      if (e.lengthComputable) bar.value = Math.round(100 * e.loaded / e.total);
    });
    xhr.addEventListener("load", function () {
      button.disabled = false;
      var answer = null;
      try { answer = JSON.parse(xhr.responseText); } catch (err) { answer = null; }
      if (xhr.status !== 201 || !answer || !answer.markdown) {
        say("Not uploaded: " + (answer && answer.error ? answer.error : "the server answered " + xhr.status + "."), true);
        return;
      }
      pending = null;
      altInput.value = "";
      fileInput.value = "";
      var area = target || form.querySelector('textarea[name="' + (into ? into.value : "body") + '"]');
      insert(area, answer.markdown);
      say("Uploaded " + answer.name + "; its Markdown is in the text. Save to keep it.", false);
    });
    xhr.addEventListener("error", function () {
      button.disabled = false;
      say("Not uploaded: the connection failed. Try again.", true);
    });
    xhr.open("POST", api);
    xhr.setRequestHeader("Accept", "application/json");
    xhr.send(data);
  }

  // insert puts md at area's cursor, on a line of its own.
  function insert(area, md) {
    var v = area.value;
    var at = target === area ? area.selectionStart : v.length;
    var before = v.slice(0, at), after = v.slice(at);
    if (before && !/\n$/.test(before)) md = "\n\n" + md;
    if (after && !/^\n/.test(after)) md += "\n\n";
    area.value = before + md + after;
    area.selectionStart = area.selectionEnd = before.length + md.length;
    area.focus();
    remember(area);
    area.dispatchEvent(new Event("input", { bubbles: true }));
  }
})();
