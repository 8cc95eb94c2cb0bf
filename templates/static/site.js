// Euchre Arena: small progressive enhancements. Every page reads fine without this file.
(function () {
  "use strict";

  // Sortable tables: click a header of a table.sortable; cells carry data-value.
  function cellValue(row, index, type) {
    var cell = row.cells[index];
    if (!cell) return type === "num" ? 0 : "";
    var raw = cell.getAttribute("data-value");
    if (raw === null) raw = cell.textContent.trim();
    if (type === "num") {
      var n = parseFloat(raw);
      return isNaN(n) ? 0 : n;
    }
    return raw.toLowerCase();
  }

  function makeSortable(table) {
    var headers = table.tHead ? table.tHead.rows[0].cells : [];
    Array.prototype.forEach.call(headers, function (th, index) {
      var type = th.getAttribute("data-type");
      if (!type) return;
      th.classList.add("sort-ready");
      th.tabIndex = 0;
      th.title = "Sort by this column";
      function sort() {
        var asc = th.getAttribute("aria-sort") !== "ascending";
        Array.prototype.forEach.call(headers, function (h) { h.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", asc ? "ascending" : "descending");
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var x = cellValue(a, index, type), y = cellValue(b, index, type);
          if (x < y) return asc ? -1 : 1;
          if (x > y) return asc ? 1 : -1;
          return 0;
        });
        rows.forEach(function (r) { body.appendChild(r); });
      }
      th.addEventListener("click", sort);
      th.addEventListener("keydown", function (e) {
        if (e.key === "Enter" || e.key === " ") { e.preventDefault(); sort(); }
      });
    });
  }

  // Trick stepper: each hand's trick table gets Prev / Next / All buttons.
  function makeStepper(box) {
    var rows = box.querySelectorAll("tr.trick");
    if (rows.length < 2) return;
    var shown = rows.length;
    var bar = document.createElement("div");
    bar.className = "stepper";
    function button(label, title) {
      var b = document.createElement("button");
      b.type = "button";
      b.textContent = label;
      b.title = title;
      bar.appendChild(b);
      return b;
    }
    var first = button("\u00AB First", "First trick");
    var prev = button("\u25C0 Prev", "Previous trick");
    var next = button("Next \u25B6", "Next trick");
    var all = button("All", "Show every trick");
    var status = document.createElement("span");
    status.className = "muted step-status";
    bar.appendChild(status);
    function update() {
      Array.prototype.forEach.call(rows, function (r, i) {
        r.classList.toggle("hidden", i >= shown);
      });
      status.textContent = "trick " + shown + " of " + rows.length;
      first.disabled = prev.disabled = shown <= 1;
      next.disabled = all.disabled = shown >= rows.length;
    }
    first.addEventListener("click", function () { shown = 1; update(); });
    prev.addEventListener("click", function () { shown = Math.max(1, shown - 1); update(); });
    next.addEventListener("click", function () { shown = Math.min(rows.length, shown + 1); update(); });
    all.addEventListener("click", function () { shown = rows.length; update(); });
    box.insertBefore(bar, box.firstChild);
    update();
  }

  // Wide tables: a written hint above a box that scrolls sideways, kept in place (only
  // made invisible) once the reader has scrolled to the end, so nothing jumps.
  function addScrollHint(box) {
    var hint = document.createElement("p");
    hint.className = "scroll-hint";
    hint.setAttribute("aria-hidden", "true");
    hint.textContent = "More columns: scroll sideways \u2192";
    box.parentNode.insertBefore(hint, box);
    function update() {
      var overflows = box.scrollWidth - box.clientWidth > 1;
      hint.hidden = !overflows;
      hint.classList.toggle("done", box.scrollLeft + box.clientWidth >= box.scrollWidth - 1);
    }
    box.addEventListener("scroll", update, { passive: true });
    // A box changes size with the window, and when a closed <details> around it opens.
    if (window.ResizeObserver) new ResizeObserver(update).observe(box);
    else window.addEventListener("resize", update);
    update();
  }

  // Bot names cut with an ellipsis (a long name in a narrow box) show the whole name on
  // hover or long-press.
  function titleCutNames() {
    document.querySelectorAll(".name, a.bot, .who").forEach(function (el) {
      if (!el.title && el.scrollWidth > el.clientWidth + 1) el.title = el.textContent;
    });
  }

  // Relative times: <time class="rel" datetime="..."> gets "(3 hours ago)" after it, from the
  // reader's clock (the page itself holds only the absolute UTC time). Nothing is added for
  // times over a month old, in the future, or when the browser lacks Intl.RelativeTimeFormat.
  var UNITS = [["second", 60], ["minute", 60], ["hour", 24], ["day", 30]];

  function relativeText(then, now) {
    if (typeof Intl === "undefined" || !Intl.RelativeTimeFormat) return "";
    var value = (then - now) / 1000;
    if (isNaN(value) || value > 60) return "";
    var format = new Intl.RelativeTimeFormat("en", { numeric: "auto" });
    for (var i = 0; i < UNITS.length; i++) {
      if (Math.abs(value) < UNITS[i][1]) {
        return format.format(Math.min(0, Math.round(value)), UNITS[i][0]);
      }
      value /= UNITS[i][1];
    }
    return "";
  }

  function addRelative(el) {
    var text = relativeText(Date.parse(el.getAttribute("datetime")), Date.now());
    if (!text) return;
    var ago = document.createElement("span");
    ago.className = "ago";
    ago.textContent = " (" + text + ")";
    el.parentNode.insertBefore(ago, el.nextSibling);
  }

  function enhance() {
    document.querySelectorAll("table.sortable").forEach(makeSortable);
    document.querySelectorAll(".tricks").forEach(makeStepper);
    document.querySelectorAll("time.rel[datetime]").forEach(addRelative);
    document.querySelectorAll(".table-scroll").forEach(addScrollHint);
    titleCutNames();
  }

  document.addEventListener("DOMContentLoaded", enhance);
  // live.js (pages served by `arena web`) swaps in a page's new content: enhance it again.
  document.addEventListener("arena:updated", enhance);
})();
