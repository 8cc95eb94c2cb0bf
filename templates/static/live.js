// Euchre Arena, pages served by `arena web`: follow the database's changes without a reload.
// The server sends an event on /api/changes when the database's data version moves; this
// script then fetches its own page again and swaps in the new <main> and footer. A page read
// as a file (`arena render`) never loads this script and reads fine without it.
(function () {
  "use strict";
  var script = document.currentScript;
  if (!script || !window.EventSource || !window.fetch || !window.DOMParser) return;
  var source = script.getAttribute("data-changes");
  if (!source) return;

  // The data version the page was rendered at, then the one it was last brought up to.
  var version = script.getAttribute("data-version");
  var busy = false;
  var again = false;
  var shown = null; // the server's HTML of <main> last swapped in

  function swap(html) {
    var doc = new DOMParser().parseFromString(html, "text/html");
    var fresh = doc.querySelector("main");
    var old = document.querySelector("main");
    if (!fresh || !old || fresh.innerHTML === shown) return;
    shown = fresh.innerHTML;
    old.replaceWith(document.adoptNode(fresh));
    var foot = doc.querySelector("footer");
    var oldFoot = document.querySelector("footer");
    if (foot && oldFoot) oldFoot.replaceWith(document.adoptNode(foot));
    if (doc.title) document.title = doc.title;
    document.documentElement.setAttribute("data-live-version", version || "");
    document.dispatchEvent(new Event("arena:updated"));
  }

  function refresh() {
    if (busy) { again = true; return; }
    busy = true;
    fetch(window.location.href, { credentials: "same-origin", cache: "no-store" })
      .then(function (r) { return r.ok ? r.text() : null; })
      .then(function (html) { if (html !== null) swap(html); })
      .catch(function () { /* the next change tries again */ })
      .then(function () {
        busy = false;
        if (again) { again = false; refresh(); }
      });
  }

  function seen(event) {
    var now = event.data;
    if (version !== null && now !== version) {
      version = now;
      refresh();
    } else {
      version = now;
    }
  }

  var stream = new EventSource(source);
  // "version": the data version when a stream opens (after a reconnection too: a change
  // missed meanwhile shows as a different version); "change": it moved.
  stream.addEventListener("version", seen);
  stream.addEventListener("change", seen);
})();
