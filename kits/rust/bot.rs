// arena: name=rust-kit (the name it plays under; arena submit --name overrides it)
// A Three-Handed Euchre bot in Rust for Euchre Arena: protocol v1, one file, std only
// (builds with rustc 1.63: `rustc --edition 2021 bot.rs`).
//
// The arena writes one JSON object per line on stdin ("hello" first, then one "act" per
// decision); we answer one line each on stdout. eprintln! is our log. Strategy: bid with two or
// more trumps (a maker takes the dummy), always pick up, discard the lowest card, keep the most
// trumps, lead high trumps as maker, else win a trick as cheaply as we can or throw the lowest.
use std::collections::HashMap;
use std::io::{self, BufRead, Write};

#[derive(Clone, Debug)]
enum Json {
    Null,
    Bool(bool),
    Num(f64),
    Str(String),
    Arr(Vec<Json>),
    Obj(HashMap<String, Json>),
}

static NONE: Json = Json::Null;

impl Json {
    fn get(&self, key: &str) -> &Json {
        match self {
            Json::Obj(m) => m.get(key).unwrap_or(&NONE),
            _ => &NONE,
        }
    }
    fn s(&self) -> &str {
        match self {
            Json::Str(s) => s,
            _ => "",
        }
    }
    fn n(&self) -> i64 {
        match self {
            Json::Num(x) => *x as i64,
            _ => -1,
        }
    }
    fn items(&self) -> &[Json] {
        match self {
            Json::Arr(v) => v,
            _ => &[],
        }
    }
    fn dump(&self) -> String {
        match self {
            Json::Str(s) => format!("\"{}\"", s),
            Json::Arr(v) => format!("[{}]", v.iter().map(|x| x.dump()).collect::<Vec<_>>().join(",")),
            _ => "null".to_string(),
        }
    }
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
}

impl<'a> Parser<'a> {
    fn ws(&mut self) {
        while self.i < self.s.len() && (self.s[self.i] as char).is_whitespace() {
            self.i += 1;
        }
    }
    fn peek(&self) -> u8 {
        if self.i < self.s.len() { self.s[self.i] } else { 0 }
    }
    fn text(&mut self) -> String {
        let mut out = Vec::new();
        self.i += 1;
        while self.i < self.s.len() && self.s[self.i] != b'"' {
            let mut c = self.s[self.i];
            if c == b'\\' {
                self.i += 1;
                c = self.s[self.i];
                if c == b'u' {
                    self.i += 4;
                    c = b'?';
                } else if c == b'n' {
                    c = b'\n';
                }
            }
            out.push(c);
            self.i += 1;
        }
        self.i += 1;
        String::from_utf8_lossy(&out).into_owned()
    }
    fn value(&mut self) -> Json {
        self.ws();
        match self.peek() {
            b'{' => {
                let mut m = HashMap::new();
                self.i += 1;
                self.ws();
                while self.peek() != b'}' && self.peek() != 0 {
                    self.ws();
                    let key = self.text();
                    self.ws();
                    self.i += 1;
                    let v = self.value();
                    m.insert(key, v);
                    self.ws();
                    if self.peek() == b',' {
                        self.i += 1;
                    }
                    self.ws();
                }
                self.i += 1;
                Json::Obj(m)
            }
            b'[' => {
                let mut v = Vec::new();
                self.i += 1;
                self.ws();
                while self.peek() != b']' && self.peek() != 0 {
                    v.push(self.value());
                    self.ws();
                    if self.peek() == b',' {
                        self.i += 1;
                    }
                    self.ws();
                }
                self.i += 1;
                Json::Arr(v)
            }
            b'"' => Json::Str(self.text()),
            b't' => {
                self.i += 4;
                Json::Bool(true)
            }
            b'f' => {
                self.i += 5;
                Json::Bool(false)
            }
            b'n' => {
                self.i += 4;
                Json::Null
            }
            _ => {
                let start = self.i;
                while self.i < self.s.len() && b"+-0123456789.eE".contains(&self.s[self.i]) {
                    self.i += 1;
                }
                let text = std::str::from_utf8(&self.s[start..self.i]).unwrap_or("0");
                Json::Num(text.parse().unwrap_or(0.0))
            }
        }
    }
}

const RANKS: &str = "789TJQKA";

fn partner(s: u8) -> u8 {
    match s {
        b'C' => b'S',
        b'S' => b'C',
        b'D' => b'H',
        _ => b'D',
    }
}

fn suit_of(c: &str, t: u8) -> u8 {
    let b = c.as_bytes();
    if c == "JK" {
        return t;
    }
    if t != 0 && b[0] == b'J' && b[1] == partner(t) {
        return t;
    }
    b[1]
}

fn rank(c: &str) -> i32 {
    RANKS.find(c.as_bytes()[0] as char).map(|r| r as i32).unwrap_or(0)
}

fn power(c: &str, t: u8, led: u8) -> i32 {
    let s = suit_of(c, t);
    if t != 0 && s == t {
        if c == "JK" {
            return 300;
        }
        if c.as_bytes()[0] == b'J' {
            return if c.as_bytes()[1] == t { 200 } else { 190 };
        }
        return 100 + rank(c);
    }
    (if s == led { 50 } else { 0 }) + rank(c)
}

fn trumps(hand: &Json, t: u8) -> i32 {
    hand.items().iter().filter(|c| suit_of(c.s(), t) == t).count() as i32
}

fn decide(obs: &Json) -> Json {
    let phase = obs.get("phase").s();
    let legal = obs.get("legal").items();
    let hand = obs.get("hand");
    let t = obs.get("trump").s().bytes().next().unwrap_or(0);
    let seat = obs.get("seat").n();
    let has = |a: &str| legal.iter().any(|x| x.s() == a);
    let either = |a: &str| if has(a) { Json::Str(a.to_string()) } else { legal[0].clone() };
    match phase {
        "bid1" => {
            let up = obs.get("upcard").s().as_bytes()[1];
            let n = trumps(hand, up) + if obs.get("dealer").n() == seat { 1 } else { 0 };
            if n >= 2 && has("order") { Json::Str("order".into()) } else { either("pass") }
        }
        "pickup" => either("pickup"),
        "alone" => either("pass"),
        "joker_trump" => legal[0].clone(),
        "bid2" => {
            let mut pick: Option<&Json> = None;
            let mut most = -1;
            for a in legal {
                if a.s() != "pass" && trumps(hand, a.s().as_bytes()[0]) > most {
                    most = trumps(hand, a.s().as_bytes()[0]);
                    pick = Some(a);
                }
            }
            match pick {
                Some(p) if most >= 2 || !has("pass") => p.clone(),
                _ => either("pass"),
            }
        }
        "discard" => legal
            .iter()
            .min_by_key(|a| power(a.s(), t, a.s().as_bytes()[1]))
            .unwrap()
            .clone(),
        "keep" => {
            let score = |k: &Json| -> i32 {
                k.items()
                    .iter()
                    .map(|c| {
                        let c = c.s();
                        if suit_of(c, t) == t {
                            300 + power(c, t, 0)
                        } else if c.starts_with('A') {
                            150
                        } else if c.starts_with('K') {
                            50
                        } else {
                            0
                        }
                    })
                    .sum()
            };
            let mut best = &legal[0];
            for k in legal {
                if score(k) > score(best) {
                    best = k;
                }
            }
            best.clone()
        }
        _ => play(obs, legal, t, seat),
    }
}

fn play(obs: &Json, legal: &[Json], t: u8, seat: i64) -> Json {
    let trick = obs.get("trick").items();
    if trick.is_empty() {
        let maker = obs.get("maker").n() == seat;
        let mut best = &legal[0];
        let mut top = -1;
        for a in legal {
            let c = a.s();
            let trump = suit_of(c, t) == t;
            let v = match (maker, trump) {
                (true, true) => power(c, t, t),
                (false, false) => power(c, t, suit_of(c, t)),
                _ => -1,
            };
            if v > top {
                top = v;
                best = a;
            }
        }
        if top < 0 {
            for a in legal {
                let v = power(a.s(), t, suit_of(a.s(), t));
                if v > top {
                    top = v;
                    best = a;
                }
            }
        }
        return best.clone();
    }
    let led = suit_of(trick[0].items()[1].s(), t);
    let high = trick.iter().map(|p| power(p.items()[1].s(), t, led)).max().unwrap_or(-1);
    let win = legal
        .iter()
        .filter(|a| power(a.s(), t, led) > high)
        .min_by_key(|a| power(a.s(), t, led));
    match win {
        Some(w) => w.clone(),
        None => legal.iter().min_by_key(|a| power(a.s(), t, led) * 10 + rank(a.s())).unwrap().clone(),
    }
}

fn main() {
    let stdin = io::stdin();
    let stdout = io::stdout();
    let mut out = stdout.lock();
    for line in stdin.lock().lines() {
        let line = match line {
            Ok(l) => l,
            Err(_) => break,
        };
        let msg = Parser { s: line.as_bytes(), i: 0 }.value();
        match msg.get("type").s() {
            "hello" => {
                let _ = writeln!(out, "{{\"protocol\": 1, \"name\": \"rust-kit\"}}");
            }
            "act" => {
                let action = decide(msg.get("obs"));
                let _ = writeln!(out, "{{\"id\": {}, \"action\": {}}}", msg.get("id").n(), action.dump());
            }
            _ => {}
        }
        let _ = out.flush();
    }
}
