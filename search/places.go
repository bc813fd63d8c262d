package search

// placeWords are the stems of the words a query names as the place of its
// action rather than as what it acts on: the word right after a locative
// preposition ("a rectangle on slide 2", "search in my notes", "the first
// words of paragraph 2"), past determiners, ordinals and numbers. The
// prepositions of movement are left out: a target or a source ("save it
// to a file", "turn it into a mind map", "the text from a PDF") is as
// often what a tool is named for. A word the query also uses elsewhere is
// not one.
//
// A place says where, and tools are named for what they do and to what:
// "bold the first words of paragraph 2" asks for format_text more than
// for add_paragraph, whose name it half spells. Place words count less
// towards the share of a name the query spells out and in tools' names
// (see placeNameWeight and placeNameScale); they count in full everywhere
// else.
func placeWords(text string, stems *stemCache) map[string]bool {
	words := Words(text)
	places := make(map[string]bool)
	elsewhere := make(map[string]bool)
	for i := 0; i < len(words); i++ {
		w := words[i]
		if !placePrepositions[w] {
			elsewhere[stems.stem(w)] = true
			continue
		}
		j := i + 1
		for j < len(words) && (placeDeterminers[words[j]] || isDigits(words[j])) {
			j++
		}
		if j == len(words) {
			break
		}
		if placePrepositions[words[j]] {
			// "in 2 of the slides": what followed was no place.
			i = j - 1
			continue
		}
		places[stems.stem(words[j])] = true
		i = j
	}
	for s := range elsewhere {
		delete(places, s)
	}
	return places
}

// placeRule weighs place words less in tools' names.
var placeRule = wordRule{
	name: "place",
	pick: func(ix *Index, text string) func(string) bool {
		places := placeWords(text, ix.stems)
		if len(places) == 0 {
			return nil
		}
		return func(stem string) bool { return places[stem] }
	},
	weight: 1, nameWeight: placeNameWeight, nameScale: placeNameScale,
}

const (
	// placeNameWeight weighs a place word of the query in the share of a
	// name the query spells out, and placeNameScale its frequency in
	// names: "add a rectangle on slide 2" is no request for a tool about
	// slides (apply_slide_template).
	// How it was chosen: docs/search.md, "The tuned values".
	placeNameWeight = 0.5
	placeNameScale  = 0.4
)

// placePrepositions introduce a place (see placeWords).
var placePrepositions = map[string]bool{
	"on": true, "in": true, "onto": true, "inside": true, "at": true, "of": true,
}

// placeDeterminers come between a preposition and its place: "on the
// first slide", "in my notes".
var placeDeterminers = map[string]bool{
	"the": true, "a": true, "an": true, "my": true, "our": true, "your": true, "this": true, "that": true,
	"its": true, "their": true, "his": true, "her": true, "first": true, "second": true, "third": true,
	"last": true, "current": true, "every": true, "each": true, "all": true,
}
