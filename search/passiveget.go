package search

import "regexp"

// The passive "get". In "which labels get used most" or "the messages
// that got routed to Slack", "get" is an auxiliary: the labels are used,
// the messages were routed. It says nothing of the job, and as a main
// word it matches every tool named get_...: get_label over list_label.
// The passive get rule weighs it passiveGetWeight, in tools' text and in
// their names, when a past participle follows it and a subject comes
// before it: "get archived messages", first in a request, asks to get
// them.
const passiveGetWeight = 0

// passiveGet matches "get" (or "gets", "got", "gotten", "getting")
// followed by a past participle: a word in -ed, or one of the common
// irregular ones.
var passiveGet = regexp.MustCompile(`(?i)\b(?:get|gets|got|gotten|getting)\s+(?:\w+ed|done|seen|made|taken|given|written|chosen|sent|built|left|lost|paid|sold|told|found|held|kept|shown|known|brought|bought|thrown|drawn|broken|stolen|forgotten|hidden|driven|hit|shut|cut)\b`)

// passiveGetRule weighs a passive "get" as passiveGetWeight.
var passiveGetRule = wordRule{
	name: "passive get",
	pick: func(ix *Index, text string) func(string) bool {
		if !hasPassiveGet(text) {
			return nil
		}
		get := ix.stems.stem("get")
		return func(stem string) bool { return stem == get }
	},
	weight: passiveGetWeight, nameWeight: passiveGetWeight, nameScale: 1,
}

// hasPassiveGet reports whether text holds a passive "get": one that a past
// participle follows and that is not the request's first word past the
// leading ones (see firstRequestWord).
func hasPassiveGet(text string) bool {
	for _, loc := range passiveGet.FindAllStringIndex(text, -1) {
		before := Words(text[:loc[0]])
		if firstRequestWord(before) < len(before) {
			return true
		}
	}
	return false
}
