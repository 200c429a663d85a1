// simkit view: steps through one graded game. The data blob (simkit/view/page.py) holds every number shown;
// this script only lays it out. Step k (0..N) is the position after k cards: the panel shows decision k (the
// player to move, each legal card's value, the card played and its loss); at k = N the game is over.
"use strict";
const G = JSON.parse(document.getElementById("data").textContent);
const D = G.decisions, N = D.length, TRUMPS = new Set(G.trumps);
const $ = (id) => document.getElementById(id);
let step = 0;

function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") e.className = v; else if (k === "text") e.textContent = v; else e.setAttribute(k, v);
  }
  for (const k of kids) if (k !== null && k !== undefined) e.append(k);
  return e;
}
const svg = (tag, attrs, text) => {
  const e = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
};
const card = (c, cls) => el("span", {class: `card s-${c[0]}${TRUMPS.has(c) ? " trump" : ""}${cls ? " " + cls : ""}`,
                                     "data-card": c, text: c});
const who = (s) => G.players[s];
const fmt = (v) => (G.objective === "payout" && v > 0 ? "+" : "") + v;
const POINTS = G.objective === "points" || G.objective === "ramsch";  // values on the card points' scale
// loss of a card of value v for the side of the seat to move (the analysis's definition, docs/analyze.md)
const team = (s) => s === G.declarer || s === G.partner;
const lossOf = (d, v) => team(d.seat) ? d.best_value - v : v - d.best_value;
const wonText = (w) => w === null ? "" : w ? " (won)" : " (lost)";

// ------------------------------------------------------------------------------------------------ header
const RAMSCH = G.contract === "ramsch", BETTEL = G.contract === "bettel";
const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;
const bySeat = (xs) => xs.map((v, s) => `${who(s)} ${v}`).join(", ");

function header() {
  const r = G.result;
  const declaring = RAMSCH ? "none (a Ramsch: everyone for himself)"
    : G.partner === null ? `${who(G.declarer)} alone`
    : `${who(G.declarer)} and ${who(G.partner)} (holds ${G.called})`;
  const dec = G.decisive === null ? "no decisive mistake"
    : `decisive mistake: trick ${D[G.decisive].trick}, ${who(D[G.decisive].seat)}'s ${D[G.decisive].card}`;
  const blunders = D.filter((d) => d.blunder).length;
  const strat = G.strategies.length ? ` · advice of ${G.strategies.join(", ")}` : "";
  const conceded = G.recorded < N ? ` The record stops ${N - G.recorded} card${N - G.recorded === 1 ? "" : "s"} `
    + "short (the last trick was conceded): those cards are filled in, each of them forced." : "";
  let result;
  if (RAMSCH) {  // no side wins or loses in the values: each card is graded from its own player's view
    result = el("p", {class: "sub", text: `Result: card points ${bySeat(r.seat_points)}. Double dummy before the `
      + `first card: ${fmt(G.opening_value)} for ${who(0)} (the most the other three can push on the player who `
      + `leads); ${plural(blunders, "blunder")}${strat}.${conceded}`});
  } else {
    const outcome = el("span", {class: r.won ? "won" : "lost", text: r.won ? "won" : "lost"});
    const dd = G.dd_won ? "in hand (won with best play by all)" : "not in hand (lost with best play by all)";
    const took = BETTEL ? `the declarer took ${plural(r.declarer_tricks, "trick")}`
      : `the declaring side took ${r.declarer_points} points`;
    result = el("p", {class: "sub"}, `Result: ${took}, `, outcome,
       `, the declarer's payout ${r.payout > 0 ? "+" : ""}${r.payout}. Double dummy before the first card: `
       + `${fmt(G.opening_value)}, ${dd}; ${dec}; ${plural(blunders, "blunder")}${strat}.${conceded}`);
  }
  const loss = RAMSCH ? "a card's loss is its own value minus the best card's (its player wants few points)."
    : "a card's loss is the best card's value minus its own, for its player's side.";
  $("head").append(
    el("h1", {text: G.title}),
    el("p", {class: "sub", text: `game ${G.id} (line ${G.line}) · ${G.deck} deck · declaring side: ${declaring}`}),
    result,
    el("p", {class: "sub", text: G.objective ? `Values: ${G.unit} with every hand open and best play from there`
      + ` on; ${loss}` : "Values as in decisions.parquet (the analysis's objective is unknown: no summary.json)."}));
}

// ------------------------------------------------------------------------------------------- the table
function playedBefore(k) {  // cards played before step k, by seat
  const out = [new Set(), new Set(), new Set(), new Set()];
  for (let i = 0; i < k; i++) out[D[i].seat].add(D[i].card);
  return out;
}

function seats() {
  const gone = playedBefore(step);
  const d = step < N ? D[step] : null;
  const tricksDone = Math.floor(step / 4);
  for (let s = 0; s < 4; s++) {
    const box = $("seat" + s);
    box.replaceChildren();
    box.className = "seat" + (d && d.seat === s ? " to-move" : "");
    box.dataset.seat = s;
    let taken = 0, points = 0;
    for (const t of G.tricks.slice(0, tricksDone)) if (t.winner === s) { taken++; points += t.points; }
    const tally = `${taken} trick${taken === 1 ? "" : "s"}, ${points} pts taken`;
    box.append(el("div", {}, el("span", {class: "who", text: who(s)}),
                  el("span", {class: "role " + G.roles[s], text: G.roles[s]}),
                  el("span", {class: "taken", text: tally})));
    const hand = el("div", {class: "hand"});
    const values = d && d.seat === s ? new Map(d.values) : null;
    const advice = d && d.seat === s ? new Set(Object.values(d.advice).map((a) => a.card)) : new Set();
    for (const c of G.hands[s]) {
      if (gone[s].has(c)) continue;
      const legal = values ? values.has(c) : true;
      const cls = ["slot", values && !legal ? "illegal" : "", values && c === d.card ? "played" : "",
                   values && legal && values.get(c) === d.best_value ? "best" : "", advice.has(c) ? "advice" : ""];
      hand.append(el("span", {class: cls.filter(Boolean).join(" ")}, card(c),
                     values && legal ? el("span", {class: "val", text: fmt(values.get(c))}) : null));
    }
    box.append(hand);
  }
}

function trick() {
  const box = $("trick");
  box.replaceChildren();
  let t = Math.floor(step / 4), shown = step % 4, done = false;
  if (shown === 0 && step > 0) { t -= 1; shown = 4; done = true; }  // between tricks: the one just taken
  box.className = done ? "done" : "";
  const tr = G.tricks[t];
  if (!tr) return;
  for (let p = 0; p < shown; p++) {
    const s = (tr.leader + p) % 4;
    box.append(el("div", {class: "t" + s}, card(tr.cards[p], done && s === tr.winner ? "winner" : "")));
  }
  const note = done ? `trick ${t + 1}: ${who(tr.winner)} takes ${tr.points} pts`
    : `trick ${t + 1} · ${who(tr.leader)} leads`;
  box.append(el("div", {class: "note", text: note}));
}

// ---------------------------------------------------------------------------------------- the decision
function decision() {
  const box = $("decision");
  box.replaceChildren();
  box.dataset.step = step;
  if (step === N) {
    const r = G.result;
    box.dataset.card = "";
    if (RAMSCH) {
      box.append(el("h3", {text: "Game over"}), el("p", {text: `Card points: ${bySeat(r.seat_points)}.`}));
      return;
    }
    const took = BETTEL ? `The declarer took ${plural(r.declarer_tricks, "trick")}: `
      : `The declaring side took ${r.declarer_points} points: `;
    box.append(el("h3", {text: "Game over"}),
               el("p", {}, took, el("span", {class: r.won ? "won" : "lost", text: r.won ? "won" : "lost"}),
                  `. Value ${fmt(r.value)} (${G.unit || "value"}).`));
    return;
  }
  const d = D[step];
  Object.assign(box.dataset, {seat: d.seat, trick: d.trick, position: d.position, card: d.card, loss: d.loss,
                              forced: d.forced, blunder: d.blunder, decisive: step === G.decisive});
  const lead = d.position === 0 ? "leads" : `plays card ${d.position + 1}`;
  box.append(el("h3", {text: `Trick ${d.trick}: ${who(d.seat)} (${G.roles[d.seat]}) ${lead}`}));
  const flags = el("p", {class: "flags"});
  if (d.forced) flags.append(el("span", {class: "flag-forced", text: "forced: the only legal card"}));
  if (step === G.decisive) flags.append(el("span", {class: "flag-decisive", text: "the decisive mistake"}));
  if (d.blunder) flags.append(el("span", {class: "flag-blunder", text: "blunder"}));
  if (!d.forced && d.best) flags.append(el("span", {class: "flag-best", text: "a best card"}));
  if (step >= G.recorded) flags.append(el("span", {class: "flag-forced", text: "not recorded (conceded)"}));
  box.append(flags);
  const adviceBy = {};
  for (const [s, a] of Object.entries(d.advice)) (adviceBy[a.card] = adviceBy[a.card] || []).push(s);
  const body = el("tbody");
  for (const [c, v] of d.values) {
    const loss = lossOf(d, v), played = c === d.card;
    const notes = [played ? "played" : "", v === d.best_value ? "best" : "", ...(adviceBy[c] || [])];
    body.append(el("tr", {class: ["legal", played ? "played" : "", played && d.blunder ? "blunder" : ""].join(" "),
                          "data-card": c, "data-value": v, "data-loss": loss, "data-played": played ? "1" : "0"},
                   el("td", {class: "c"}, card(c)), el("td", {class: "value", text: fmt(v)}),
                   el("td", {class: "loss", text: loss}),
                   el("td", {class: "note", text: notes.filter(Boolean).join(" · ")})));
  }
  box.append(el("table", {}, el("thead", {}, el("tr", {}, el("th", {text: "card"}),
                                                el("th", {class: "num", text: "value"}),
                                                el("th", {class: "num", text: "loss"}), el("th", {text: ""}))),
                body));
  box.append(el("p", {class: "now", text: `Before the card: ${fmt(d.best_value)}${wonText(G.won[step])}; `
    + `after it: ${fmt(d.played_value)}${wonText(G.won[step + 1])}. Loss of ${d.card}: ${d.loss}.`}));
  for (const [s, a] of Object.entries(d.advice))
    box.append(el("p", {class: "advice", "data-strategy": s, "data-card": a.card, "data-loss": a.loss,
                        text: `${s} would have played ${a.card} (loss ${a.loss})`
                          + (a.card === d.card ? ", the card played" : "")}));
}

// -------------------------------------------------------------------------------------------- the curve
const W = 960, H = 240, L = 46, R = 12, T = 12, B = 30;  // the curve's box (its viewBox) and margins
const x = (k) => L + (W - L - R) * k / Math.max(N, 1);

function curve() {
  const box = $("curve");
  box.replaceChildren();
  if (RAMSCH) {  // nobody wins or loses by these values: say what the lines are instead
    document.querySelector("#curve-box h2").textContent = "Each player's value after his cards";
    const names = [0, 1, 2, 3].map((s) => el("span", {class: `seat-key s${s}`, text: who(s)}));
    document.querySelector("#curve-box .legend").replaceChildren("One line per player (", names[0], ", ", names[1],
      ", ", names[2], ", ", names[3], "): his own final card points if he and the other three play on best from "
      + "there, all three against him (the most they can push on him); a red ring: after a blunder; the blue line: "
      + "the card shown.");
  }
  const vs = G.values;
  let lo = Math.min(...vs), hi = Math.max(...vs);
  if (POINTS) { lo = 0; hi = 120; } else if (G.objective === "win") { lo = 0; hi = 1; }
  if (G.threshold !== null) { lo = Math.min(lo, G.threshold); hi = Math.max(hi, G.threshold); }
  if (hi === lo) { hi += 1; lo -= 1; }
  const pad = (hi - lo) * 0.06;
  lo -= pad; hi += pad;
  const y = (v) => T + (H - T - B) * (hi - v) / (hi - lo);
  if (G.threshold !== null) {
    box.append(svg("rect", {class: "band-won", x: L, y: T, width: W - L - R, height: y(G.threshold) - T}),
               svg("rect", {class: "band-lost", x: L, y: y(G.threshold), width: W - L - R,
                            height: H - B - y(G.threshold)}),
               svg("line", {class: "thr", x1: L, x2: W - R, y1: y(G.threshold), y2: y(G.threshold)}),
               svg("text", {class: "axis", x: L + 4, y: y(G.threshold) - 4}, "declaring side wins above"));
  }
  for (let t = 0; t <= N; t += 4) {
    box.append(svg("line", {class: "grid", x1: x(t), x2: x(t), y1: T, y2: H - B}));
    if (t < N) box.append(svg("text", {class: "axis", x: (x(t) + x(Math.min(t + 4, N))) / 2, y: H - B + 14,
                                       "text-anchor": "middle"}, `T${t / 4 + 1}`));
  }
  const ticks = POINTS ? [0, 30, 60, 90, 120] : G.objective === "win" ? [0, 1]
    : [Math.min(...vs), 0, Math.max(...vs)].filter((v, i, a) => a.indexOf(v) === i);
  for (const v of ticks)
    box.append(svg("text", {class: "axis", x: L - 6, y: y(v) + 4, "text-anchor": "end"}, fmt(v)));
  if (RAMSCH) {  // each value is its mover's own: one line per seat, through the points after its cards
    box.append(svg("text", {class: "axis", x: L, y: H - 4},
                   "each player's own card points (double dummy, the other three against him), after his cards"));
    for (let s = 0; s < 4; s++) {
      const ks = [];
      for (let k = 1; k <= N; k++) if (D[k - 1].seat === s) ks.push(k);
      box.append(svg("polyline", {class: `line seat-line s${s}`, "data-seat": s,
                                  points: ks.map((k) => `${x(k)},${y(vs[k])}`).join(" ")}));
    }
  } else {
    box.append(svg("text", {class: "axis", x: L, y: H - 4},
                   `${G.unit || "value"} (double dummy), after each card`));
    box.append(svg("polyline", {class: "line", points: vs.map((v, k) => `${x(k)},${y(v)}`).join(" ")}));
  }
  box.append(svg("line", {class: "cursor", id: "cursor", x1: x(step), x2: x(step), y1: T, y2: H - B}));
  vs.forEach((v, k) => {
    const d = k > 0 ? D[k - 1] : null;  // the card that led to point k
    if (RAMSCH && !d) return;  // before the first card: the leader's bound only, not a point of his line
    const cls = ["pt", G.won[k] === null ? "unknown" : G.won[k] ? "won" : "lost", RAMSCH ? `s${d.seat}` : "",
                 d && d.blunder ? "blunder" : "",
                 k - 1 === G.decisive ? "decisive" : ""].filter(Boolean).join(" ");
    const dot = svg("circle", {class: cls, cx: x(k), cy: y(v), r: d && d.blunder ? 5 : 3.5, "data-k": k});
    dot.append(svg("title", {}, (d ? `after ${d.card} (${who(d.seat)}, loss ${d.loss})` : "before the first card")
                               + `: ${fmt(v)}`));
    dot.addEventListener("click", () => go(Math.min(k, N)));
    box.append(dot);
    if (k - 1 === G.decisive)
      box.append(svg("text", {class: "mark", x: x(k) + 6, y: y(v) - 6}, "decisive"));
  });
}

// -------------------------------------------------------------------------------------------- the moves
function moves() {
  const tab = $("moves");
  tab.replaceChildren();
  tab.append(el("thead", {}, el("tr", {}, el("th", {text: "trick"}),
    ...[0, 1, 2, 3].map((s) => el("th", {text: `${who(s)} (${G.roles[s]})`})),
    el("th", {text: "taken by"}), el("th", {text: "pts"}),
    el("th", {text: RAMSCH ? "points by seat" : BETTEL ? "declarer's tricks" : "declaring side"}))));
  const body = el("tbody");
  G.tricks.forEach((tr, t) => {
    const cells = [null, null, null, null];
    tr.cards.forEach((c, p) => {
      const i = 4 * t + p, d = D[i], s = (tr.leader + p) % 4;
      const cls = ["mv", p === 0 ? "lead" : "", tr.winner === s ? "wins" : "", d.blunder ? "blunder" : "",
                   i === G.decisive ? "decisive" : "", d.forced ? "forced" : ""];
      const td = el("td", {class: cls.filter(Boolean).join(" "), "data-i": i}, card(c),
                    el("small", {text: d.forced ? "forced" : d.loss ? `\u2212${d.loss}` : "\u2713"}));
      td.title = d.forced ? "forced" : `loss ${d.loss}` + (d.blunder ? ", a blunder" : "")
        + (i === G.decisive ? ", the decisive mistake" : "");
      td.addEventListener("click", () => go(i));
      cells[s] = td;
    });
    body.append(el("tr", {}, el("td", {text: String(t + 1)}), ...cells.map((c) => c || el("td", {})),
                   el("td", {text: tr.winner === undefined ? "" : who(tr.winner)}),
                   el("td", {text: tr.points === undefined ? "" : String(tr.points)}),
                   el("td", {text: tr.winner === undefined ? "" : RAMSCH ? tr.seat_points.join(" / ")
                     : String(BETTEL ? tr.declaring_tricks : tr.declaring_points)})));
  });
  tab.append(body);
}

function markMoves() {
  for (const td of document.querySelectorAll("#moves td.mv")) {
    const i = Number(td.dataset.i);
    td.classList.toggle("cur", i === step);
    td.classList.toggle("later", i > step);
  }
}

// ---------------------------------------------------------------------------------------------- stepping
function go(k) {
  step = Math.max(0, Math.min(N, k));
  seats();
  trick();
  decision();
  markMoves();
  $("cursor").setAttribute("x1", x(step));
  $("cursor").setAttribute("x2", x(step));
  $("step").textContent = step < N ? `card ${step + 1} of ${N}` : `end (${N} cards)`;
  $("step").dataset.step = step;
  $("first").disabled = $("prev").disabled = $("prev-trick").disabled = step === 0;
  $("last").disabled = $("next").disabled = $("next-trick").disabled = step === N;
  if (history.replaceState) history.replaceState(null, "", "#" + step);
}
const nextTrick = () => go(Math.min(N, 4 * Math.floor(step / 4) + 4));
const prevTrick = () => go(step % 4 ? step - step % 4 : step - 4);

$("first").onclick = () => go(0);
$("prev-trick").onclick = prevTrick;
$("prev").onclick = () => go(step - 1);
$("next").onclick = () => go(step + 1);
$("next-trick").onclick = nextTrick;
$("last").onclick = () => go(N);
document.addEventListener("keydown", (e) => {
  if (e.altKey || e.ctrlKey || e.metaKey) return;
  const keys = {ArrowRight: () => go(step + 1), ArrowLeft: () => go(step - 1), ArrowDown: nextTrick,
                PageDown: nextTrick, ArrowUp: prevTrick, PageUp: prevTrick, Home: () => go(0), End: () => go(N)};
  const f = keys[e.key];
  if (f) { e.preventDefault(); f(); }
});

header();
curve();
moves();
$("foot").append("Keys: ", el("kbd", {text: "\u2190"}), " ", el("kbd", {text: "\u2192"}), " a card, ",
                 el("kbd", {text: "\u2191"}), " ", el("kbd", {text: "\u2193"}), " a trick, ",
                 el("kbd", {text: "Home"}), " ", el("kbd", {text: "End"}),
                 ". Click a card in the tricks or a point of the curve to go there. Written by simkit view.");
const start = Number((location.hash || "#0").slice(1));
go(Number.isFinite(start) ? start : 0);
