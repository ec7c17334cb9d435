// The club screen follows the tables without reloading: it waits on the
// server for a change (long poll) and swaps in the tables as the server drew them.
(function () {
  "use strict";
  var grid = document.getElementById("tables");
  if (!grid || !window.fetch) { return; }
  var version = grid.getAttribute("data-version");
  var status = document.getElementById("live-status");

  function show(ok) {
    if (status) { status.className = ok ? "dot ok" : "dot bad"; }
  }

  function refresh() {
    return fetch(grid.getAttribute("data-fragment"), {cache: "no-store"}).then(function (r) {
      if (!r.ok) { throw new Error(r.status); }
      return r.text();
    }).then(function (html) {
      var box = document.createElement("div");
      box.innerHTML = html;
      var fresh = box.querySelector("#tables");
      if (fresh) {
        grid.replaceWith(fresh);
        grid = fresh;
        version = grid.getAttribute("data-version");
      }
    });
  }

  function wait() {
    fetch(grid.getAttribute("data-live") + "?after=" + encodeURIComponent(version), {cache: "no-store"})
      .then(function (r) {
        if (!r.ok) { throw new Error(r.status); }
        return r.json();
      })
      .then(function (data) {
        show(true);
        if (String(data.version) !== String(version)) { return refresh(); }
        return null;
      })
      .then(function () { setTimeout(wait, 50); },
            function () { show(false); setTimeout(wait, 2000); });
  }
  wait();
}());
