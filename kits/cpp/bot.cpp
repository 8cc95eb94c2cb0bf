// arena: name=cpp-kit (the name it plays under; arena submit --name overrides it)
// A Three-Handed Euchre bot in C++17 for Euchre Arena: protocol v1, one file, standard library.
//
// The arena writes one JSON object per line on stdin ("hello" first, then one "act" per
// decision); we answer one line each on stdout. std::cerr is our log. Strategy: bid with two or
// more trumps (a maker takes the dummy), always pick up, discard the lowest card, keep the most
// trumps, lead high trumps as maker, else win a trick as cheaply as we can or throw the lowest.
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

struct Json {  // a small JSON value: enough for the arena's messages
    enum Type { Null, Bool, Num, Str, Arr, Obj } type = Null;
    double num = 0;
    std::string str;
    std::vector<Json> items;
    std::map<std::string, Json> members;
    const Json& operator[](const std::string& key) const {
        static const Json none;
        auto it = members.find(key);
        return it == members.end() ? none : it->second;
    }
    std::string dump() const {
        if (type == Str) return "\"" + str + "\"";
        std::string out = "[";
        for (size_t i = 0; i < items.size(); i++) out += (i ? "," : "") + items[i].dump();
        return out + "]";
    }
};

struct Parser {
    const std::string& s;
    size_t i = 0;
    void ws() { while (i < s.size() && isspace((unsigned char)s[i])) i++; }
    std::string text() {
        std::string out;
        for (i++; i < s.size() && s[i] != '"'; i++) {
            if (s[i] == '\\') {
                char c = s[++i];
                if (c == 'u') { i += 4; out += '?'; }
                else out += c == 'n' ? '\n' : c == 't' ? '\t' : c;
            } else out += s[i];
        }
        i++;
        return out;
    }
    Json value() {
        ws();
        Json j;
        char c = i < s.size() ? s[i] : 0;
        if (c == '{' || c == '[') {
            j.type = c == '{' ? Json::Obj : Json::Arr;
            for (i++, ws(); i < s.size() && s[i] != (c == '{' ? '}' : ']'); ws()) {
                if (c == '{') {
                    ws();
                    std::string key = text();
                    ws();
                    i++;  // ':'
                    j.members[key] = value();
                } else {
                    j.items.push_back(value());
                }
                ws();
                if (s[i] == ',') i++;
            }
            i++;
        } else if (c == '"') {
            j.type = Json::Str;
            j.str = text();
        } else if (c == 't' || c == 'f') {
            j.type = Json::Bool;
            j.num = c == 't';
            i += c == 't' ? 4 : 5;
        } else if (c == 'n') {
            i += 4;
        } else {
            j.type = Json::Num;
            size_t used = 0;
            j.num = std::stod(s.substr(i, 32), &used);
            i += used;
        }
        return j;
    }
};

static const std::string RANKS = "789TJQKA";

static char partner(char s) { return s == 'C' ? 'S' : s == 'S' ? 'C' : s == 'D' ? 'H' : 'D'; }
static char suitOf(const std::string& c, char t) {
    if (c == "JK") return t;
    if (t && c[0] == 'J' && c[1] == partner(t)) return t;
    return c[1];
}
static int rankOf(const std::string& c) {
    auto r = RANKS.find(c[0]);
    return r == std::string::npos ? 0 : (int)r;
}
static int power(const std::string& c, char t, char led) {
    char s = suitOf(c, t);
    if (t && s == t) {
        if (c == "JK") return 300;
        if (c[0] == 'J') return c[1] == t ? 200 : 190;
        return 100 + rankOf(c);
    }
    return (s == led ? 50 : 0) + rankOf(c);
}
static int trumps(const Json& hand, char t) {
    int n = 0;
    for (auto& c : hand.items) n += suitOf(c.str, t) == t;
    return n;
}

static const Json& decide(const Json& obs) {
    const std::string phase = obs["phase"].str;
    const Json& legal = obs["legal"];
    const Json& hand = obs["hand"];
    char t = obs["trump"].str.empty() ? 0 : obs["trump"].str[0];
    int seat = (int)obs["seat"].num;
    auto find = [&](const std::string& a) -> const Json* {
        for (auto& x : legal.items) if (x.str == a) return &x;
        return nullptr;
    };
    auto either = [&](const std::string& a) -> const Json& {
        const Json* x = find(a);
        return x ? *x : legal.items[0];
    };
    if (phase == "bid1") {
        int n = trumps(hand, obs["upcard"].str[1]) + ((int)obs["dealer"].num == seat);
        if (n >= 2 && find("order")) return *find("order");
        return either("pass");
    }
    if (phase == "pickup") return either("pickup");
    if (phase == "alone") return either("pass");
    if (phase == "joker_trump") return legal.items[0];
    if (phase == "bid2") {
        const Json* pick = nullptr;
        int most = -1;
        for (auto& a : legal.items)
            if (a.str != "pass" && trumps(hand, a.str[0]) > most) most = trumps(hand, a.str[0]), pick = &a;
        if (pick && (most >= 2 || !find("pass"))) return *pick;
        return either("pass");
    }
    const Json* best = &legal.items[0];
    if (phase == "discard") {
        int low = 1 << 30;
        for (auto& a : legal.items)
            if (power(a.str, t, a.str[1]) < low) low = power(a.str, t, a.str[1]), best = &a;
        return *best;
    }
    if (phase == "keep") {
        double top = -1;
        for (auto& k : legal.items) {
            double score = 0;
            for (auto& c : k.items) {
                if (suitOf(c.str, t) == t) score += 3 + power(c.str, t, 0) / 100.0;
                else score += c.str[0] == 'A' ? 1.5 : c.str[0] == 'K' ? 0.5 : 0;
            }
            if (score > top) top = score, best = &k;
        }
        return *best;
    }
    const Json& trick = obs["trick"];
    if (trick.items.empty()) {
        bool maker = obs["maker"].type == Json::Num && (int)obs["maker"].num == seat;
        int top = -1;
        for (auto& a : legal.items) {
            bool trump = suitOf(a.str, t) == t;
            int v = maker ? (trump ? power(a.str, t, t) : -1) : (trump ? -1 : power(a.str, t, a.str[1]));
            if (v > top) top = v, best = &a;
        }
        if (top < 0)
            for (auto& a : legal.items)
                if (power(a.str, t, suitOf(a.str, t)) > top) top = power(a.str, t, suitOf(a.str, t)), best = &a;
        return *best;
    }
    char led = suitOf(trick.items[0].items[1].str, t);
    int high = -1;
    for (auto& p : trick.items) high = std::max(high, power(p.items[1].str, t, led));
    const Json* win = nullptr;
    int winV = 1 << 30, lowV = 1 << 30;
    for (auto& a : legal.items) {
        int v = power(a.str, t, led);
        if (v > high && v < winV) winV = v, win = &a;
        if (v * 10 + rankOf(a.str) < lowV) lowV = v * 10 + rankOf(a.str), best = &a;
    }
    return win ? *win : *best;
}

int main() {
    std::ios::sync_with_stdio(false);
    std::string line;
    while (std::getline(std::cin, line)) {
        Parser parser{line};
        Json msg = parser.value();
        if (msg["type"].str == "hello") {
            std::cout << "{\"protocol\": 1, \"name\": \"cpp-kit\"}\n";
        } else if (msg["type"].str == "act") {
            std::cout << "{\"id\": " << (long)msg["id"].num
                      << ", \"action\": " << decide(msg["obs"]).dump() << "}\n";
        }
        std::cout.flush();
    }
    return 0;
}
