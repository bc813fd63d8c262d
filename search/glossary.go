package search

import (
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// maxHanWord is the longest Chinese word, in characters, the glossary
// holds and the segmenter tries.
const maxHanWord = 6

// glossarySource returns the Chinese-English glossary, unpacked: lines of
// "headword<TAB>English gloss", sorted by headword. Nil when the build has
// none (see UseGlossary).
var glossarySource func() []byte

// UseGlossary gives the search a Chinese-English glossary: text returns
// lines of "headword<TAB>English gloss" (English words, space-separated),
// sorted by headword. With it, Chinese text in tools and requests is
// matched through its English too (englishGloss), and runs of Chinese
// characters are cut into the glossary's words. text is called once, by
// the first index or query that holds Chinese; nil from it means no
// glossary. Call UseGlossary from an init function, before any index is
// built: package search/cedict does, for the builds that import it.
func UseGlossary(text func() []byte) { glossarySource = text }

// hasGlossary says whether the build has a glossary (without unpacking it).
func hasGlossary() bool { return glossarySource != nil }

// glossary is the glossary unpacked, on first use: only catalogs and
// queries with Chinese text pay its ~5 MB.
var glossary struct {
	once  sync.Once
	text  string
	lines []uint32 // offset of each line in text
}

func loadGlossary() {
	if glossarySource == nil {
		return // the build has none: no glossary then
	}
	data := glossarySource()
	if data == nil {
		return
	}
	text := string(data)
	glossary.text, glossary.lines = text, lineStarts(text)
}

// lineStarts returns the offset of each line of text (a last line without
// a newline included).
func lineStarts(text string) []uint32 {
	starts := make([]uint32, 0, strings.Count(text, "\n")+1)
	for off := 0; off < len(text); {
		starts = append(starts, uint32(off))
		nl := strings.IndexByte(text[off:], '\n')
		if nl < 0 {
			break
		}
		off += nl + 1
	}
	return starts
}

// glossOf returns the glossary's English for a Chinese word.
func glossOf(word string) (string, bool) {
	glossary.once.Do(loadGlossary)
	text, lines := glossary.text, glossary.lines
	head := func(i int) (string, string) {
		line := text[lines[i]:]
		if nl := strings.IndexByte(line, '\n'); nl >= 0 {
			line = line[:nl]
		}
		h, g, _ := strings.Cut(line, "\t")
		return h, g
	}
	i := sort.Search(len(lines), func(i int) bool {
		h, _ := head(i)
		return h >= word
	})
	if i == len(lines) {
		return "", false
	}
	if h, g := head(i); h == word {
		return g, true
	}
	return "", false
}

// englishGloss glosses the Chinese in text in English, word by word,
// for the index and queries to match across the two languages: "获取卡牌
// 的图片" gives "to gain playing card of picture". Runs of Han characters
// are cut into words by forward maximum matching against the glossary;
// characters it does not know are skipped. Text without Han characters
// gives "".
func englishGloss(text string) string {
	if isASCII(text) || !strings.ContainsFunc(text, isHan) || isOff("gloss") {
		return ""
	}
	var out strings.Builder
	runes := []rune(text)
	for i := 0; i < len(runes); {
		if !isHan(runes[i]) {
			i++
			continue
		}
		n := 1
		for n < maxHanWord && i+n < len(runes) && isHan(runes[i+n]) {
			n++
		}
		matched := 1
		for l := n; l >= 1; l-- {
			if g, ok := glossOf(string(runes[i : i+l])); ok {
				if out.Len() > 0 {
					out.WriteByte(' ')
				}
				out.WriteString(g)
				matched = l
				break
			}
		}
		i += matched
	}
	return out.String()
}

// UnglossedChinese reports whether text holds Chinese that the search
// matches by its characters only, the build having no glossary to read it
// in English (see UseGlossary): a request in English does not find a tool
// by such a title or description.
func UnglossedChinese(text string) bool {
	return !hasGlossary() && !isASCII(text) && strings.ContainsFunc(text, isHan)
}

func isHan(r rune) bool {
	return r >= utf8.RuneSelf && unicode.Is(unicode.Han, r)
}
