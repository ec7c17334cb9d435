/* The organiser's buttons: each one sends one entry to the JSON API (session
   cookie + CSRF token) and shows the answer; the table itself follows the
   event stream (table.js). */
"use strict";

const CSRF = document.querySelector('meta[name="csrf-token"]').content;
const message = document.getElementById("message");
let chosenCard = null;
let chosenPlay = null;   // {seat, trick} of a card played this hand
let bidTrump = null;
let tallyOpened = false;
let lastHand = null;
let lastGame = null;

function say(text, isError) {
  message.textContent = text;
  message.classList.toggle("error", Boolean(isError));
}

// An entry: asked (see ``ask``), then its answer said and the state it gives shown.
async function send(path, body) {
  const answer = await ask(path, body);
  if (answer) {
    say("✓ " + (answer.message || ""), false);
    if (answer.state) showState(answer.state);
  }
  return answer;
}

function pickCard(code) {
  chosenCard = code;
  for (const b of document.querySelectorAll("#picker button")) {
    b.setAttribute("aria-pressed", String(b.dataset.card === code));
  }
}

/* Cards played this hand, as buttons to pick the one to confirm or correct. */
function renderPlayed(s) {
  const list = document.getElementById("played-list");
  const played = new Set(s.played || []);
  for (const b of document.querySelectorAll("#picker button")) {
    b.classList.toggle("played", played.has(b.dataset.card));
  }
  const items = [];
  const fills = filledAt(s);
  (s.tricks || []).forEach((t, i) => {
    const seats = t.seats || [];
    (t.cards || []).forEach((c, j) => items.push({trick: i + 1, seat: seats[j], card: c}));
  });
  for (const c of ((s.current_trick || {}).cards || [])) {
    items.push({trick: s.trick_no, seat: c.seat, card: c.card});
  }
  // Cards put down out of turn: stored, played when their seat's turn comes.
  const waiting = (s.pending || []).map(p => {
    const b = document.createElement("span");
    b.className = "pending-card";
    b.textContent = W.seats[p.seat][0] + " " + cardLabel(p.card) + " · " + W.pending;
    return b;
  });
  list.replaceChildren(...items.map(it => {
    const b = document.createElement("button");
    b.type = "button";
    b.dataset.trick = it.trick;
    b.dataset.seat = it.seat;
    // A card the deal filled: shown as filled, changed like any card.
    const f = fills[s.hand_no + "-" + it.trick + "-" + it.seat];
    const card = f ? f.card : it.card;
    b.dataset.card = card || "";
    b.textContent = it.trick + "·" + W.seats[it.seat][0] + " " + cardLabel(card);
    if (f) markFilled(b, f);
    else if (it.card === null) b.classList.add("danger");
    // The camera's evidence: the picture it read and how sure it was.
    const ev = evidence[it.trick + it.seat];
    if (ev && ev.crop) {
      const img = document.createElement("img");
      img.className = "crop"; img.src = ev.crop; img.alt = W.camera_read;
      b.prepend(img);
    }
    if (ev && ev.confidence !== null && ev.camera) {
      const conf = document.createElement("small");
      conf.className = "conf";
      conf.textContent = (ev.read && ev.read !== it.card ? W.read + " " + cardLabel(ev.read) + " · " : "") +
        ev.confidence.toFixed(2).replace(".", W.decimal);
      b.append(conf);
    }
    if (!f && ev && ev.unsure && ev.corrected_by === null) b.classList.add("unsure");
    const on = chosenPlay && chosenPlay.trick === it.trick && chosenPlay.seat === it.seat;
    b.setAttribute("aria-pressed", String(Boolean(on)));
    b.addEventListener("click", () => { chosenPlay = {trick: it.trick, seat: it.seat}; renderPlayed(window.beloteState); });
    return b;
  }), ...waiting);
  renderQuestions(s);
  const speak = document.getElementById("c-to-speak");
  speak.textContent = s.to_speak ? W.seats[s.to_speak] + " " + W.to_speak : "";
  const classic = ((s.rules || {}).game) === "classic";
  for (const el of document.querySelectorAll(".classic-only")) el.hidden = !classic;
  // Only what the moment calls for, so the thumb does not have to scroll past the rest.
  const bidding = s.phase === "bidding";
  document.getElementById("auction").hidden = !bidding;
  document.getElementById("contract-entry").hidden = !bidding;
  document.getElementById("cards").hidden = !(s.phase === "play" || (bidding && classic));
  document.getElementById("belote").hidden = s.phase !== "play";
  // The tally replaces the play of a hand: offered until the first card.
  const manual = ((s.status || {}).mode) === "manual";
  const camera = (s.status || {}).camera;
  const lost = manual || ["lost", "error", "off"].includes(camera);
  document.getElementById("tally").hidden = !(s.phase === "play" && !(s.played || []).length);
  if (lost && !tallyOpened) { document.getElementById("tally-details").open = true; tallyOpened = true; }
  document.getElementById("camera-lost").hidden = !lost || manual || s.phase === "over";
  document.getElementById("mode-manual").hidden = manual;
  document.getElementById("mode-camera").hidden = !manual;
  // Each hand's quick entry starts blank: nothing carried over from the last hand.
  if (s.hand_no !== lastHand || s.game_id !== lastGame) {
    for (const id of ["k-taker", "k-value", "k-trump", "play-seat", "t-belote"]) document.getElementById(id).value = "";
    document.getElementById("k-double").value = "1";
    document.getElementById("bid-value").selectedIndex = 0;
    lastHand = s.hand_no; lastGame = s.game_id;
  }
  const over = s.phase === "over";
  document.getElementById("game-over").hidden = !over;
  document.getElementById("end-box").hidden = over || s.phase === "setup";
  if (over) {
    const teams = teamNames(s);
    document.getElementById("game-over-title").textContent = W.game_over + " — " +
      (s.winner ? fmt(W.winner, {team: teams[s.winner]}) : W.draw);
    document.getElementById("over-sheet").href = "/history/" + s.game_id + "/sheet";
    document.getElementById("over-csv").href = "/api/games/" + s.game_id + "/scores.csv";
  }
  const sata = Boolean((s.rules || {}).sans_tout_atout);
  for (const b of document.querySelectorAll('[data-trump="NT"], [data-trump="AT"]')) b.hidden = !sata;
}

/* The unread cards the deal narrowed to a few: one tap names each (a correction). */
function renderQuestions(s) {
  const box = document.getElementById("questions");
  const questions = s.questions || [];
  box.hidden = questions.length === 0;
  document.getElementById("question-list").replaceChildren(...questions.map(q => {
    const row = document.createElement("div");
    row.className = "row question";
    row.dataset.trick = q.trick;
    row.dataset.seat = q.seat;
    row.append(Object.assign(document.createElement("span"), {textContent: questionText(q, s)}));
    for (const c of q.candidates || []) {
      const b = document.createElement("button");
      b.type = "button";
      b.className = "primary" + (c.card[1] === "H" || c.card[1] === "D" ? " red" : "");
      b.dataset.card = c.card;
      b.textContent = cardLabel(c.card);
      b.addEventListener("click", () => send("correct", {seat: q.seat, trick: q.trick,
                                                         card: c.card, hand: q.hand_no}));
      row.append(b);
    }
    return row;
  }));
}

/* The current hand's evidence, fetched after each change (the state does not carry pictures). */
let evidence = {};
let evidenceTimer = null;
async function refreshEvidence() {
  const s = window.beloteState;
  if (!s.game_id || !s.hand_no) return;
  try {
    const r = await fetch("/api/games/" + s.game_id + "/hands/" + s.hand_no + "/evidence");
    if (!r.ok) return;
    const answer = await r.json();
    evidence = {};
    for (const p of answer.plays) evidence[p.trick + p.seat] = p;
    renderPlayed(window.beloteState);
  } catch (e) { /* the next state tries again */ }
}
document.addEventListener("belote:state", e => {
  renderPlayed(e.detail);
  clearTimeout(evidenceTimer);
  evidenceTimer = setTimeout(refreshEvidence, 200);
});
document.addEventListener("belote:status", e => {
  window.beloteState.status = Object.assign({}, window.beloteState.status || {}, e.detail);
  renderPlayed(window.beloteState);
});
/* An alert said in the page's words (the service's own message is for logs). */
function alertText(a) {
  const seat = W.seats[a.seat] || a.seat || "?";
  if (a.kind === "renonce") {
    return W.renonce + " ! " + fmt(W.renonce_by, {seat: seat, trick: a.trick,
      rule: W.rules[a.rule] || a.rule, card: cardLabel((a.proof || {}).card),
      proof: (a.proof || {}).trick});
  }
  if (a.kind === "unknown_card") return fmt(W.unknown, {seat: seat, trick: a.trick});
  if (a.kind === "out_of_turn") {
    return fmt(W.out_of_turn, {card: cardLabel(a.card), seat: seat,
      to_play: W.seats[a.to_play] || a.to_play || "?"});
  }
  return "";
}
document.addEventListener("belote:alert", e => {
  const text = alertText(e.detail);
  if (text) say(text, e.detail.kind === "renonce");
});

for (const b of document.querySelectorAll("#picker button")) {
  b.addEventListener("click", () => pickCard(b.dataset.card));
}
for (const b of document.querySelectorAll("button.bid")) {
  b.addEventListener("click", () => send("bid", {bid: b.dataset.bid}));
}
for (const b of document.querySelectorAll("button.bid-trump")) {
  b.addEventListener("click", () => {
    const value = document.getElementById("bid-value").value;
    send("bid", {bid: (value === "capot" ? "capot" : value) + b.dataset.trump});
  });
}
document.getElementById("end-game").addEventListener("click", () => {
  document.getElementById("end-ask").hidden = true;
  document.getElementById("end-confirm").hidden = false;
});
function endAsked(show) {
  document.getElementById("end-ask").hidden = show;
  document.getElementById("end-confirm").hidden = !show;
}
document.getElementById("end-no").addEventListener("click", () => endAsked(false));
document.getElementById("end-yes").addEventListener("click", async () => { endAsked(false); await send("end", {}); });
document.getElementById("same-teams").addEventListener("click", () => send("games/again", {}));
document.getElementById("set-contract").addEventListener("click", () => {
  for (const id of ["k-taker", "k-value", "k-trump"]) {
    if (!document.getElementById(id).value) { say(W.contract_missing, true); return; }
  }
  sendContract();
});
const sendContract = () => send("contract", {
  taker: document.getElementById("k-taker").value,
  value: document.getElementById("k-value").value,
  trump: document.getElementById("k-trump").value,
  double: Number(document.getElementById("k-double").value),
});
for (const b of document.querySelectorAll("button[data-belote]")) {
  b.addEventListener("click", () => send("belote", {seat: b.dataset.belote}));
}
function playSeat() { return document.getElementById("play-seat").value || undefined; }
document.getElementById("play-card").addEventListener("click", async () => {
  if (!chosenCard) { say(W.pick_card, true); return; }
  if (await send("play", {seat: playSeat(), card: chosenCard})) pickCard(null);
});
document.getElementById("play-unknown").addEventListener("click", () => send("play", {seat: playSeat(), card: null}));
document.getElementById("turned-card").addEventListener("click", () => {
  if (!chosenCard) { say(W.pick_card, true); return; }
  send("turned", {card: chosenCard});
});
/* A correction says what it changes before it is made (trick winners,
   renonces, score): the organiser confirms or cancels. */
let pendingCorrection = null;
function showCorrection(body, lines) {
  pendingCorrection = body;
  const box = document.getElementById("correct-preview");
  box.hidden = !body;
  if (!body) return;
  document.getElementById("correct-what").textContent = fmt(W.correct_what, {
    card: cardLabel(body.card), seat: W.seats[body.seat], trick: body.trick});
  document.getElementById("correct-changes").replaceChildren(...lines.map(
    line => Object.assign(document.createElement("li"), {textContent: line})));
  box.scrollIntoView({block: "nearest"});
}
// A POST to the API: its answer, or null once the refusal or the failure is said.
async function ask(path, body) {
  try {
    const r = await fetch("/api/" + path, {
      method: "POST", credentials: "same-origin",
      headers: {"Content-Type": "application/json", "X-CSRFToken": CSRF},
      body: JSON.stringify(body || {}),
    });
    const answer = await r.json().catch(() => ({error: r.statusText}));
    if (!r.ok) { say(answer.error || r.statusText, true); return null; }
    return answer;
  } catch (e) {
    say(String(e), true);
    return null;
  }
}
document.getElementById("correct-card").addEventListener("click", async () => {
  const target = chosenPlay || ((window.beloteState.unknown || [])[0]);
  if (!target) { say(W.pick_played, true); return; }
  if (!chosenCard) { say(W.pick_card, true); return; }
  const body = {seat: target.seat, trick: target.trick, card: chosenCard};
  const found = await ask("corrections/preview", body);
  if (found) showCorrection(body, found.lines || []);
});
document.getElementById("correct-yes").addEventListener("click", async () => {
  const body = pendingCorrection;
  showCorrection(null);
  if (body && await send("correct", body)) { chosenPlay = null; pickCard(null); }
});
document.getElementById("correct-no").addEventListener("click", () => {
  showCorrection(null);
  say(W.nothing_corrected, false);
});
/* A card read right but with doubt: confirming it keeps who vouched for it. */
document.getElementById("confirm-card").addEventListener("click", () => {
  const chosen = chosenPlay && document.querySelector(
    `#played-list button[data-trick="${chosenPlay.trick}"][data-seat="${chosenPlay.seat}"]`);
  if (!chosen || !chosen.dataset.card) { say(W.pick_played, true); return; }
  send("correct", {seat: chosenPlay.seat, trick: chosenPlay.trick, card: chosen.dataset.card});
});
/* Undo names the entry it will take back (the organiser's own last one, never
   a card the camera read) and asks before it does. */
let undoIndex = null;
let undoTimer = null;
function askUndo(show) {
  document.getElementById("undo-ask").hidden = show;
  document.getElementById("undo-confirm").hidden = !show;
}
async function refreshUndo() {
  try {
    const r = await fetch("/api/undo", {credentials: "same-origin"});
    showUndo(await r.json());
  } catch (e) { /* the next state tries again */ }
}
/* The entry an undo would take back (GET /api/undo), named on the page. */
function showUndo(answer) {
  undoIndex = answer.index;
  const what = document.getElementById("undo-what");
  if (answer.index === null) {
    what.textContent = W.nothing_to_undo;
  } else {
    what.replaceChildren(document.createTextNode(W.last_entry + " "), Object.assign(
      document.createElement("b"), {textContent: answer.entry}));
    document.getElementById("undo-question").textContent = fmt(W.undo_question, {entry: answer.entry});
  }
  document.getElementById("undo").disabled = answer.index === null;
  if (answer.index === null) askUndo(false);
}
document.addEventListener("belote:state", () => {
  clearTimeout(undoTimer);
  undoTimer = setTimeout(refreshUndo, 150);
});
/* The tally: the other team's figures follow from one team's (162 points and
   8 tricks in all, 258 at tout atout; 252 (348) and 8-0 on a capot) while the
   organiser has not typed them; a figure the organiser typed or chose is never
   changed here: the table refuses totals that cannot be, and says why. */
function tallyValue(id) { return document.getElementById(id).value.trim(); }
function other(t) { return t === "NS" ? "EW" : "NS"; }
function cardPoints() { return ((window.beloteState || {}).contract || {}).trump === "AT" ? 248 : 152; }
const tallyTyped = new Set();
function tallyFollow(id, value) {
  if (!tallyTyped.has(id)) document.getElementById(id).value = value;
}
for (const t of ["NS", "EW"]) {
  document.getElementById("t-points-" + t).addEventListener("input", e => {
    if (e.target.value.trim() === "") { tallyTyped.delete(e.target.id); return; }
    tallyTyped.add(e.target.id);
    const v = Number(e.target.value), total = cardPoints() + 10;
    if (Number.isInteger(v) && v >= 0 && v <= total) tallyFollow("t-points-" + other(t), total - v);
  });
  document.getElementById("t-tricks-" + t).addEventListener("input", e => {
    if (e.target.value.trim() === "") { tallyTyped.delete(e.target.id); return; }
    tallyTyped.add(e.target.id);
    const v = Number(e.target.value);
    if (Number.isInteger(v) && v >= 0 && v <= 8) tallyFollow("t-tricks-" + other(t), 8 - v);
  });
}
for (const b of document.querySelectorAll("button[data-capot]")) {
  b.addEventListener("click", () => {
    const t = b.dataset.capot;
    const figures = {["t-points-" + t]: cardPoints() + 100, ["t-points-" + other(t)]: 0,
                     ["t-tricks-" + t]: 8, ["t-tricks-" + other(t)]: 0};
    for (const [id, v] of Object.entries(figures)) {
      document.getElementById(id).value = v;
      tallyTyped.add(id);
    }
  });
}
document.getElementById("send-tally").addEventListener("click", async () => {
  const answer = await send("tally", {
    points: {NS: tallyValue("t-points-NS"), EW: tallyValue("t-points-EW")},
    tricks: {NS: tallyValue("t-tricks-NS"), EW: tallyValue("t-tricks-EW")},
    belote: document.getElementById("t-belote").value || null,
  });
  if (answer) {
    for (const id of ["t-points-NS", "t-points-EW", "t-tricks-NS", "t-tricks-EW"]) document.getElementById(id).value = "";
    tallyTyped.clear();
    document.getElementById("t-belote").value = "";
  }
});
for (const b of document.querySelectorAll("button[data-mode]")) {
  b.addEventListener("click", () => send("mode", {mode: b.dataset.mode}));
}
document.getElementById("undo").addEventListener("click", async () => {
  if (undoIndex === null) return;
  // What the undo would change, said before the organiser confirms.
  let lines = [];
  try {
    const r = await fetch("/api/undo?changes=1", {credentials: "same-origin"});
    const answer = await r.json();
    showUndo(answer);  // the entry an undo takes back now, whatever the page last knew
    if (answer.index === null) return;
    lines = answer.lines || [];
  } catch (e) { /* asked without the changes */ }
  document.getElementById("undo-changes").replaceChildren(...lines.map(
    line => Object.assign(document.createElement("li"), {textContent: line})));
  askUndo(true);
});
document.getElementById("undo-no").addEventListener("click", () => askUndo(false));
document.getElementById("undo-yes").addEventListener("click", async () => {
  askUndo(false);
  await send("undo", {index: undoIndex});
  refreshUndo();
});
refreshUndo();
renderPlayed(window.beloteState);
refreshEvidence();
