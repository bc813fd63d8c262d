package search

import (
	"fmt"
	"sort"
	"strings"
)

// Explanation says why a hit ranks where it does, in the order the ranking
// was decided: the request's words it matches and what each adds to its
// BM25F score (Words, BM25F), what each signal then adds to the score or
// multiplies it by (Signals, Score), and the reranks that moved it after
// (Moves). Score is Hit.Score: BM25F with the signals applied in order,
// ((BM25F + add) × times ...), exactly. Hits are in Score order but where
// a Move says otherwise; each Move gives the key its rerank ordered by.
type Explanation struct {
	// Ranking is the text whose ranking found the hit: the request's, or
	// for a request of several steps, the step's (see Moves).
	Ranking string `json:"ranking"`
	// Request is how the index read Ranking; the hits of one ranking
	// share it.
	Request *Reading `json:"reading,omitempty"`
	// Words are the request's words the document matches, in the order
	// of the request's words.
	Words []WordScore `json:"words"`
	// BM25F is the sum of the Words' scores.
	BM25F float64 `json:"bm25f"`
	// Signals are the signals that moved the score, in the order they
	// apply.
	Signals []SignalScore `json:"signals,omitempty"`
	// Score is the score the signals leave: Hit.Score.
	Score float64 `json:"score"`
	// Moves are what reordered the hits after scoring, in order.
	Moves []Move `json:"moves,omitempty"`
}

// WordScore is what one word of a request adds to a document's BM25F
// score: its best index term in full, and expansionShare of the others.
type WordScore struct {
	Word   string      `json:"word"` // the request's word, stemmed
	From   string      `json:"from"` // the part of the request it comes from
	Terms  []TermScore `json:"terms"`
	Score  float64     `json:"score"`
	InName bool        `json:"in_name,omitempty"` // a term of it is a word of the document's name
}

// TermScore is one index term a request's word matches in a document.
type TermScore struct {
	Term   string   `json:"term"`
	Match  string   `json:"match"`  // how the word matches it
	Weight float64  `json:"weight"` // the word's weight times the match's
	Fields []string `json:"fields"` // the document's fields that hold it
	Score  float64  `json:"score"`  // its BM25F score at that weight
}

// SignalScore is what one signal did to a document's score.
type SignalScore struct {
	Signal string  `json:"signal"`
	Add    float64 `json:"add,omitempty"`
	Times  float64 `json:"times,omitempty"` // 0 for a signal that adds (it multiplies by 1)
	Score  float64 `json:"score"`           // the score after it
	Reason string  `json:"reason"`
}

// Move is a rerank's reordering of a ranking's hits after scoring.
type Move struct {
	Rerank string `json:"rerank"`
	// From and To are the hit's places, from 1, in the ranking before
	// and after the rerank.
	From int `json:"from"`
	To   int `json:"to"`
	// Key is what the rerank ordered by, larger first (see Reason).
	Key    float64 `json:"key"`
	Reason string  `json:"reason"`
}

// Reading is how the index read a request: its words with their weights,
// and what the signals that apply to it read off it.
type Reading struct {
	Words   []ReadWord   `json:"words"`
	Signals []ReadSignal `json:"signals"`
}

// ReadWord is one word of a request as it counts.
type ReadWord struct {
	Word     string   `json:"word"` // stemmed
	From     string   `json:"from"` // the part of the request it comes from
	Weight   float64  `json:"weight"`
	Rules    []string `json:"rules,omitempty"` // the word rules that weigh it less
	Required bool     `json:"required,omitempty"`
	Terms    int      `json:"terms"` // how many index terms it matches
}

// ReadSignal is what a signal read off a request.
type ReadSignal struct {
	Signal string `json:"signal"`
	Read   string `json:"read"`
}

// explainReading is how the ranking read its request.
func (r *ranking) explainReading(signals []activeSignal) *Reading {
	out := &Reading{Words: []ReadWord{}, Signals: []ReadSignal{}}
	for _, qt := range r.read.terms {
		w := ReadWord{Word: qt.word, From: requestParts[qt.part].name, Weight: requestParts[qt.part].weight, Required: qt.required, Terms: len(qt.matches)}
		for _, rule := range qt.rules {
			w.Rules = append(w.Rules, rule.name)
			w.Weight *= rule.weight
		}
		out.Words = append(out.Words, w)
	}
	for _, s := range signals {
		out.Signals = append(out.Signals, ReadSignal{Signal: s.name, Read: s.q.read()})
	}
	return out
}

// explain explains document d's score in the ranking: the words it
// matches, scored as scoreWord scores them, and the signals, applied as
// applySignals applies them.
func (r *ranking) explain(d int32, signals []activeSignal, reading *Reading) *Explanation {
	ix := r.ix
	e := &Explanation{Ranking: r.text, Request: reading, Words: []WordScore{}}
	for _, word := range byWord(r.active) {
		qt := r.read.terms[word[0].word]
		ws := WordScore{Word: qt.word, From: requestParts[qt.part].name}
		var best, rest float32
		for _, a := range word {
			s, fields, ok := ix.termScore(a, d)
			if !ok {
				continue
			}
			ws.InName = ws.InName || fields&(1<<fieldName) != 0
			ws.Terms = append(ws.Terms, TermScore{Term: ix.terms[a.id], Match: a.how.String(), Weight: a.weight, Fields: fields.names(), Score: s})
			if len(word) == 1 {
				ws.Score = s
				continue
			}
			if s32 := float32(s); s32 > best {
				best, rest = s32, rest+best
			} else {
				rest += s32
			}
		}
		if len(ws.Terms) == 0 {
			continue
		}
		if len(word) > 1 {
			ws.Score = float64(best) + expansionShare*float64(rest)
		}
		sort.SliceStable(ws.Terms, func(i, j int) bool { return ws.Terms[i].Score > ws.Terms[j].Score })
		e.BM25F += ws.Score
		e.Words = append(e.Words, ws)
	}
	s := e.BM25F
	for _, a := range signals {
		add, times := a.q.effect(d)
		if add == 0 && times == 1 {
			continue
		}
		s = (s + add) * times
		sig := SignalScore{Signal: a.name, Add: add, Score: s, Reason: a.q.reason(d)}
		if times != 1 {
			sig.Times = times
		}
		e.Signals = append(e.Signals, sig)
	}
	e.Score = s
	return e
}

// String is the explanation in lines of text: the BM25F score and a line
// for each word, then a line for each signal and each move.
func (e *Explanation) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "BM25F %.3f", e.BM25F)
	for _, w := range e.Words {
		fmt.Fprintf(&b, "\n  %s %+.3f", w.Word, w.Score)
		if w.From != MainWords {
			fmt.Fprintf(&b, " (%s)", w.From)
		}
		b.WriteString(":")
		for i, t := range w.Terms {
			if i > 0 {
				b.WriteString(";")
			}
			fmt.Fprintf(&b, " %s", t.Term)
			if t.Match != matchExact.String() {
				fmt.Fprintf(&b, " (%s)", t.Match)
			}
			fmt.Fprintf(&b, " ×%.2f in %s", t.Weight, strings.Join(t.Fields, ", "))
		}
	}
	for _, s := range e.Signals {
		if s.Times != 0 {
			fmt.Fprintf(&b, "\n%s ×%.2f = %.3f: %s", s.Signal, s.Times, s.Score, s.Reason)
		} else {
			fmt.Fprintf(&b, "\n%s %+.3f = %.3f: %s", s.Signal, s.Add, s.Score, s.Reason)
		}
	}
	for _, m := range e.Moves {
		fmt.Fprintf(&b, "\n%s: place %d to %d (key %.3f): %s", m.Rerank, m.From, m.To, m.Key, m.Reason)
	}
	return b.String()
}
