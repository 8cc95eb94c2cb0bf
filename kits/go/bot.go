// arena: name=go-kit (the name it plays under; arena submit --name overrides it)
// A Three-Handed Euchre bot in Go for Euchre Arena: protocol v1, one file, standard library only.
//
// The arena writes one JSON object per line on stdin ("hello" first, then one "act" per
// decision); we answer one line each on stdout. os.Stderr is our log. Strategy: bid with two or
// more trumps (a maker takes the dummy), always pick up, discard the lowest card, keep the most
// trumps, lead high trumps as maker, else win a trick as cheaply as we can or throw the lowest.
package main

import (
	"bufio"
	"encoding/json"
	"os"
	"strings"
)

type Obs struct {
	Phase  string            `json:"phase"`
	Seat   int               `json:"seat"`
	Dealer int               `json:"dealer"`
	Hand   []string          `json:"hand"`
	Upcard string            `json:"upcard"`
	Trump  string            `json:"trump"`
	Maker  *int              `json:"maker"`
	Trick  [][2]interface{}  `json:"trick"`
	Legal  []json.RawMessage `json:"legal"`
}

type Msg struct {
	Type string `json:"type"`
	ID   int    `json:"id"`
	Obs  Obs    `json:"obs"`
}

const ranks = "789TJQKA"

var partner = map[byte]byte{'C': 'S', 'S': 'C', 'D': 'H', 'H': 'D'}

func suitOf(c, trump string) string {
	if c == "JK" {
		return trump
	}
	if trump != "" && c[0] == 'J' && c[1] == partner[trump[0]] {
		return trump
	}
	return c[1:2]
}

func power(c, trump, led string) int {
	s := suitOf(c, trump)
	if trump != "" && s == trump {
		if c == "JK" {
			return 300
		}
		if c[0] == 'J' {
			if c[1:2] == trump {
				return 200
			}
			return 190
		}
		return 100 + strings.IndexByte(ranks, c[0])
	}
	r := strings.IndexByte(ranks, c[0])
	if r < 0 {
		r = 0
	}
	if s == led {
		return 50 + r
	}
	return r
}

func trumps(hand []string, trump string) int {
	n := 0
	for _, c := range hand {
		if suitOf(c, trump) == trump {
			n++
		}
	}
	return n
}

func str(raw json.RawMessage) string {
	var s string
	json.Unmarshal(raw, &s)
	return s
}

func decide(o *Obs) json.RawMessage {
	legal := make([]string, len(o.Legal))
	index := map[string]int{}
	for i, raw := range o.Legal {
		legal[i] = str(raw)
		index[legal[i]] = i
	}
	pick := func(a string) (json.RawMessage, bool) {
		i, ok := index[a]
		if !ok {
			return nil, false
		}
		return o.Legal[i], true
	}
	first := o.Legal[0]
	or := func(a string) json.RawMessage {
		if r, ok := pick(a); ok {
			return r
		}
		return first
	}
	t := o.Trump
	switch o.Phase {
	case "bid1":
		n := trumps(o.Hand, o.Upcard[1:2])
		if o.Dealer == o.Seat {
			n++
		}
		if r, ok := pick("order"); ok && n >= 2 {
			return r
		}
		return or("pass")
	case "pickup":
		return or("pickup")
	case "alone":
		return or("pass")
	case "joker_trump":
		return first
	case "bid2":
		best, most := "", -1
		for _, s := range legal {
			if s != "pass" && trumps(o.Hand, s) > most {
				best, most = s, trumps(o.Hand, s)
			}
		}
		_, canPass := index["pass"]
		if best != "" && (most >= 2 || !canPass) {
			return or(best)
		}
		return or("pass")
	case "discard":
		best, low := 0, 1<<30
		for i, c := range legal {
			if v := power(c, t, c[1:2]); v < low {
				best, low = i, v
			}
		}
		return o.Legal[best]
	case "keep":
		best, top := 0, -1.0
		for i, raw := range o.Legal {
			var keep []string
			json.Unmarshal(raw, &keep)
			score := 0.0
			for _, c := range keep {
				if suitOf(c, t) == t {
					score += 3 + float64(power(c, t, ""))/100
				} else if c[0] == 'A' {
					score += 1.5
				} else if c[0] == 'K' {
					score += 0.5
				}
			}
			if score > top {
				best, top = i, score
			}
		}
		return o.Legal[best]
	}
	// play
	if len(o.Trick) == 0 {
		maker := o.Maker != nil && *o.Maker == o.Seat
		best, top := -1, -1
		for i, c := range legal {
			trump := suitOf(c, t) == t
			v := -1
			if maker && trump {
				v = power(c, t, t)
			} else if !maker && !trump {
				v = power(c, t, suitOf(c, t))
			}
			if v > top {
				best, top = i, v
			}
		}
		if best < 0 {
			for i, c := range legal {
				if v := power(c, t, suitOf(c, t)); v > top {
					best, top = i, v
				}
			}
		}
		return o.Legal[best]
	}
	led := suitOf(o.Trick[0][1].(string), t)
	high := -1
	for _, p := range o.Trick {
		if v := power(p[1].(string), t, led); v > high {
			high = v
		}
	}
	win, winV, low, lowV := -1, 1<<30, 0, 1<<30
	for i, c := range legal {
		v := power(c, t, led)
		if v > high && v < winV {
			win, winV = i, v
		}
		if w := v*10 + strings.IndexByte(ranks, c[0]); w < lowV {
			low, lowV = i, w
		}
	}
	if win >= 0 {
		return o.Legal[win]
	}
	return o.Legal[low]
}

func main() {
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	out := bufio.NewWriter(os.Stdout)
	for {
		line, err := in.ReadBytes('\n')
		if len(line) > 0 {
			var m Msg
			if json.Unmarshal(line, &m) == nil {
				switch m.Type {
				case "hello":
					out.WriteString(`{"protocol": 1, "name": "go-kit"}` + "\n")
				case "act":
					answer, _ := json.Marshal(map[string]interface{}{"id": m.ID, "action": decide(&m.Obs)})
					out.Write(append(answer, '\n'))
				}
				out.Flush()
			}
		}
		if err != nil {
			return
		}
	}
}
