package search

import (
	"fmt"
	"strings"
)

// Doing and undoing. Tools that change something often come in opposite
// pairs: add and delete, start and stop, protect and unprotect. Both of a
// pair share the words of their object, so a request that begins with a
// verb of one kind ("put 'Q3 Results' in the title placeholder", "stop
// recording my browser actions") also matches the tool that undoes what
// it asks (clear_placeholders_from_slides, start_codegen_session),
// sometimes better. The first verb of a request
// says which kind it asks for (requestEffect), the first verb of a tool's
// name which kind the tool is (toolEffect); a tool of the opposite kind
// keeps 1-oppositePenalty of its score, and a tool that undoes as an
// undoing request asks gains undoingBonus. A request that changes what is
// there ("change the footnotes of thesis.docx", "rename report.docx", "set
// the deck's author to Jane Doe") ranks the tools that make a new one
// (add_footnote_to_document, create_presentation_from_templates) so too,
// and those that remove one ("switch the concise variation to gpt-4o" is
// no request to delete it).
// A request or tool whose verb is of none of these kinds, or that reads,
// ranks as before.
// How it was chosen: docs/search.md, "The tuned values".
const oppositePenalty = 0.4

// undoingBonus grows the score of a tool that removes, clears or stops
// something (its name's first verb undoes, see verbEffect) for a request
// that asks to ("remove slide 4 from deck.pptx" wants delete_slide, not
// manage_slide_transitions, whose description says "remove"). Only for
// undoing: the verbs that remove are few and tools are named for them,
// while those that make (add, create, write, run, open) name tools of
// every kind (docs/search.md has the measurements).
const undoingBonus = 0.1

// effect is whether a tool, or a request, makes or starts something
// (effectDo), removes or stops something (effectUndo), or neither; or
// whether a request changes something (effectModify).
type effect int8

const (
	effectNone effect = 0
	effectDo   effect = 1
	effectUndo effect = -1
	// effectModify changes something that is there; no tool is of this
	// kind, but one that makes a new thing (see makesNew) is its
	// opposite: "change the footnotes of thesis.docx" is no request to
	// add a footnote.
	effectModify effect = 2
)

// doingWords make, add or start something.
var doingWords = wordSet(`create add insert put write make generate
	build new append populate upload save install start launch run open
	enable protect lock stage approve begin submit publish subscribe
	register link attach assign connect follow pin star bind mount activate
	remember memorize`)

// undoingWords remove, clear or stop something: the opposites of
// doingWords. A doing word after "un" undoes too (see verbEffect), so
// "unlock" and "unpublish" need no entry here.
var undoingWords = wordSet(`delete remove clear drop destroy discard forget
	erase kill stop end close terminate disable reset cancel reject revoke
	withdraw deregister detach disconnect deactivate unset`)

// toolEffect is the effect of a tool by the first verb of its name (its
// Words) that reads, does or undoes: none for get_placeholder, undo for
// clear_placeholders_from_slides and playwright_close.
func toolEffect(nameWords []string) effect {
	for _, w := range nameWords {
		if e := verbEffect(w); e != effectNone {
			return e
		}
		if readingWords[w] {
			return effectNone
		}
	}
	return effectNone
}

// verbEffect is whether verb w does or undoes something (doingWords,
// undoingWords). "un" before a verb that does undoes what it does
// ("unlink", "unpin", "unassign", "unpublish"), as English makes the
// opposites of such verbs; "re" before one does it again ("reopen",
// "reactivate", "reinstall").
func verbEffect(w string) effect {
	switch {
	case doingWords[w]:
		return effectDo
	case undoingWords[w]:
		return effectUndo
	case strings.HasPrefix(w, "un") && doingWords[unprefixed(w)]:
		return effectUndo
	case strings.HasPrefix(w, "re") && doingWords[unprefixed(w)]:
		return effectDo
	}
	return effectNone
}

// requestEffect is the effect a request asks for, by its first word past
// the leading ones ("please", "can you", see leadingWords), or the phrasal
// verb it begins ("pull up", "set up", see idioms).
func requestEffect(text string) effect {
	words := Words(text)
	i := firstRequestWord(words)
	if i == len(words) {
		return effectNone
	}
	verb := requestVerb(words, i)
	if e := verbEffect(verb); e != effectNone {
		return e
	}
	if modifyingWords[verb] && !(verb == words[i] && i+1 < len(words) && indefiniteArticles[words[i+1]]) {
		return effectModify
	}
	return effectNone
}

// indefiniteArticles, right after a verb that changes, say its object is
// no thing that is there: "set a reminder", "set an alarm" make one,
// where "set the reminder" changes it.
var indefiniteArticles = wordSet("a an")

func (e effect) String() string {
	switch e {
	case effectDo:
		return "makes, adds or starts something"
	case effectUndo:
		return "removes, clears or stops something"
	case effectModify:
		return "changes something that is there"
	}
	return "none"
}

// effectSignal is the signal of doing and undoing.
type effectSignal struct{}

func (effectSignal) name() string { return "do or undo" }

func (effectSignal) newDocs(n int) signalDocs {
	return &effectDocs{effects: make([]effect, n), makes: make([]bool, n)}
}

type effectDocs struct {
	effects []effect // whether each document does or undoes (see toolEffect)
	makes   []bool   // whether it makes a new thing (see makesNew)
}

func (s *effectDocs) analyze(i int, _ *Document, a *docAnalysis) {
	s.effects[i] = toolEffect(a.nameWordList)
	s.makes[i] = makesNew(a.nameWordList)
}

func (s *effectDocs) query(r *ranking) signalQuery {
	if r.wholeOfSteps {
		return nil
	}
	wanted := requestEffect(r.text)
	if wanted == effectNone {
		return nil
	}
	return &effectQuery{docs: s, wanted: wanted}
}

type effectQuery struct {
	docs   *effectDocs
	wanted effect
}

func (q *effectQuery) read() string { return "the request " + q.wanted.String() }

func (q *effectQuery) apply(docs []int32, scores []float64) {
	for i, d := range docs {
		add, times := q.effect(d)
		scores[i] = (scores[i] + add) * times
	}
}

func (q *effectQuery) effect(d int32) (float64, float64) {
	if q.undoesAsAsked(d) {
		return 0, 1 + undoingBonus
	}
	return factor(q.docs.opposes(d, q.wanted), 1-oppositePenalty)
}

// undoesAsAsked reports whether document d removes, clears or stops
// something, as the request asks (see undoingBonus).
func (q *effectQuery) undoesAsAsked(d int32) bool {
	return q.wanted == effectUndo && q.docs.effects[d] == effectUndo
}

func (q *effectQuery) reason(d int32) string {
	if q.undoesAsAsked(d) {
		return "the tool removes, clears or stops something (by its name's first verb), as the request asks"
	}
	if q.wanted == effectModify {
		return "the tool makes a new thing; the request changes one that is there"
	}
	return fmt.Sprintf("the tool %s (by its name's first verb): the opposite of the request", q.docs.effects[d])
}

// opposes reports whether document d does the opposite of what a request
// of effect wanted asks: undoes what it does, does what it undoes, or
// makes a new thing or removes one where it changes one that is there.
func (s *effectDocs) opposes(d int32, wanted effect) bool {
	switch wanted {
	case effectDo, effectUndo:
		return s.effects[d] == -wanted
	case effectModify:
		return s.makes[d] || s.effects[d] == effectUndo
	}
	return false
}

// modifyingWords change something that is there.
var modifyingWords = wordSet(`change edit update modify alter adjust rename
	resize restyle reformat fix correct replace set switch rotate`)
