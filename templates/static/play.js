// Euchre Arena: playing the bots in the browser (/play and /games/ID). Every byte from the
// server is shown with textContent, never as markup: bot names come from their authors.
(function () {
  "use strict";

  var SUITS = { C: "\u2663", D: "\u2666", H: "\u2665", S: "\u2660" };
  var SUIT_NAMES = { C: "clubs", D: "diamonds", H: "hearts", S: "spades" };
  var WORDS = {
    pass: "Pass", order: "Order it up", pickup: "Pick it up", decline: "Leave it",
    alone: "Go alone"
  };

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function clear(node) {
    while (node.firstChild) node.removeChild(node.firstChild);
  }

  function cardText(card) {
    if (card === "JK") return "Joker";
    var rank = card.slice(0, -1) === "T" ? "10" : card.slice(0, -1);
    return rank + (SUITS[card.slice(-1)] || card.slice(-1));
  }

  function cardNode(tag, card) {
    var suit = card.slice(-1);
    var node = el(tag, "play-card" + (suit === "H" || suit === "D" ? " red" : ""), cardText(card));
    node.setAttribute("data-card", card);
    node.setAttribute("aria-label", card === "JK" ? "the Joker" : cardText(card));
    return node;
  }

  function actionText(action, phase) {
    if (SUIT_NAMES[action]) return "Name " + SUIT_NAMES[action];
    if (phase === "alone" && action === "pass") return "Not alone";
    return WORDS[action] || String(action);
  }

  // --- the play page: start a game --------------------------------------------------------

  function startForm(form) {
    var error = document.getElementById("play-error");
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var seat = form.querySelector("input[name=seat]:checked");
      var body = {
        opponents: [form.elements.opponent1.value, form.elements.opponent2.value],
        seat: seat ? parseInt(seat.value, 10) : 0,
        name: form.elements.name.value
      };
      var button = document.getElementById("start");
      button.disabled = true;
      error.hidden = true;
      fetch("/api/games", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(body),
        credentials: "same-origin"
      }).then(function (r) {
        return r.json().then(function (data) { return { ok: r.ok, data: data }; });
      }).then(function (res) {
        if (!res.ok) throw new Error(res.data.error || "the game could not start");
        sessionStorage.setItem("arena-game-" + res.data.id, res.data.secret);
        window.location.assign(res.data.url);
      }).catch(function (e) {
        error.textContent = e.message;
        error.hidden = false;
        button.disabled = false;
      });
    });
  }

  // --- the game page ----------------------------------------------------------------------

  function Game(root) {
    this.id = root.getAttribute("data-game");
    this.secret = sessionStorage.getItem("arena-game-" + this.id);
    this.version = -1;
    this.state = null;
    this.picked = [];
    this.busy = false;
  }

  Game.prototype.call = function (method, path, body) {
    var headers = { "X-Arena-Game": this.secret };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    return fetch(path, {
      method: method, headers: headers, credentials: "same-origin", cache: "no-store",
      body: body === undefined ? undefined : JSON.stringify(body)
    }).then(function (r) {
      return r.json().then(function (data) {
        if (!r.ok) throw new Error(data.error || "the server refused");
        return data;
      });
    });
  };

  Game.prototype.poll = function () {
    var self = this;
    this.call("GET", "/api/games/" + this.id + "?after=" + this.version).then(function (s) {
      self.show(s);
      if (!s.finished) self.poll();
    }).catch(function (e) {
      status("The game is not reachable: " + e.message);
      setTimeout(function () { self.poll(); }, 3000);
    });
  };

  Game.prototype.answer = function (action) {
    var self = this;
    var turn = this.state && this.state.turn;
    if (!turn || this.busy) return;
    this.busy = true;
    this.call("POST", "/api/games/" + this.id + "/answer", { action: action, turn: turn.turn })
      .then(function (s) { self.busy = false; self.picked = []; self.show(s); })
      .catch(function (e) { self.busy = false; status(e.message); });
  };

  function status(text) {
    document.getElementById("status").textContent = text;
  }

  function nameOf(s, seat) {
    return seat === s.seat ? "You" : s.names[seat];
  }

  Game.prototype.show = function (s) {
    if (s.version <= this.version) return;  // nothing new (an answer's reply, then the poll's)
    this.version = s.version;
    this.state = s;
    showTable(s);
    this.showHand(s);
    this.showTurn(s);
    showResult(s);
  };

  function showTable(s) {
    var scores = document.getElementById("scores");
    clear(scores);
    for (var seat = 0; seat < 3; seat++) {
      var li = el("li", "seat" + seat + (seat === s.seat ? " you" : ""));
      li.appendChild(el("span", "play-name", nameOf(s, seat)));
      li.appendChild(el("span", "play-score", s.scores ? s.scores[seat] : 0));
      if (s.dealer === seat) li.appendChild(el("span", "tag", "dealer"));
      if (s.maker === seat) li.appendChild(el("span", "tag", "maker"));
      scores.appendChild(li);
    }
    var deal = document.getElementById("deal");
    clear(deal);
    if (s.upcard) {
      deal.appendChild(el("span", null, "Hand " + (s.hand_number + 1) + " \u00b7 up-card "));
      deal.appendChild(cardNode("span", s.upcard));
      if (s.trump) deal.appendChild(el("span", null, " \u00b7 trump: " + SUIT_NAMES[s.trump]));
    }
    var bids = document.getElementById("bids");
    clear(bids);
    (s.bids || []).forEach(function (b) {
      bids.appendChild(el("li", null, nameOf(s, b.seat) + ": " + actionText(b.action)));
    });
    var trick = document.getElementById("trick");
    clear(trick);
    (s.trick || []).forEach(function (play) {
      var li = el("li", null, nameOf(s, play[0]) + " ");
      li.appendChild(cardNode("span", play[1]));
      trick.appendChild(li);
    });
    var last = document.getElementById("last-trick");
    clear(last);
    if (s.tricks && s.tricks.length) {
      var t = s.tricks[s.tricks.length - 1];
      last.appendChild(el("span", null, "Last trick: "));
      t.cards.forEach(function (play, i) {
        if (i) last.appendChild(el("span", null, ", "));
        last.appendChild(el("span", null, nameOf(s, play[0]) + " "));
        last.appendChild(cardNode("span", play[1]));
      });
      last.appendChild(el("span", null, " \u2192 " + nameOf(s, t.winner)));
    }
    var won = [0, 0, 0];
    (s.tricks || []).forEach(function (t) { won[t.winner] += 1; });
    document.getElementById("tricks").textContent = s.tricks && s.tricks.length
      ? "Tricks this hand: " + [0, 1, 2].map(function (i) { return nameOf(s, i) + " " + won[i]; }).join(", ")
      : "";
    var history = document.getElementById("history");
    clear(history);
    (s.history || []).slice(-3).forEach(function (h, i, all) {
      var n = (s.history.length - all.length) + i + 1;
      var text = h.maker === null || h.maker === undefined
        ? "Hand " + n + ": everybody passed"
        : "Hand " + n + ": " + nameOf(s, h.maker) + " made " + SUIT_NAMES[h.trump] +
          ", points " + [0, 1, 2].map(function (k) { return nameOf(s, k) + " +" + h.points[k]; }).join(", ");
      history.appendChild(el("li", null, text));
    });
  }

  Game.prototype.showHand = function (s) {
    var self = this;
    var turn = s.turn;
    var keep = turn && turn.phase === "keep";
    var playable = turn && (turn.phase === "play" || turn.phase === "discard") ? turn.legal : [];
    function fill(box, cards) {
      clear(box);
      (cards || []).forEach(function (card) {
        var b = cardNode("button", card);
        b.type = "button";
        var usable = keep || playable.indexOf(card) >= 0;
        b.disabled = !usable;
        if (usable) b.classList.add("playable");
        if (self.picked.indexOf(card) >= 0) b.classList.add("picked");
        b.addEventListener("click", function () { self.tap(card); });
        box.appendChild(b);
      });
    }
    fill(document.getElementById("hand"), s.hand);
    document.getElementById("dummy-box").hidden = !(keep && s.dummy);
    if (keep && s.dummy) fill(document.getElementById("dummy"), s.dummy);
  };

  Game.prototype.tap = function (card) {
    var turn = this.state && this.state.turn;
    if (!turn) return;
    if (turn.phase !== "keep") { this.answer(card); return; }
    var i = this.picked.indexOf(card);
    if (i >= 0) this.picked.splice(i, 1); else if (this.picked.length < 5) this.picked.push(card);
    this.showHand(this.state);
    this.showTurn(this.state);
  };

  Game.prototype.showTurn = function (s) {
    var self = this;
    var box = document.getElementById("turn");
    var choices = document.getElementById("choices");
    var note = document.getElementById("turn-note");
    clear(choices);
    note.textContent = "";
    if (!s.turn) {
      box.hidden = true;
      if (!s.finished) status("The bots are playing\u2026");
      return;
    }
    box.hidden = false;
    status("Your turn.");
    document.getElementById("question").textContent = s.turn.question;
    var phase = s.turn.phase;
    if (phase === "play" || phase === "discard") {
      note.textContent = "Tap a highlighted card of your hand.";
    } else if (phase === "keep") {
      var b = el("button", "play-button", "Keep these " + self.picked.length + " of 5");
      b.type = "button";
      b.id = "keep";
      b.disabled = self.picked.length !== 5;
      b.addEventListener("click", function () { self.answer(self.picked.slice()); });
      choices.appendChild(b);
      note.textContent = "Tap five cards of your hand and the dummy.";
    } else {
      s.turn.legal.forEach(function (action) {
        var b = el("button", "play-button", actionText(action, phase));
        b.type = "button";
        b.setAttribute("data-action", action);
        b.addEventListener("click", function () { self.answer(action); });
        choices.appendChild(b);
      });
    }
  };

  function showResult(s) {
    if (!s.finished) return;
    var box = document.getElementById("result");
    box.hidden = false;
    document.getElementById("leave").hidden = true;
    if (!s.result) {
      status("The game ended without a result: " + (s.error || "unknown error"));
      return;
    }
    var r = s.result;
    var mine = r.placements[s.seat];
    var faulted = r.faults.filter(function (f) { return f.seat === s.seat; });
    status(faulted.length ? "You forfeited: " + faulted[0].message : "Match over: your place is " + mine + " of 3.");
    document.getElementById("result-text").textContent = "Final scores: " + [0, 1, 2].map(function (k) {
      return nameOf(s, k) + " " + r.scores[k] + " (place " + r.placements[k] + ")";
    }).join(", ");
    document.getElementById("replay").setAttribute("href", "/matches/" + encodeURIComponent(r.match_id) + ".html");
    document.getElementById("commitment").textContent = s.commitment;
    document.getElementById("secret").textContent = r.secret;
  }

  function startGame(root) {
    var game = new Game(root);
    if (!game.secret) {
      status("This game is not open in this browser tab: only the tab that started it can play it.");
      root.hidden = true;
      return;
    }
    document.getElementById("leave").addEventListener("click", function () {
      game.call("POST", "/api/games/" + game.id + "/leave").catch(function () {});
    });
    game.poll();
  }

  var form = document.getElementById("new-game");
  if (form) startForm(form);
  var root = document.getElementById("game");
  if (root) startGame(root);
})();
