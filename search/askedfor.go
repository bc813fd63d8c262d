package search

import (
	"slices"
	"strings"
)

// What a request asks to be told. "Get the latitude and longitude of the
// Eiffel Tower" asks for a latitude and a longitude: reverse_geocode,
// which takes them, cannot give them, however well its text matches.
// A tool that takes as a parameter what a request asks to be told, and
// does not say so in its name, title or the first sentence of its
// description, keeps 1-askedInputPenalty of its score (see inputWords):
// tempo takes a start_bpm, but its description begins "Estimates the
// tempo (in BPM)", so "what's the BPM of my song" still finds it.
// How it was chosen: docs/search.md, "The tuned values".
const askedInputPenalty = 0.5

// askedForWords are the words of what a request asks to be told: after an
// asking word ("get", "what is", "give me", "look up") and "the", up to a
// preposition. "the latitude and longitude" of "get the latitude and
// longitude of the Eiffel Tower"; "the author, page count and word count"
// of "give me the author, page count and word count of proposal.docx".
// Nil for a request of another shape.
func askedForWords(text string) []string {
	words := Words(text)
	i := firstRequestWord(words)
	if i >= len(words) || !askingStarts[words[i]] {
		return nil
	}
	i++
	if i < len(words) && askingLinks[words[i]] {
		i++
	}
	if i >= len(words) || !askedForDeterminers[words[i]] {
		return nil
	}
	var out []string
	for i++; i < len(words); i++ {
		w := words[i]
		if askedForEnds[w] {
			if w == "of" && len(out) > 0 && portionWords[out[len(out)-1]] {
				// "the first page of archived tickets" asks for tickets.
				return nil
			}
			return out
		}
		if !isStopWord(w) {
			out = append(out, w)
		}
	}
	return nil
}

var (
	// askingStarts begin a request to be told something.
	askingStarts = wordSet("get give what show tell find fetch look check retrieve pull grab")
	// askingLinks may come between the asking word and "the": "give me
	// the", "what is the", "what's the", "look up the".
	askingLinks = wordSet("me is are s up")
	// askedForDeterminers open what is asked for.
	askedForDeterminers = wordSet("the its their")
	// askedForEnds close it: "the latitude of", "the id for", "the text
	// out of".
	askedForEnds = wordSet("of for from in on out at to about with")
	// portionWords name a part of a list to be given: what the request
	// asks to be told is the list ("the next page of results").
	portionWords = wordSet("page batch")
)

type askedFor struct{}

func (askedFor) name() string { return "asked for" }

func (askedFor) newDocs(n int) signalDocs { return &askedForDocs{inputs: make([]string, n)} }

type askedForDocs struct {
	inputs []string // what each document takes and does not say it gives (see inputWords)
}

func (s *askedForDocs) analyze(i int, doc *Document, a *docAnalysis) {
	s.inputs[i] = inputWords(doc, a.terms[fieldName], a.terms[fieldTitle], a.stems)
}

func (s *askedForDocs) query(r *ranking) signalQuery {
	told := askedForWords(r.text)
	if told == nil {
		return nil
	}
	return &askedForQuery{docs: s, told: told}
}

type askedForQuery struct {
	docs *askedForDocs
	told []string
}

func (q *askedForQuery) read() string { return "the request asks to be told " + quoteAll(q.told) }

func (q *askedForQuery) apply(docs []int32, scores []float64) {
	for i, d := range docs {
		add, times := q.effect(d)
		scores[i] = (scores[i] + add) * times
	}
}

func (q *askedForQuery) effect(d int32) (float64, float64) {
	return factor(q.docs.takesWhatIsAsked(d, q.told), 1-askedInputPenalty)
}

func (q *askedForQuery) reason(int32) string {
	return "it takes as a parameter what the request asks to be told, and does not say it gives it"
}

// takesWhatIsAsked reports whether document d takes as a parameter one of
// the words a request asks to be told (asked, see askedForWords) without
// saying it gives it (see inputWords).
func (s *askedForDocs) takesWhatIsAsked(d int32, asked []string) bool {
	for _, w := range asked {
		if hasWord(s.inputs[d], w) {
			return true
		}
	}
	return false
}

// inputWords are the words of a tool's parameter names that its name and
// title do not hold (after stemming), nor the first sentence of its
// description (as the start of a word: "bpm" of "the tempo (in BPM)"),
// each followed by a space: what it takes and does not say it gives. The
// words of a parameter that chooses what it gives (include_full_text)
// are not among them.
func inputWords(doc *Document, nameTerms, titleTerms []string, stems *stemCache) string {
	if doc.ParamNames == "" {
		return ""
	}
	sentence := strings.ToLower(firstSentence(doc.Description))
	var inputs []string
	for _, param := range strings.Fields(doc.ParamNames) {
		ws := Words(param)
		if len(ws) > 1 && outputFlags[ws[0]] {
			continue
		}
		for _, w := range ws {
			t := stems.stem(w)
			if !slices.Contains(nameTerms, t) && !slices.Contains(titleTerms, t) && !hasWordStarting(sentence, t) {
				inputs = append(inputs, w)
			}
		}
	}
	if len(inputs) == 0 {
		return ""
	}
	return strings.Join(inputs, " ") + " "
}

// hasWordStarting reports whether text holds a word that begins with
// prefix.
func hasWordStarting(text, prefix string) bool {
	for rest, at := text, 0; ; {
		i := strings.Index(rest, prefix)
		if i < 0 {
			return false
		}
		at += i
		if at == 0 || !isASCIILetter(text[at-1]) && (text[at-1] < '0' || text[at-1] > '9') {
			return true
		}
		rest, at = rest[i+1:], at+1
	}
}

// outputFlags begin the names of parameters that choose what a tool
// gives rather than what it takes (include_full_text, show_formula).
var outputFlags = wordSet("include exclude show return with has enable use")

// firstSentence is a description's first sentence: what the tool does,
// before the details of how and of its arguments.
func firstSentence(description string) string {
	description = strings.TrimSpace(description)
	if i := strings.IndexByte(description, '\n'); i >= 0 {
		description = description[:i]
	}
	if i := strings.Index(description, ". "); i >= 0 {
		description = description[:i]
	}
	return description
}
