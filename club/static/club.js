// The club's screens follow the tables without reloading: each waits on the
// server for a change (long poll) and swaps in its part (the tables' grid, or
// the whole wall screen) as the server drew it. The wall's clock counts down
// from the seconds the server's clock gave, not this screen's clock.
(function () {
  "use strict";
  var area = document.querySelector("[data-fragment]");
  if (!area || !window.fetch) { return; }
  var version = area.getAttribute("data-version");
  var status = document.getElementById("live-status");
  var loaded = Date.now();
  var left = null;

  function show(ok) {
    if (status) { status.className = ok ? "dot ok" : "dot bad"; }
  }

  function clock() {
    var el = document.getElementById("wall-left");
    if (!el) { left = null; return; }
    if (left === null) { left = Number(el.getAttribute("data-left")); loaded = Date.now(); }
    var now = Math.max(0, Math.round(left - (Date.now() - loaded) / 1000));
    var time = el.querySelector(".wall-time");
    if (now <= 0) {
      el.textContent = el.getAttribute("data-over");
    } else if (time) {
      var s = now % 60;
      time.textContent = Math.floor(now / 60) + ":" + (s < 10 ? "0" : "") + s;
    }
  }

  function refresh() {
    return fetch(area.getAttribute("data-fragment"), {cache: "no-store"}).then(function (r) {
      if (!r.ok) { throw new Error(r.status); }
      return r.text();
    }).then(function (html) {
      var box = document.createElement("div");
      box.innerHTML = html;
      var fresh = box.querySelector("#" + area.id);
      if (fresh) {
        area.replaceWith(fresh);
        area = fresh;
        version = area.getAttribute("data-version");
        left = null;
        clock();
      }
    });
  }

  function wait() {
    fetch(area.getAttribute("data-live") + "?after=" + encodeURIComponent(version), {cache: "no-store"})
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
  clock();
  setInterval(clock, 1000);
  wait();
}());
