package search

// Boilerplate. Servers describe themselves in the same words: "an MCP
// server", "the Model Context Protocol". Those words, in most domains'
// descriptions, say nothing about any one domain, yet as every tool of
// those domains holds its domain's description, they make the words
// common across the whole catalog: a request for "the PowerPoint server's
// version" could no longer tell get_server_info by "server". So the index
// leaves out of domain descriptions the terms that more than
// boilerplateShare of the descriptions hold, once there are
// minBoilerplateDomains descriptions to tell by.
// How it was chosen: docs/search.md, "The tuned values".
const (
	boilerplateShare      = 0.5
	minBoilerplateDomains = 4
)

// dropBoilerplate removes from the domain description terms of analyses
// (of docs) the terms of boilerplate.
func dropBoilerplate(docs []Document, analyses []docAnalysis) {
	descriptions := make(map[string][]string) // text -> its terms
	for i := range docs {
		if _, ok := descriptions[docs[i].DomainDescription]; !ok {
			descriptions[docs[i].DomainDescription] = analyses[i].terms[fieldDomainDescription]
		}
	}
	if len(descriptions) < minBoilerplateDomains || isOff("boilerplate") {
		return
	}
	holding := make(map[string]int) // term -> descriptions that hold it
	for _, ts := range descriptions {
		for _, t := range distinctStrings(ts) {
			holding[t]++
		}
	}
	limit := boilerplateShare * float64(len(descriptions))
	for text, ts := range descriptions {
		kept := make([]string, 0, len(ts))
		for _, t := range ts {
			if float64(holding[t]) <= limit {
				kept = append(kept, t)
			}
		}
		descriptions[text] = kept
	}
	for i := range docs {
		analyses[i].terms[fieldDomainDescription] = descriptions[docs[i].DomainDescription]
	}
}

func distinctStrings(ss []string) []string {
	seen := make(map[string]bool, len(ss))
	out := ss[:0:0]
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
