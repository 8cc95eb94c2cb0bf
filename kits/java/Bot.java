// arena: name=java-kit (the name it plays under; arena submit --name overrides it)
// A Three-Handed Euchre bot in Java for Euchre Arena: protocol v1, one file, JDK only.
//
// The arena writes one JSON object per line on stdin ("hello" first, then one "act" per
// decision); we answer one line each on stdout. System.err is our log. Strategy: bid with two or
// more trumps (a maker takes the dummy), always pick up, discard the lowest card, keep the most
// trumps, lead high trumps as maker, else win a trick as cheaply as we can or throw the lowest.
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

public class Bot {
    // ---- a small JSON reader: objects become Map, arrays List, strings String, numbers Double
    private final String s;
    private int i;

    private Bot(String s) { this.s = s; }

    private void ws() { while (i < s.length() && Character.isWhitespace(s.charAt(i))) i++; }

    private String text() {
        StringBuilder out = new StringBuilder();
        for (i++; i < s.length() && s.charAt(i) != '"'; i++) {
            char c = s.charAt(i);
            if (c == '\\') {
                c = s.charAt(++i);
                if (c == 'u') { out.append((char) Integer.parseInt(s.substring(i + 1, i + 5), 16)); i += 4; continue; }
                c = c == 'n' ? '\n' : c == 't' ? '\t' : c;
            }
            out.append(c);
        }
        i++;
        return out.toString();
    }

    private Object value() {
        ws();
        char c = s.charAt(i);
        if (c == '{') {
            Map<String, Object> m = new HashMap<>();
            for (i++, ws(); s.charAt(i) != '}'; ws()) {
                ws();
                String key = text();
                ws();
                i++;
                m.put(key, value());
                ws();
                if (s.charAt(i) == ',') i++;
            }
            i++;
            return m;
        }
        if (c == '[') {
            List<Object> l = new ArrayList<>();
            for (i++, ws(); s.charAt(i) != ']'; ws()) {
                l.add(value());
                ws();
                if (s.charAt(i) == ',') i++;
            }
            i++;
            return l;
        }
        if (c == '"') return text();
        if (s.startsWith("true", i)) { i += 4; return true; }
        if (s.startsWith("false", i)) { i += 5; return false; }
        if (s.startsWith("null", i)) { i += 4; return null; }
        int start = i;
        while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) i++;
        return Double.parseDouble(s.substring(start, i));
    }

    static Object parse(String line) { return new Bot(line).value(); }

    static String dump(Object o) {
        if (o instanceof String) return "\"" + o + "\"";
        StringBuilder out = new StringBuilder("[");
        for (Object x : (List<?>) o) out.append(out.length() > 1 ? "," : "").append(dump(x));
        return out.append("]").toString();
    }

    // ---- cards
    static final String RANKS = "789TJQKA";

    static char partner(char s) { return s == 'C' ? 'S' : s == 'S' ? 'C' : s == 'D' ? 'H' : 'D'; }

    static char suitOf(String c, char t) {
        if (c.equals("JK")) return t;
        if (t != 0 && c.charAt(0) == 'J' && c.charAt(1) == partner(t)) return t;
        return c.charAt(1);
    }

    static int rank(String c) { return Math.max(RANKS.indexOf(c.charAt(0)), 0); }

    static int power(String c, char t, char led) {
        char s = suitOf(c, t);
        if (t != 0 && s == t) {
            if (c.equals("JK")) return 300;
            if (c.charAt(0) == 'J') return c.charAt(1) == t ? 200 : 190;
            return 100 + rank(c);
        }
        return (s == led ? 50 : 0) + rank(c);
    }

    static int trumps(List<?> hand, char t) {
        int n = 0;
        for (Object c : hand) if (suitOf((String) c, t) == t) n++;
        return n;
    }

    static int num(Object o) { return o instanceof Double ? ((Double) o).intValue() : -1; }

    @SuppressWarnings("unchecked")
    static Object decide(Map<String, Object> obs) {
        String phase = (String) obs.get("phase");
        List<Object> legal = (List<Object>) obs.get("legal");
        List<Object> hand = (List<Object>) obs.get("hand");
        char t = obs.get("trump") instanceof String ? ((String) obs.get("trump")).charAt(0) : 0;
        int seat = num(obs.get("seat"));
        Object first = legal.get(0);
        switch (phase) {
            case "bid1": {
                int n = trumps(hand, ((String) obs.get("upcard")).charAt(1)) + (num(obs.get("dealer")) == seat ? 1 : 0);
                if (n >= 2 && legal.contains("order")) return "order";
                return legal.contains("pass") ? "pass" : first;
            }
            case "pickup": return legal.contains("pickup") ? "pickup" : first;
            case "alone": return legal.contains("pass") ? "pass" : first;
            case "joker_trump": return first;
            case "bid2": {
                String pick = null;
                int most = -1;
                for (Object a : legal) {
                    String x = (String) a;
                    if (!x.equals("pass") && trumps(hand, x.charAt(0)) > most) { most = trumps(hand, x.charAt(0)); pick = x; }
                }
                if (pick != null && (most >= 2 || !legal.contains("pass"))) return pick;
                return legal.contains("pass") ? "pass" : first;
            }
            case "discard": {
                Object best = first;
                int low = Integer.MAX_VALUE;
                for (Object a : legal) {
                    String c = (String) a;
                    if (power(c, t, c.charAt(1)) < low) { low = power(c, t, c.charAt(1)); best = a; }
                }
                return best;
            }
            case "keep": {
                Object best = first;
                double top = -1;
                for (Object k : legal) {
                    double score = 0;
                    for (Object o : (List<?>) k) {
                        String c = (String) o;
                        if (suitOf(c, t) == t) score += 3 + power(c, t, (char) 0) / 100.0;
                        else score += c.charAt(0) == 'A' ? 1.5 : c.charAt(0) == 'K' ? 0.5 : 0;
                    }
                    if (score > top) { top = score; best = k; }
                }
                return best;
            }
            default: break;
        }
        List<Object> trick = (List<Object>) obs.get("trick");
        Object best = first;
        if (trick.isEmpty()) {
            boolean maker = num(obs.get("maker")) == seat;
            int top = -1;
            for (Object a : legal) {
                String c = (String) a;
                boolean trump = suitOf(c, t) == t;
                int v = maker ? (trump ? power(c, t, t) : -1) : (trump ? -1 : power(c, t, c.charAt(1)));
                if (v > top) { top = v; best = a; }
            }
            if (top < 0)
                for (Object a : legal) {
                    String c = (String) a;
                    if (power(c, t, suitOf(c, t)) > top) { top = power(c, t, suitOf(c, t)); best = a; }
                }
            return best;
        }
        char led = suitOf((String) ((List<?>) trick.get(0)).get(1), t);
        int high = -1;
        for (Object p : trick) high = Math.max(high, power((String) ((List<?>) p).get(1), t, led));
        Object win = null;
        int winV = Integer.MAX_VALUE, lowV = Integer.MAX_VALUE;
        for (Object a : legal) {
            String c = (String) a;
            int v = power(c, t, led);
            if (v > high && v < winV) { winV = v; win = a; }
            if (v * 10 + rank(c) < lowV) { lowV = v * 10 + rank(c); best = a; }
        }
        return win != null ? win : best;
    }

    @SuppressWarnings("unchecked")
    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8), 1 << 16);
        PrintStream out = new PrintStream(System.out, false, "UTF-8");
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) continue;
            Map<String, Object> msg = (Map<String, Object>) parse(line);
            Object type = msg.get("type");
            if ("hello".equals(type)) {
                out.print("{\"protocol\": 1, \"name\": \"java-kit\"}\n");
            } else if ("act".equals(type)) {
                Object action = decide((Map<String, Object>) msg.get("obs"));
                out.print("{\"id\": " + num(msg.get("id")) + ", \"action\": " + dump(action) + "}\n");
            }
            out.flush();
        }
    }
}
