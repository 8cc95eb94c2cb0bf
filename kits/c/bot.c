/* arena: name=c-kit (the name it plays under; arena submit --name overrides it) */
/* A Three-Handed Euchre bot in C for Euchre Arena: protocol v1, one file, C library only.
 *
 * The arena writes one JSON object per line on stdin ("hello" first, then one "act" per
 * decision); we answer one line each on stdout. stderr is our log. Strategy: bid with two or
 * more trumps (a maker takes the dummy), always pick up, discard the lowest card, keep the most
 * trumps, lead high trumps as maker, else win a trick as cheaply as we can or throw the lowest.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- a small JSON reader: enough for the arena's messages ---- */
enum { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };
typedef struct J {
    int type;
    double num;
    char *str;        /* J_STR value, or the key of an object member */
    struct J *child;  /* first element / member */
    struct J *next;   /* next sibling */
    char *key;
} J;

static const char *p;

static J *jnew(int type) {
    J *j = calloc(1, sizeof *j);
    if (!j) exit(2);
    j->type = type;
    return j;
}
static void ws(void) { while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++; }
static char *jstring(void) {
    size_t cap = 16, n = 0;
    char *s = malloc(cap);
    p++; /* opening quote */
    while (*p && *p != '"') {
        char c = *p++;
        if (c == '\\') {
            c = *p++;
            if (c == 'n') c = '\n'; else if (c == 't') c = '\t';
            else if (c == 'u') { p += 4; c = '?'; }
        }
        if (n + 2 > cap) s = realloc(s, cap *= 2);
        s[n++] = c;
    }
    if (*p == '"') p++;
    s[n] = 0;
    return s;
}
static J *jparse(void) {
    ws();
    J *j;
    if (*p == '{' || *p == '[') {
        int obj = *p == '{';
        j = jnew(obj ? J_OBJ : J_ARR);
        p++;
        J **tail = &j->child;
        ws();
        while (*p && *p != (obj ? '}' : ']')) {
            char *key = NULL;
            if (obj) { ws(); key = jstring(); ws(); if (*p == ':') p++; }
            J *v = jparse();
            v->key = key;
            *tail = v;
            tail = &v->next;
            ws();
            if (*p == ',') p++;
            ws();
        }
        if (*p) p++;
    } else if (*p == '"') {
        j = jnew(J_STR);
        j->str = jstring();
    } else if (*p == 't' || *p == 'f') {
        j = jnew(J_BOOL);
        j->num = *p == 't';
        p += *p == 't' ? 4 : 5;
    } else if (*p == 'n') {
        j = jnew(J_NULL);
        p += 4;
    } else {
        j = jnew(J_NUM);
        j->num = strtod(p, (char **)&p);
    }
    return j;
}
static void jfree(J *j) {
    while (j) {
        J *next = j->next;
        jfree(j->child);
        free(j->str);
        free(j->key);
        free(j);
        j = next;
    }
}
static J *get(J *obj, const char *key) {
    for (J *m = obj ? obj->child : NULL; m; m = m->next)
        if (m->key && !strcmp(m->key, key)) return m;
    return NULL;
}
static const char EMPTY[3] = ""; /* room for a card's two characters */
static const char *str(J *j) { return j && j->type == J_STR ? j->str : EMPTY; }
static int num(J *j, int dflt) { return j && j->type == J_NUM ? (int)j->num : dflt; }

/* ---- cards ---- */
static const char *RANKS = "789TJQKA";
static char suit_char(const char *c) { return c[0] ? c[1] : 0; } /* as printed: "QD" -> 'D' */
static char partner(char s) { return s == 'C' ? 'S' : s == 'S' ? 'C' : s == 'D' ? 'H' : 'D'; }
static char suit_of(const char *c, char t) {
    if (!strcmp(c, "JK")) return t;
    if (t && c[0] == 'J' && c[1] == partner(t)) return t;
    return c[1];
}
static int rank_of(const char *c) {
    const char *r = strchr(RANKS, c[0]);
    return r && c[0] ? (int)(r - RANKS) : 0;
}
static int power(const char *c, char t, char led) {
    char s = suit_of(c, t);
    if (t && s == t) {
        if (!strcmp(c, "JK")) return 300;
        if (c[0] == 'J') return c[1] == t ? 200 : 190;
        return 100 + rank_of(c);
    }
    if (s == led) return 50 + rank_of(c);
    return rank_of(c);
}
static int trumps(J *hand, char t) {
    int n = 0;
    for (J *c = hand ? hand->child : NULL; c; c = c->next) n += suit_of(str(c), t) == t;
    return n;
}
static J *has(J *legal, const char *action) {
    for (J *a = legal->child; a; a = a->next)
        if (!strcmp(str(a), action)) return a;
    return NULL;
}

/* ---- the decision: returns the chosen element of legal ---- */
static J *decide(J *obs) {
    const char *phase = str(get(obs, "phase"));
    J *legal = get(obs, "legal"), *hand = get(obs, "hand");
    const char *trump_s = str(get(obs, "trump"));
    char t = trump_s[0];
    int seat = num(get(obs, "seat"), 0);
    J *best = legal->child;
    if (!strcmp(phase, "bid1")) {
        const char *up = str(get(obs, "upcard"));
        int n = trumps(hand, suit_char(up)) + (num(get(obs, "dealer"), -1) == seat);
        J *order = has(legal, "order");
        return n >= 2 && order ? order : has(legal, "pass") ? has(legal, "pass") : best;
    }
    if (!strcmp(phase, "pickup")) return has(legal, "pickup") ? has(legal, "pickup") : best;
    if (!strcmp(phase, "alone")) return has(legal, "pass") ? has(legal, "pass") : best;
    if (!strcmp(phase, "joker_trump")) return best;
    if (!strcmp(phase, "bid2")) {
        J *pick = NULL;
        int most = -1;
        for (J *a = legal->child; a; a = a->next) {
            if (!strcmp(str(a), "pass")) continue;
            int n = trumps(hand, str(a)[0]);
            if (n > most) most = n, pick = a;
        }
        if (pick && (most >= 2 || !has(legal, "pass"))) return pick;
        return has(legal, "pass") ? has(legal, "pass") : best;
    }
    if (!strcmp(phase, "discard")) {
        int low = 1 << 30;
        for (J *a = legal->child; a; a = a->next) {
            int v = power(str(a), t, suit_char(str(a)));
            if (v < low) low = v, best = a;
        }
        return best;
    }
    if (!strcmp(phase, "keep")) {
        double top = -1;
        for (J *k = legal->child; k; k = k->next) {
            double score = 0;
            for (J *c = k->child; c; c = c->next) {
                const char *s = str(c);
                if (suit_of(s, t) == t) score += 3 + power(s, t, 0) / 100.0;
                else if (s[0] == 'A') score += 1.5;
                else if (s[0] == 'K') score += 0.5;
            }
            if (score > top) top = score, best = k;
        }
        return best;
    }
    /* play */
    J *trick = get(obs, "trick");
    if (!trick || !trick->child) {
        int maker = num(get(obs, "maker"), -1), top = -1;
        for (J *a = legal->child; a; a = a->next) {
            const char *s = str(a);
            int is_trump = suit_of(s, t) == t;
            int v = maker == seat ? (is_trump ? power(s, t, t) : -1)
                                  : (is_trump ? -1 : power(s, t, suit_of(s, t)));
            if (v > top) top = v, best = a;
        }
        if (top >= 0) return best;
        for (J *a = legal->child; a; a = a->next) /* anything: the highest */
            if (power(str(a), t, suit_of(str(a), t)) > top)
                top = power(str(a), t, suit_of(str(a), t)), best = a;
        return best;
    }
    char led = suit_of(str(trick->child->child->next), t);
    int high = -1;
    for (J *pl = trick->child; pl; pl = pl->next) {
        int v = power(str(pl->child->next), t, led);
        if (v > high) high = v;
    }
    J *win = NULL, *low = legal->child;
    int win_v = 1 << 30, low_v = 1 << 30;
    for (J *a = legal->child; a; a = a->next) {
        int v = power(str(a), t, led);
        if (v > high && v < win_v) win_v = v, win = a;
        if (v * 10 + rank_of(str(a)) < low_v) low_v = v * 10 + rank_of(str(a)), low = a;
    }
    return win ? win : low;
}

static void put(J *j) {
    if (j->type == J_STR) printf("\"%s\"", j->str);
    else if (j->type == J_ARR) {
        putchar('[');
        for (J *c = j->child; c; c = c->next) { put(c); if (c->next) putchar(','); }
        putchar(']');
    }
}

int main(void) {
    size_t cap = 1 << 16;
    char *line = malloc(cap);
    size_t n = 0;
    int c;
    for (;;) { /* read one line of any length */
        n = 0;
        while ((c = getchar()) != EOF && c != '\n') {
            if (n + 2 > cap) line = realloc(line, cap *= 2);
            line[n++] = (char)c;
        }
        if (c == EOF && n == 0) break;
        line[n] = 0;
        p = line;
        J *msg = jparse();
        const char *type = str(get(msg, "type"));
        if (!strcmp(type, "hello")) {
            printf("{\"protocol\": 1, \"name\": \"c-kit\"}\n");
        } else if (!strcmp(type, "act")) {
            printf("{\"id\": %d, \"action\": ", num(get(msg, "id"), 0));
            put(decide(get(msg, "obs")));
            printf("}\n");
        }
        fflush(stdout);
        jfree(msg);
    }
    return 0;
}
