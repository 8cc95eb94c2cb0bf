// arena: name=javascript-kit (the name it plays under; arena submit --name overrides it)
// A Three-Handed Euchre bot in JavaScript (Node) for Euchre Arena: protocol v1, one file, no
// packages. The arena writes one JSON object per line on stdin ("hello" first, then one "act"
// per decision); we answer one line each on stdout. console.error goes to our log.
// Strategy: bid with two or more trumps (a maker takes the dummy), always pick up, discard the
// lowest card, keep the most trumps, lead high trumps as maker, else win cheaply or throw low.
"use strict";

const RANKS = "789TJQKA";
const PARTNER = { C: "S", S: "C", D: "H", H: "D" };

function suitOf(card, trump) {
  if (card === "JK") return trump;
  if (trump && card[0] === "J" && card[1] === PARTNER[trump]) return trump;
  return card[1];
}

function power(card, trump, led) {
  const suit = suitOf(card, trump);
  if (trump && suit === trump) {
    if (card === "JK") return 300;
    if (card[0] === "J") return card[1] === trump ? 200 : 190;
    return 100 + RANKS.indexOf(card[0]);
  }
  return (suit === led ? 50 : 0) + Math.max(RANKS.indexOf(card[0]), 0);
}

const trumps = (hand, trump) => hand.filter((c) => suitOf(c, trump) === trump).length;
const best = (items, score) => items.reduce((a, b) => (score(b) > score(a) ? b : a));

function decide(obs) {
  const { phase, legal, hand, trump } = obs;
  const has = (a) => legal.includes(a);
  switch (phase) {
    case "bid1": {
      const n = trumps(hand, obs.upcard[1]) + (obs.dealer === obs.seat ? 1 : 0);
      return n >= 2 && has("order") ? "order" : has("pass") ? "pass" : legal[0];
    }
    case "pickup":
      return has("pickup") ? "pickup" : legal[0];
    case "alone":
      return has("pass") ? "pass" : legal[0];
    case "joker_trump":
      return legal[0];
    case "bid2": {
      const suits = legal.filter((a) => a !== "pass");
      if (suits.length) {
        const pick = best(suits, (s) => trumps(hand, s));
        if (trumps(hand, pick) >= 2 || !has("pass")) return pick;
      }
      return has("pass") ? "pass" : legal[0];
    }
    case "discard":
      return best(legal, (c) => -power(c, trump, c[1]));
    case "keep":
      return best(legal, (keep) =>
        keep.reduce((sum, c) => {
          if (suitOf(c, trump) === trump) return sum + 3 + power(c, trump, null) / 100;
          return sum + (c[0] === "A" ? 1.5 : c[0] === "K" ? 0.5 : 0);
        }, 0),
      );
    default: {
      // play
      const trick = obs.trick;
      if (trick.length === 0) {
        const mine = legal.filter((c) => suitOf(c, trump) === trump);
        if (mine.length && obs.maker === obs.seat) return best(mine, (c) => power(c, trump, trump));
        const side = legal.filter((c) => suitOf(c, trump) !== trump);
        const pool = side.length ? side : legal;
        return best(pool, (c) => power(c, trump, suitOf(c, trump)));
      }
      const led = suitOf(trick[0][1], trump);
      const high = Math.max(...trick.map(([, c]) => power(c, trump, led)));
      const winners = legal.filter((c) => power(c, trump, led) > high);
      if (winners.length) return best(winners, (c) => -power(c, trump, led));
      return best(legal, (c) => -(power(c, trump, led) * 10 + RANKS.indexOf(c[0])));
    }
  }
}

let buffer = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
  buffer += chunk;
  let nl;
  while ((nl = buffer.indexOf("\n")) >= 0) {
    const line = buffer.slice(0, nl);
    buffer = buffer.slice(nl + 1);
    if (!line.trim()) continue;
    const msg = JSON.parse(line);
    let out = null;
    if (msg.type === "hello") out = { protocol: 1, name: "javascript-kit" };
    else if (msg.type === "act") out = { id: msg.id, action: decide(msg.obs) };
    if (out) process.stdout.write(JSON.stringify(out) + "\n");
  }
});
process.stdin.on("end", () => process.exit(0));
