package search

import (
	"reflect"
	"runtime"
	"testing"
)

// An index built on several goroutines is the one built on one.
func TestParallelBuildIsTheSequentialOne(t *testing.T) {
	_, docs := generatedDocs(3 * minDocsPerWorker)
	prev := runtime.GOMAXPROCS(1)
	one := NewIndex(docs)
	runtime.GOMAXPROCS(4)
	several := NewIndex(docs)
	runtime.GOMAXPROCS(prev)
	for name, pair := range map[string][2]any{
		"terms":        {one.terms, several.terms},
		"postings":     {one.postings, several.postings},
		"domains":      {one.domainPostings, several.domainPostings},
		"name words":   {one.docNameWords, several.docNameWords},
		"name lengths": {one.docNameLen, several.docNameLen},
		"intents":      {one.docIntent, several.docIntent},
		"effects":      {one.docEffect, several.docEffect},
		"lists":        {one.docLists, several.docLists},
		"makes":        {one.docMakes, several.docMakes},
		"meanings":     {one.meanings, several.meanings},
		"scales":       {one.meaningScales, several.meaningScales},
		"stems":        {one.stems.m, several.stems.m},
	} {
		if !reflect.DeepEqual(pair[0], pair[1]) {
			t.Errorf("%s differ between one goroutine and several", name)
		}
	}
	if len(one.terms) == 0 || len(one.meanings) == 0 {
		t.Fatal("empty index")
	}
}
