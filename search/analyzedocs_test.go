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
		"terms":       {one.terms, several.terms},
		"postings":    {one.postings, several.postings},
		"fields":      {one.postingFields, several.postingFields},
		"name words":  {one.docNameWords, several.docNameWords},
		"param words": {one.docParamWords, several.docParamWords},
		"domains":     {one.docDomain, several.docDomain},
		"meanings":    {one.meaning, several.meaning},
		"stems":       {one.stems.m, several.stems.m},
	} {
		if !reflect.DeepEqual(pair[0], pair[1]) {
			t.Errorf("%s differ between one goroutine and several", name)
		}
	}
	for i, s := range signals {
		if !reflect.DeepEqual(one.signals[i], several.signals[i]) {
			t.Errorf("signal %s: its facts differ between one goroutine and several", s.name())
		}
	}
	if len(one.terms) == 0 || (one.meaning == nil && !leanBuild) {
		t.Fatal("empty index")
	}
}
