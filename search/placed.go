package search

// Placed items. A request that acts at or on a numbered item ("put a bar
// chart of sales on slide 3") asks for a tool that takes the item as a
// parameter: add_chart, whose parameters name the slide, more than
// generate_bar_chart, which makes a chart apart from any slide. Such a
// tool's score grows by itemParameterBonus.
// How it was chosen: docs/search.md, "The tuned values".
const itemParameterBonus = 0.5

// placedItems are the numbered items of a request (items, see
// numberedItems) it acts at or on: places of its action ("a chart on
// slide 3", see placeWords) and targets ("add a chart to slide 3"). An
// item named as what the request is about ("Hacker News story 38912345")
// is not one: tools name it as "id" as often as by its word.
func placedItems(text string, items []string, stems *stemCache) []string {
	if len(items) == 0 {
		return nil
	}
	places := placeWords(text, stems)
	words := Words(text)
	var out []string
	for _, item := range items {
		placed := places[stems.stem(item)]
		for i := 1; i < len(words) && !placed; i++ {
			placed = words[i] == item && (words[i-1] == "to" || words[i-1] == "into")
		}
		if placed {
			out = append(out, item)
		}
	}
	return out
}

type placedItem struct{}

func (placedItem) name() string { return "placed item" }

func (placedItem) newDocs(int) signalDocs { return &placedItemDocs{} }

type placedItemDocs struct{ ix *Index }

func (*placedItemDocs) analyze(int, *Document, *docAnalysis) {}

func (s *placedItemDocs) finish(ix *Index, _ [][numFields][]int32) { s.ix = ix }

func (s *placedItemDocs) query(r *ranking) signalQuery {
	placed := placedItems(r.text, r.numberedItems(), s.ix.stems)
	if len(placed) == 0 {
		return nil
	}
	return &placedItemQuery{ix: s.ix, placed: placed}
}

type placedItemQuery struct {
	ix     *Index
	placed []string
}

func (q *placedItemQuery) read() string { return "the request acts at or on " + quoteAll(q.placed) }

func (q *placedItemQuery) apply(docs []int32, scores []float64) {
	for i, d := range docs {
		add, times := q.effect(d)
		scores[i] = (scores[i] + add) * times
	}
}

func (q *placedItemQuery) effect(d int32) (float64, float64) {
	return factor(q.ix.takesItem(d, q.placed), 1+itemParameterBonus)
}

func (q *placedItemQuery) reason(int32) string {
	return "it has a parameter named for " + quoteAll(q.placed)
}

// takesItem reports whether document d has a parameter named for one of
// items ("slide_index" for "slide").
func (ix *Index) takesItem(d int32, items []string) bool {
	for _, item := range items {
		if hasWord(ix.docParamWords[d], item) {
			return true
		}
	}
	return false
}
