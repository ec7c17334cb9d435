/* Draws the live table from the state JSON and keeps it current through the
   event stream (/events). Words come translated from the server (#words). */
"use strict";

const W = JSON.parse(document.getElementById("words").textContent);

function cardLabel(code) {
  return code ? W.ranks[code[0]] + W.suits[code[1]] : "?";
}

/* A card picture: index at two corners and a large pip, all in CSS. */
function cardEl(code, small) {
  const el = document.createElement("div");
  el.className = "card" + (small ? " small" : "");
  if (code === undefined) { el.classList.add("empty"); return el; }
  if (code === null) {
    el.classList.add("unknown");
    el.dataset.card = "?";
    el.innerHTML = '<span class="pip">?</span>';
    el.setAttribute("aria-label", "?");
    return el;
  }
  if (code[1] === "H" || code[1] === "D") el.classList.add("red");
  el.dataset.card = code;
  const idx = W.ranks[code[0]] + "<br>" + W.suits[code[1]];
  el.innerHTML = '<span class="idx">' + idx + '</span><span class="pip">' + W.suits[code[1]] +
    '</span><span class="idx br">' + idx + "</span>";
  el.setAttribute("aria-label", cardLabel(code));
  return el;
}

/* The unread cards the deal and the camera's reads filled (the state's ``filled``),
   by hand, trick and seat: shown dotted, "déduite", with their candidates. */
function filledAt(s) {
  const out = {};
  for (const f of s.filled || []) out[f.hand_no + "-" + f.trick + "-" + f.seat] = f;
  return out;
}
function markFilled(el, f) {
  el.classList.add("filled");
  const tag = document.createElement("span");
  tag.className = "filled-tag";
  tag.textContent = W.filled;
  el.append(tag);
  el.title = fmt(W.filled_title, {cards: (f.candidates || []).map(c => cardLabel(c.card)).join(", ")});
  el.setAttribute("aria-label", cardLabel(f.card) + " (" + W.filled + ")");
}
/* A one-tap question: "Ouest, pli 3 : V♥ ou V♦ ?" */
function questionText(q, s) {
  const cards = (q.candidates || []).map(c => cardLabel(c.card)).join(" " + W.or + " ");
  const text = fmt(W.question, {seat: W.seats[q.seat] || q.seat, trick: q.trick, cards: cards});
  return q.hand_no !== s.hand_no ? fmt(W.in_hand, {hand: q.hand_no}) + " " + text : text;
}

function fmt(template, values) {
  return template.replace(/%\((\w+)\)s/g, (_, k) => values[k] ?? "");
}

/* A bid as spoken: 80H -> 80♥, capotS -> capot ♠, take:C -> take ♣. */
function bidText(bid) {
  if (bid === "pass") return W.pass;
  const m = /^(\d+|capot|take:?)(S|H|D|C|NT|AT)?$/.exec(bid);
  if (!m) return bid;
  const value = m[1] === "capot" ? W.capot : m[1].replace(":", "");
  const trump = m[2] ? (W.suits[m[2]] || W.trumps[m[2]]) : "";
  return value + (trump && m[2].length === 1 ? trump : trump ? " " + trump : "");
}

function contractText(c) {
  if (!c) return W.no_contract;
  let text = W.seats[c.taker] + " " + (c.value === "capot" ? W.capot : c.value) + " " +
    (W.trumps[c.trump] || c.trump);
  if (c.double === 2) text += " " + W.contre;
  if (c.double === 4) text += " " + W.surcontre;
  return text;
}

function setText(id, text) {
  const el = document.getElementById(id);
  if (el && el.textContent !== String(text)) el.textContent = text;
}

/* What the page says of the store (status.storage): a fault first, then a
   damaged file recovered at start. */
function storageText(st) {
  const parts = [];
  if (st.fault) parts.push(fmt(W.storage[st.fault] || W.storage.io,
    {n: st.unsaved || 0, detail: st.detail || "", path: st.path || ""}));
  if (st.recovered) parts.push(fmt(W.storage.recovered, {n: st.recovered.events,
    lost: st.recovered.lost ?? "?", aside: st.recovered.aside}));
  return parts.join(" ");
}

function renderStatus(status) {
  // A bad setting: the table is up, the page says what to fix.
  const banner = document.getElementById("problem-banner");
  if (banner) {
    const problem = status && status.problem;
    banner.hidden = !problem;
    if (problem) setText("problem-banner", fmt(W.problems[problem.code] || W.problems.other,
      {detail: problem.detail || ""}));
  }
  // The disk refuses to write, or the store was recovered at start: what is
  // wrong and what to do (the cards are still followed meanwhile).
  const storageEl = document.getElementById("storage-banner");
  if (storageEl) {
    const st = (status && status.storage) || {};
    const said = storageText(st);
    storageEl.hidden = !said;
    setText("storage-banner", said);
  }
  // Why the camera is lost: its English template, said in the visitor's language.
  const lost = status && status.camera === "lost";
  const trouble = lost ? status.camera_trouble : null;
  const why = trouble ? fmt(W.camera_troubles[trouble.template] || trouble.template,
    trouble.values || {}) : (lost && status.camera_error) || "";
  const troubleEl = document.getElementById("camera-trouble");
  if (troubleEl) {
    troubleEl.hidden = !why;
    setText("camera-trouble", why);
  }
  for (const part of ["camera", "display"]) {
    const value = (status && status[part]) || "off";
    const el = document.getElementById(part + "-status");
    if (!el) continue;
    el.querySelector(".dot").className = "dot " + dotClass(value);
    el.querySelector(".value").textContent = fmt(W.status_line, {part: W[part],
      value: W.status_values[value] || value});
  }
}

/* A part's dot: green while it works (frames arrive, the display answers), amber
   while it is looked for or set aside, red when it failed, grey when off. */
function dotClass(value) {
  if (value === "ok" || value === "virtual table") return "ok";
  if (value === "off" || value === "none") return "off";
  if (["searching", "connecting", "paused", "manual"].includes(value)) return "wait";
  return "error";
}

/* A team left unnamed keeps its code, written the visitor's way (EO in French). */
function teamNames(s) {
  const out = {};
  for (const t of ["NS", "EW"]) {
    const name = (s.teams || {})[t] || t;
    out[t] = name === t ? W.team_codes[t] : name;
  }
  return out;
}

/* A game with a time limit: minutes left, counted here between states. */
let endsAt = null;
function showTimeLeft() {
  const el = document.getElementById("time-left");
  if (!el) return;
  el.hidden = !endsAt;
  if (!endsAt) return;
  const left = Math.ceil((endsAt * 1000 - Date.now()) / 60000);
  setText("time-left", left > 0 ? fmt(W.time_left, {n: left}) : W.time_up);
}
setInterval(showTimeLeft, 15000);

function renderTable(s) {
  const teams = teamNames(s);
  for (const t of ["NS", "EW"]) {
    setText("team-" + t, teams[t] || t);
    setText("score-" + t, (s.scores || {})[t] ?? 0);
    setText("tricks-" + t, (s.tricks_won || {})[t] ?? 0);
    setText("points-" + t, (s.card_points || {})[t] ?? 0);
    const box = document.getElementById("box-" + t);
    if (box) box.classList.toggle("winner", s.winner === t);
  }
  setText("target", s.target ?? "");
  const limit = (s.rules || {}).hands;
  setText("hand-no", s.phase === "over" ? (s.hands || []).length :
    limit ? fmt(W.hand_of, {n: s.hand_no, total: limit}) : (s.hand_no ?? ""));
  endsAt = s.phase === "over" ? null : s.ends_at;
  showTimeLeft();
  setText("dealer", s.dealer ? W.seats[s.dealer] : "");
  setText("contract", s.phase === "over" ? "—" : contractText(s.contract));
  setText("phase", (W.phases[s.phase] || s.phase || "") +
    (s.winner ? " — " + fmt(W.winner, {team: teams[s.winner] || s.winner}) : ""));
  setText("trick-no", s.trick_no ?? "");
  const turn = s.phase === "bidding" ? s.to_speak : s.to_play;
  setText("to-play", turn ? W.seats[turn] + " " + (s.phase === "bidding" ? W.to_speak : W.to_play) : "");
  const bids = (s.bids || []).map(b => fmt(W.bid_line, {seat: W.seats[b.seat][0],
    bid: bidText(b.bid)}));
  setText("bids", bids.length ? W.bids + " — " + bids.join(", ") : "");

  // Between tricks the last one stays on the table, faded, until the next lead:
  // watchers should see the fourth card and who took the trick.
  const played = {};
  const fills = filledAt(s);
  let shownAt = [s.hand_no, s.trick_no];  // the hand and trick of the cards shown
  let last = null;
  const current = (s.current_trick || {}).cards || [];
  const previousHand = (s.hands || []).length ? s.hands[s.hands.length - 1].result : null;
  if (current.length) {
    for (const c of current) played[c.seat] = c.card;
  } else if ((s.tricks || []).length) {
    last = s.tricks[s.tricks.length - 1];
    shownAt = [s.hand_no, s.tricks.length];
  } else if (previousHand && !(s.bids || []).length && (previousHand.tricks || []).length) {
    last = previousHand.tricks[previousHand.tricks.length - 1];
    shownAt = [s.hands[s.hands.length - 1].hand_no, previousHand.tricks.length];
  }
  if (last) (last.seats || []).forEach((seat, i) => { played[seat] = last.cards[i]; });
  setText("last-trick", last ? W.last_trick + " — " + W.won_by + " " +
    (last.winner ? W.seats[last.winner] : "?") + " (" + last.points + ")" : "");
  setText("last-hand", previousHand && !current.length && !(s.tricks || []).length ?
    W.last_hand + " — " + teams.NS + " " + previousHand.score.NS + ", " + teams.EW + " " +
    previousHand.score.EW + (previousHand.made === true ? " (" + W.made + ")" :
      previousHand.made === false ? " (" + W.fallen + ")" : "") : "");
  document.getElementById("table").classList.toggle("showing-last", Boolean(last));
  for (const seat of ["N", "E", "S", "W"]) {
    const box = document.getElementById("seat-" + seat);
    if (!box) continue;
    const name = (s.players || {})[seat];
    box.querySelector(".who").textContent = W.seats[seat] + (name ? " · " + name : "");
    box.classList.toggle("turn", turn === seat);
    const slot = box.querySelector(".slot");
    const f = seat in played ? fills[shownAt[0] + "-" + shownAt[1] + "-" + seat] : undefined;
    const code = f ? f.card : seat in played ? played[seat] : undefined;
    const shown = String(code) + (f ? " filled" : "");
    if (slot.dataset.shown !== shown) {
      const el = cardEl(code);
      if (f) markFilled(el, f);
      slot.replaceChildren(el);
      slot.dataset.shown = shown;
    }
  }

  const banner = document.getElementById("renonce-banner");
  const renonces = s.renonces || [];
  banner.hidden = renonces.length === 0;
  banner.textContent = renonces.map(r => W.renonce + " ! " + fmt(W.renonce_by, {
    seat: W.seats[r.seat], trick: r.trick, rule: W.rules[r.rule] || r.rule,
    card: cardLabel((r.proof || {}).card), proof: (r.proof || {}).trick})).join(" · ");

  renderEnd(s, teams);
  const unknown = document.getElementById("unknown-prompt");
  // Unread cards: those filled are shown in place; the others are asked, between
  // their candidates when the deal and the reads narrow them.
  const asked = {};
  for (const q of s.questions || []) asked[q.hand_no + "-" + q.trick + "-" + q.seat] = q;
  const missing = (s.unknown || []).filter(u => !fills[s.hand_no + "-" + u.trick + "-" + u.seat] &&
    !asked[s.hand_no + "-" + u.trick + "-" + u.seat]);
  const lines = missing.map(u => fmt(W.unknown, {seat: W.seats[u.seat], trick: u.trick}))
    .concat((s.questions || []).map(q => questionText(q, s)));
  unknown.hidden = lines.length === 0;
  unknown.textContent = lines.join(" · ");
  if (s.status) renderStatus(s.status);
  document.dispatchEvent(new CustomEvent("belote:state", {detail: s}));
}

/* Between hands and at the end, the score hand by hand (an SVG the server draws);
   at the end, the game-over screen in place of the empty table. */
function renderEnd(s, teams) {
  const over = s.phase === "over";
  const screen = document.getElementById("game-over-screen");
  if (screen) {
    screen.hidden = !over;
    document.getElementById("table").hidden = over;
    if (over) {
      setText("go-winner", s.winner ? fmt(W.winner, {team: teams[s.winner]}) : W.draw);
      setText("go-detail", teams.NS + " " + s.scores.NS + " – " + s.scores.EW + " " + teams.EW +
        " · " + fmt(W.hands_played, {n: (s.hands || []).length}));
    }
  }
  const chart = document.getElementById("live-chart");
  if (!chart) return;
  const hands = (s.hands || []).length;
  const between = s.phase === "bidding" && !(s.bids || []).length && !s.turned;
  chart.hidden = !(hands && (over || between));
  if (!chart.hidden) {
    const src = "/api/games/" + s.game_id + "/chart.svg?hands=" + hands;
    const img = document.getElementById("chart-img");
    if (img.getAttribute("src") !== src) img.src = src;
  }
}

/* A card put down out of turn: said for a while when it comes; it is stored and
   waits for its seat's turn (the state's ``pending``), shown below while it waits.
   Renonces and unknown cards stay in the state too. */
let alertTimer = null;
function showAlert(a) {
  if (a.kind !== "out_of_turn") return;
  const line = document.getElementById("alert-line");
  line.textContent = fmt(W.out_of_turn, {card: cardLabel(a.card), seat: W.seats[a.seat] || a.seat,
    to_play: W.seats[a.to_play] || a.to_play || "?"});
  line.hidden = false;
  clearTimeout(alertTimer);
  alertTimer = setTimeout(() => { line.hidden = true; }, 8000);
}

/* Whether state ``s`` may replace the one shown: not an older state of the same game
   (fewer events stored). An answer to a request can arrive after the stream has
   already brought a later state (the next hand): shown, it would take the page back. */
function newerState(s) {
  const cur = window.beloteState;
  return !cur || s.game_id !== cur.game_id || (s.events ?? 0) >= (cur.events ?? 0);
}
function showState(s) {
  if (!newerState(s)) return;
  window.beloteState = s;
  renderTable(s);
  renderWaiting(s);
}
/* The cards stored out of turn that wait for their seat's turn. */
function renderWaiting(s) {
  const box = document.getElementById("waiting-line");
  if (!box) return;
  const waiting = (s.pending || []).map(p => (W.seats[p.seat] || p.seat) + " " + cardLabel(p.card));
  box.hidden = !waiting.length;
  box.textContent = waiting.length ? fmt(W.waiting_cards, {cards: waiting.join(", ")}) : "";
}

/* EventSource reconnects by itself and sends Last-Event-ID; the server then
   sends the current state if anything was missed. */
function connect() {
  const conn = document.getElementById("conn");
  const source = new EventSource("/events");
  source.addEventListener("open", () => { conn.textContent = W.connected; conn.className = "dot-label ok"; });
  source.addEventListener("error", () => {
    conn.textContent = W.disconnected;
    conn.className = "dot-label error";
    // EventSource retries a dropped stream by itself, but gives up on an
    // HTTP error (server full, restarting behind a proxy): try again later.
    if (source.readyState === EventSource.CLOSED) setTimeout(connect, 5000);
  });
  source.addEventListener("state", e => showState(JSON.parse(e.data)));
  source.addEventListener("status", e => {
    const status = JSON.parse(e.data);
    renderStatus(status);
    document.dispatchEvent(new CustomEvent("belote:status", {detail: status}));
  });
  source.addEventListener("alert", e => {
    const a = JSON.parse(e.data);
    showAlert(a);
    document.dispatchEvent(new CustomEvent("belote:alert", {detail: a}));
  });
  window.beloteSource = source;
}

window.beloteState = JSON.parse(document.getElementById("initial-state").textContent);
renderTable(window.beloteState);
renderStatus(JSON.parse(document.getElementById("initial-status").textContent));
connect();
