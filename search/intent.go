package search

import (
	"fmt"
	"strings"
)

// Asking and acting. A request that asks ("what's on slide 3?", "show me
// the console errors") wants a tool that reads or reports: get_slide_info,
// not add_slide, though both share its words. A request that acts ("put
// the chart on slide 2", "type the address into the field") wants a tool
// that does or makes something: changes a document, drives a browser,
// converts a file. The request's first word says which it is
// (requestIntent), and the first verb of a tool's name, or failing that of
// its description, says which kind of tool it is (toolIntent). A tool of
// the other kind keeps 1-intentPenalty of its score, but for a tool whose
// description opens with the request's own verb: "Download the evidence
// file" asks for what ebay_fetch_payment_dispute_evidence_content does
// ("Download evidence file content ..."), though "download" changes and
// "fetch" reads. A request or a tool that says neither ranks as before.
// How it was chosen: docs/search.md, "The tuned values".
const intentPenalty = 0.4

// intent is what a request asks of a tool, or what a tool does.
type intent int8

const (
	intentUnknown intent = 0
	intentRead    intent = 1
	intentChange  intent = -1
)

func (i intent) String() string {
	switch i {
	case intentRead:
		return "reads"
	case intentChange:
		return "changes"
	}
	return "says neither"
}

// intentSignal is the signal of asking and acting.
type intentSignal struct{}

func (intentSignal) name() string { return "ask or act" }

func (intentSignal) newDocs(n int) signalDocs {
	return &intentDocs{intents: make([]intent, n), leads: make([]string, n)}
}

type intentDocs struct {
	intents []intent // what each document does (see toolIntent)
	// leads are the stems of each description's first verb (see
	// descriptionVerb), until finish numbers them: leadIDs, by document,
	// numbers of leadNumbers (0 for none).
	leads       []string
	leadIDs     []int32
	leadNumbers map[string]int32
}

func (s *intentDocs) analyze(i int, doc *Document, a *docAnalysis) {
	s.intents[i] = toolIntent(a.nameWordList, doc.Description)
	if v := descriptionVerb(doc.Description); v != "" {
		s.leads[i] = a.stems.stem(v)
	}
}

// finish numbers the description verbs, so that a ranking compares
// numbers, not strings, for each candidate.
func (s *intentDocs) finish(*Index, [][numFields][]int32) {
	s.leadIDs = make([]int32, len(s.leads))
	s.leadNumbers = make(map[string]int32)
	for i, lead := range s.leads {
		if lead == "" {
			continue
		}
		id, ok := s.leadNumbers[lead]
		if !ok {
			id = int32(len(s.leadNumbers) + 1)
			s.leadNumbers[lead] = id
		}
		s.leadIDs[i] = id
	}
	s.leads = nil
}

func (s *intentDocs) query(r *ranking) signalQuery {
	asked, verb := requestIntentAndVerb(r.text)
	if r.wholeOfSteps {
		asked = stepsIntent(splitSteps(r.text))
	}
	if asked == intentUnknown {
		return nil
	}
	return &intentQuery{docs: s, asked: asked, verb: s.leadNumbers[stemWord(verb)], r: r, object: r.objectWords(), mask: r.lex.mask}
}

type intentQuery struct {
	docs  *intentDocs
	asked intent
	verb  int32 // the number of the request's verb among the description verbs (see finish); 0 for none
	r     *ranking
	// object are the bits of the request's words but its verb, and mask
	// the request's words each document matches (see objectWords);
	// sense says whether a tool of the kind asked for holds any of them
	// (see apply).
	object uint64
	mask   []uint64
	sense  bool
}

func (q *intentQuery) read() string {
	if q.asked == intentRead {
		return "the request asks to be told or shown something"
	}
	return "the request asks for a change"
}

func (q *intentQuery) apply(docs []int32, scores []float64) {
	q.sense = q.object == 0
	for _, d := range docs {
		if !q.sense && q.docs.intents[d] == q.asked {
			q.sense = q.holdsObject(d)
		}
	}
	for i, d := range docs {
		add, times := q.effect(d)
		scores[i] = (scores[i] + add) * times
	}
}

// holdsObject reports whether document d holds one of the request's
// words but its verb in its own text, not only in its domain's (see
// domainFields): the domain's words are every tool's of it.
func (q *intentQuery) holdsObject(d int32) bool {
	if q.mask[d]&q.object == 0 {
		return false
	}
	for _, a := range q.r.active {
		if a.bits&q.object != 0 {
			if _, fields, ok := q.r.ix.termScore(a, d); ok && fields&^domainFields != 0 {
				return true
			}
		}
	}
	return false
}

// effect penalises a tool of the other kind, but when no tool of the
// kind asked for holds any of the request's words but its verb (see
// apply) while this one does: then the verb is meant in another sense
// than its kind ("add two numbers" is arithmetic, and get_sum, which
// returns a sum, what it asks for; "generate an image" asks for an image
// however a tool gives it). Nor does it penalise a tool whose description
// opens with the request's own verb: that is what the tool says it does.
func (q *intentQuery) effect(d int32) (float64, float64) {
	other := q.docs.intents[d] == -q.asked && (q.verb == 0 || q.docs.leadIDs[d] != q.verb)
	return factor(other && (q.sense || !q.holdsObject(d)), 1-intentPenalty)
}

func (q *intentQuery) reason(d int32) string {
	return fmt.Sprintf("the tool %s (by the first verb of its name or description), the request asks for the other", q.docs.intents[d])
}

// readingWords, in a tool's name, say it reads or reports something:
// get_slide_info, list_projects, git_status, playwright_console_logs.
var readingWords = wordSet(`get list read show search fetch view find query
	lookup look check describe count status info inspect analyze analyse
	explain preview summarize summary stats statistics logs log history
	compare diff validate exists browse retrieve load details detail overview
	calculate compute estimate predict measure detect identify recognize
	classify recommend suggest resolve verify`)

// changingWords, in a tool's name, say it changes something; first in a
// request, they ask for a change.
var changingWords = wordSet(`create add delete remove update set write edit
	move insert apply make generate build clear rename start stop end kill
	switch approve mark upload send post put patch push commit reset merge
	copy format replace save new append modify change install uninstall drop
	destroy close click fill press select hover drag navigate run execute
	evaluate launch schedule book publish share assign enable disable archive
	restore undo protect unprotect populate manage optimize transform resize
	crop rotate draw plot convert stage remember forget discard type restyle
	combine terminate cancel abort restart reload refresh pause resume submit
	deploy fork clone encrypt decrypt compress subscribe unsubscribe
	register download choose pick reply respond forward invite notify link
	unlink attach detach connect disconnect upsert configure`)

// askingWords, first in a request, make it a question or ask to be shown
// something, or found ("find the orders tagged wholesale", "search my
// notes for ..."): what is found is told.
var askingWords = wordSet(`what which who whom whose when where why how is
	are was were does do did has have show list tell display view see check
	count compare find search`)

// fetchingWords, first in a request, ask to be given something: "pull my
// seller orders from the past week", "grab the error logs". Unlike
// askingWords they begin idioms of their own ("pull up"), which say what
// the request asks first.
var fetchingWords = wordSet("pull grab")

// toldWords, after "tell", are the one asking: "tell me who owns it" asks
// to be told; "tell Lisa I'm late" asks for a message to Lisa.
var toldWords = wordSet("me us")

// leadingWords come before the word that says what a request wants
// ("please", "can you", "I want to", "let's").
var leadingWords = wordSet(`please can could would will you i want to need
	help me let lets s`)

// descriptionLeadingWords come before the verb of a tool's description
// ("This tool creates", "A tool that lists", "Allows you to delete").
var descriptionLeadingWords = wordSet(`this a an the tool that which will can
	you to use used it allows lets helps`)

// descriptionLead is how much of a description, in bytes, toolIntent
// reads for its first verb.
const descriptionLead = 120

// Stems of the verbs, for a description's inflected first verb ("Gets",
// "Creates", "Retrieves").
var (
	readingStems  = stemSet(readingWords, "return retrieve obtain")
	changingStems = stemSet(changingWords, "")
)

// toolIntent is what a tool does, by the first verb of its name (its
// Words: get_book reads, though "book" can change), or if its name has
// none (pdf_merger, whois_domain), by the first verb of its description.
// A name that joins a verb of change to it (search_and_replace) changes.
func toolIntent(nameWords []string, description string) intent {
	for i, w := range nameWords {
		r, c := readingWords[w], changes(w)
		if r && !c {
			if joinsChange(nameWords[i+1:]) {
				return intentChange
			}
			return intentRead
		}
		if c && !r {
			return intentChange
		}
	}
	first := descriptionVerb(description)
	if first == "" {
		return intentUnknown
	}
	stem := stemWord(first)
	if stem == "convert" {
		// "Convert an address to coordinates": what the tool maps, which
		// answers a question ("what are the coordinates of ...?") as
		// often as it does a job. A name's "convert" still changes.
		return intentUnknown
	}
	changing := changingStems[stem] || changingStems[stemWord(unprefixed(first))]
	switch {
	case readingStems[stem] && !changing:
		return intentRead
	case changing && !readingStems[stem]:
		return intentChange
	}
	return intentUnknown
}

// descriptionVerb is the first word of a tool's description past the
// leading ones ("This tool creates": "creates"), within its first
// descriptionLead bytes; "" if there is none.
func descriptionVerb(description string) string {
	if len(description) > descriptionLead {
		description = description[:descriptionLead]
	}
	// The verb is nearly always among the first words: read those first,
	// up to a space, so that no word is cut short, and the rest only if
	// they hold none.
	if cut := strings.LastIndexByte(description[:min(len(description), descriptionFirstWords)], ' '); cut > 0 {
		if w := firstNonLeading(Words(description[:cut])); w != "" {
			return w
		}
	}
	return firstNonLeading(Words(description))
}

// descriptionFirstWords is how much of a description, in bytes,
// descriptionVerb reads before the rest of its lead.
const descriptionFirstWords = 40

// firstNonLeading is the first of words past the leading ones (see
// descriptionLeadingWords) and the adverbs before a verb ("Permanently
// delete all files in trash": "delete"); "" if there is none. A word in
// -ly is an adverb unless it is a verb ("apply", "reply").
func firstNonLeading(words []string) string {
	for _, w := range words {
		if descriptionLeadingWords[w] || strings.HasSuffix(w, "ly") && !changes(w) && !readingWords[w] {
			continue
		}
		return w
	}
	return ""
}

// joinsChange reports whether the rest of a name, after its first verb,
// joins a verb of change to it: "and replace", "or create", "then save".
func joinsChange(rest []string) bool {
	for i := 0; i+1 < len(rest); i++ {
		if conjunctions[rest[i]] && changes(rest[i+1]) && !readingWords[rest[i+1]] {
			return true
		}
	}
	return false
}

var conjunctions = wordSet("and or then")

// changes reports whether w is a verb of change (see changingWords), or
// one undone or done again ("unstage", "rerun").
func changes(w string) bool {
	return changingWords[w] || changingWords[unprefixed(w)]
}

// unprefixed is w without the "un" or "re" that undoes it or does it
// again ("unstage", "rerun"); "" unless w is one of them before three
// letters or more.
func unprefixed(w string) string {
	for _, p := range []string{"un", "re"} {
		if len(w) >= len(p)+3 && strings.HasPrefix(w, p) {
			return w[len(p):]
		}
	}
	return ""
}

// requestIntent is what a request asks for, by its first word past the
// leading ones: a question word or "show" asks to read, a verb of change
// asks for a change; otherwise a request ending in "?" asks to read.
func requestIntent(text string) intent {
	asked, _ := requestIntentAndVerb(text)
	return asked
}

// requestIntentAndVerb is requestIntent and the verb it read (see
// requestVerb); "" when the request has no words past the leading ones.
func requestIntentAndVerb(text string) (intent, string) {
	words := Words(text)
	verb := ""
	if i := firstRequestWord(words); i < len(words) {
		verb = requestVerb(words, i)
		switch {
		case verb == "tell" && i+1 < len(words) && !toldWords[words[i+1]]:
			// "Tell Lisa I'm running late" passes a message on.
			return intentChange, verb
		case verb == "have" && i+1 < len(words) && causeeDeterminers[words[i+1]] && !strings.HasSuffix(strings.TrimSpace(text), "?"):
			// "Have our assistant call +1 212 555 0187" asks the one it
			// names to do something: a change when its verb is one (see
			// causedVerb), neither kind when it is no verb the search
			// knows. "Have my notes finished syncing?" asks.
			if done := causedVerb(words[i+2:]); done != "" {
				return intentChange, done
			}
			return intentUnknown, verb
		case askingWords[verb] && joinsChange(words[i+1:min(i+3, len(words))]):
			// "Find and replace 'foo' in notes.txt" asks for a change.
			return intentChange, verb
		case askingWords[verb] || fetchingWords[verb]:
			return intentRead, verb
		case changes(verb):
			return intentChange, verb
		}
	}
	if strings.HasSuffix(strings.TrimSpace(text), "?") {
		return intentRead, verb
	}
	return intentUnknown, verb
}

// causedVerb is the verb of what a request that begins "have" and a
// determiner asks the one it names to do: a changing word (see changes)
// among the next four words ("booking assistant send"); "" for none.
func causedVerb(words []string) string {
	for _, w := range words[:min(len(words), 4)] {
		if changes(w) {
			return w
		}
	}
	return ""
}

// causeeDeterminers open the one a "have" request names.
var causeeDeterminers = wordSet("our my the a an your their")

// stepsIntent is what a request of several steps asks for as a whole:
// what every step asks for, when they agree ("Is the page indexed, and
// what is its canonical?" asks to be told); nothing when a step says
// neither or they differ ("read the sheet, then plot it").
func stepsIntent(steps []string) intent {
	asked := intentUnknown
	for i, step := range steps {
		got := requestIntent(step)
		if got == intentUnknown || i > 0 && got != asked {
			return intentUnknown
		}
		asked = got
	}
	return asked
}

// requestVerb is the verb a request's words say first, at i (see
// firstRequestWord): the word there, or the first word of what the idiom
// it begins means ("start a new" creates, "pull up" opens), but for a
// question ("how many are there" asks).
func requestVerb(words []string, i int) string {
	w := words[i]
	if meaning, n := idiomAt(words, i); n > 0 && !askingWords[w] {
		w, _, _ = strings.Cut(meaning, " ")
	}
	return w
}

// firstRequestWord is the index of a request's first word past the
// leading ones (see leadingWords); len(words) if there is none.
func firstRequestWord(words []string) int {
	i := 0
	for i < len(words) && leadingWords[words[i]] {
		i++
	}
	return i
}

func wordSet(words string) map[string]bool {
	set := make(map[string]bool)
	for _, w := range strings.Fields(words) {
		set[w] = true
	}
	return set
}

func stemSet(words map[string]bool, more string) map[string]bool {
	set := make(map[string]bool)
	for w := range words {
		set[stemWord(w)] = true
	}
	for _, w := range strings.Fields(more) {
		set[stemWord(w)] = true
	}
	return set
}
