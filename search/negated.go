package search

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Negated verbs. A request may say what not to do beside what to do:
// "update the items as drafts, don't publish", "archive the login, don't
// delete it", "discard the session without generating a test". The verb
// it negates names the job it does not want: a tool named for it does
// the opposite of what the request asks (see negatedAction), and a clause
// that only says what not to do is no step of the request (see
// withoutNegations).

// negatedVerb matches the verb of a negation: the word after "don't",
// "do not", "doesn't", "didn't", "never" and the like (an imperative or
// a statement's negated verb), or the -ing word after "without",
// "instead of" and "rather than" ("without generating"). Plain "not"
// negates too much that is no verb ("not found", "not running") to be
// read so.
var negatedVerb = regexp.MustCompile(`(?i)\b(?:(?:do|does|did)(?:n['’]?t|\s+not)|never)\s+(?:(?:yet|ever|even|actually|really|just)\s+)?([a-z]+)\b|\b(?:without|instead\s+of|rather\s+than)\s+([a-z]+ing)\b`)

// negatedVerbs returns the stems of the words text negates (see
// negatedVerb) that it does not also use unnegated.
func negatedVerbs(text string, stems *stemCache) map[string]bool {
	if !mayNegate(text) {
		return nil
	}
	matches := negatedVerb.FindAllStringSubmatchIndex(text, -1)
	if len(matches) == 0 {
		return nil
	}
	negated := make(map[string]bool)
	var rest []byte
	last := 0
	for _, m := range matches {
		start, end := m[2], m[3]
		if start < 0 {
			start, end = m[4], m[5]
		}
		negated[stems.stem(strings.ToLower(text[start:end]))] = true
		rest = append(append(rest, text[last:start]...), ' ')
		last = end
	}
	rest = append(rest, text[last:]...)
	for _, w := range Words(string(rest)) {
		delete(negated, stems.stem(w))
	}
	if len(negated) == 0 {
		return nil
	}
	return negated
}

// withoutNegations is text without its negated verbs and the words that
// negate them, nor the object pronoun after one: what is left of "but
// don't send it yet" says no action to take (see namesAction).
func withoutNegations(text string) string {
	if isOff("negated-action") || !mayNegate(text) {
		return text
	}
	return negatedWithObject.ReplaceAllString(text, " ")
}

// mayNegate reports whether text holds a word negatedVerb may match: a
// cheap test that spares most requests the regular expression. It looks
// for the lower-case ends of the negating words, so that "Never" and
// "Without" are found as "never" and "without" are.
func mayNegate(text string) bool {
	for _, s := range negatingParts {
		if strings.Contains(text, s) {
			return true
		}
	}
	return false
}

var negatingParts = []string{"'t", "’t", "nt ", "not", "ever", "ithout", "nstead", "ather"}

var negatedWithObject = regexp.MustCompile(`(?i)(?:` + negatedVerb.String() + `)(?:\s+(?:it|them)\b)?`)

// The negated action. A tool named for what a request says not to do
// ("don't publish": publish_items; "without generating a test":
// generate_test), for what it asks to stop ("stop exposing port 8080":
// sandbox_expose_port), or for what it asks to undo ("undo the deletion of
// ticket 4410": delete_ticket), does the opposite of what the request
// asks, and keeps 1-oppositePenalty of its score, as a tool of the
// opposite kind does (see effect.go). A tool whose name also says it
// removes or stops (stop_recording for "stop recording") is spared, unless
// the unwanted verb removes too: delete_ticket does what "undo the
// deletion" and "don't delete it" do not want.
type negatedAction struct{}

func (negatedAction) name() string { return "negated action" }

func (negatedAction) newDocs(n int) signalDocs {
	return &negatedActionDocs{undoes: make([]bool, n)}
}

type negatedActionDocs struct {
	ix     *Index
	undoes []bool // whether each document's name removes or stops something (see toolEffect)
	// removing holds the stems of the verbs that remove, clear or stop
	// (undoingWords): "delet" of "delete" and "deletion".
	removing map[string]bool
}

func (s *negatedActionDocs) analyze(i int, _ *Document, a *docAnalysis) {
	s.undoes[i] = toolEffect(a.nameWordList) == effectUndo
}

func (s *negatedActionDocs) finish(ix *Index, _ [][numFields][]int32) {
	s.ix = ix
	s.removing = make(map[string]bool, len(undoingWords))
	for w := range undoingWords {
		s.removing[ix.stems.stem(w)] = true
	}
}

func (s *negatedActionDocs) query(r *ranking) signalQuery {
	verbs := unwantedVerbs(r.text, s.ix.stems)
	if len(verbs) == 0 {
		return nil
	}
	named := make(map[int32]string)
	for _, v := range verbs {
		id, ok := s.ix.vocab[v]
		if !ok {
			continue
		}
		spare := !s.removing[v]
		for _, p := range s.ix.postings[id] {
			if p.tf < 0 && !(spare && s.undoes[p.doc]) {
				named[p.doc] = v
			}
		}
	}
	if len(named) == 0 {
		return nil
	}
	return &negatedActionQuery{verbs: verbs, named: named}
}

type negatedActionQuery struct {
	verbs []string         // the stems of the verbs the request does not want done
	named map[int32]string // the documents named for one of them, with its stem
}

func (q *negatedActionQuery) read() string {
	return "the request does not want done: " + quoteAll(q.verbs)
}

func (q *negatedActionQuery) apply(docs []int32, scores []float64) {
	for i, d := range docs {
		add, times := q.effect(d)
		scores[i] = (scores[i] + add) * times
	}
}

func (q *negatedActionQuery) effect(d int32) (float64, float64) {
	_, ok := q.named[d]
	return factor(ok, 1-oppositePenalty)
}

func (q *negatedActionQuery) reason(d int32) string {
	return fmt.Sprintf("its name says %q, which the request does not want done", q.named[d])
}

// unwantedVerbs returns the stems of the verbs a request does not want
// done: those it negates (see negatedVerbs); the one it asks to stop
// doing, when it begins with "stop", "quit" or "cease" and an -ing word
// follows ("stop exposing port 8080"); and the action it asks to undo,
// when it begins with "undo" and names one next, past determiners ("undo
// the deletion of ticket 4410": the stem "delet" of "deletion" is
// delete's). Sorted, for a stable explanation.
func unwantedVerbs(text string, stems *stemCache) []string {
	verbs := negatedVerbs(text, stems)
	unwant := func(w string) {
		if verbs == nil {
			verbs = make(map[string]bool)
		}
		verbs[stems.stem(w)] = true
	}
	if mayStop(text) && stopDoing.MatchString(text) {
		words := Words(text)
		if i := firstRequestWord(words); i+1 < len(words) && stoppingWords[words[i]] && strings.HasSuffix(words[i+1], "ing") {
			unwant(words[i+1])
		}
	}
	if strings.Contains(text, "ndo") {
		words := Words(text)
		if i := firstRequestWord(words); i < len(words) && words[i] == "undo" {
			j := i + 1
			for j < len(words) && placeDeterminers[words[j]] {
				j++
			}
			if j < len(words) {
				unwant(words[j])
			}
		}
	}
	if len(verbs) == 0 {
		return nil
	}
	return slices.Sorted(mapKeys(verbs))
}

// mayStop is mayNegate for stopDoing.
func mayStop(text string) bool {
	return strings.Contains(text, "top") || strings.Contains(text, "uit") || strings.Contains(text, "ease")
}

// stopDoing finds "stop" and the like before an -ing word anywhere in a
// request; unwantedVerbs takes it only first in the request.
var (
	stopDoing     = regexp.MustCompile(`(?i)\b(?:stop|quit|cease)\s+[a-z]+ing\b`)
	stoppingWords = wordSet("stop quit cease")
)
