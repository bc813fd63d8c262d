package search

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"
)

// Query limits.
const (
	// DefaultLimit is how many results a query returns unless it says.
	DefaultLimit = 8
	// MaxLimit caps limit:N.
	MaxLimit = 50
	// MaxPage bounds page:N: far past any catalog's last page, and small
	// enough that (page-1) × limit is an offset, not an overflow.
	MaxPage = 100_000
	// MaxRegexLen bounds a /regex/ (RE2 runs in linear time; this bounds
	// its size too).
	MaxRegexLen = 200
	// MaxRegexSteps bounds a /regex/'s compiled program, in instructions:
	// matching costs each character of a text up to a step per
	// instruction, and a short pattern with counted repeats compiles to a
	// long program ("(?:.?.?){1000}" to about 4,000).
	MaxRegexSteps = 1000
)

// Query is a parsed discover_tools query:
//
//	plain words         ranked search
//	+word               the word is required (a word: "+14155550123" is
//	                    a phone number, text like any other)
//	select:a,b          exactly these tools, no ranking
//	/regex/             RE2 over tool names and descriptions (case-insensitive)
//	domain:x group:y    scope to a domain (and a group in it)
//	limit:N page:N      page size (default 8, at most 50) and page (at most 100000)
type Query struct {
	Text     string   // the words to rank by, required ones included
	Required []string // words every result must contain
	Select   []string // tool names, for select:
	Regex    *regexp.Regexp
	// RegexSteps is the length of Regex's compiled program: what matching
	// one character of a text may cost it, in steps.
	RegexSteps int
	Domain     string
	Group      string
	Limit      int // >= 1
	Page       int // >= 1
}

// ParseQuery parses q. Its errors say what is wrong and how to write it.
func ParseQuery(q string) (*Query, error) {
	p := &Query{Limit: DefaultLimit, Page: 1}
	q = strings.TrimSpace(q)
	if rest, ok := cutPrefixFold(q, "select:"); ok {
		for _, name := range strings.FieldsFunc(rest, func(r rune) bool { return r == ',' || r == ' ' }) {
			p.Select = append(p.Select, name)
		}
		if len(p.Select) == 0 {
			return nil, fmt.Errorf("select: needs tool names, e.g. select:memory.read_graph,memory.search_nodes")
		}
		return p, nil
	}
	if strings.HasPrefix(q, "/") {
		end := strings.LastIndexByte(q, '/')
		if end == 0 {
			return nil, fmt.Errorf("a regex query is written /pattern/, e.g. /^github_.*issue/")
		}
		pattern := q[1:end]
		if len(pattern) > MaxRegexLen {
			return nil, fmt.Errorf("the regex is %d characters; the limit is %d", len(pattern), MaxRegexLen)
		}
		re, err := regexp.Compile("(?i)" + pattern)
		if err != nil {
			return nil, fmt.Errorf("bad regex /%s/: %v (the syntax is RE2)", pattern, strings.TrimPrefix(err.Error(), "error parsing regexp: "))
		}
		steps := regexSteps("(?i)" + pattern)
		if steps > MaxRegexSteps {
			return nil, fmt.Errorf("the regex /%s/ is too costly to run (%d steps a character; the limit is %d): write it without large counted repeats like {100}", pattern, steps, MaxRegexSteps)
		}
		p.Regex, p.RegexSteps = re, steps
		q = q[end+1:]
	}
	var text []string
	for _, tok := range strings.Fields(q) {
		key, val, hasColon := strings.Cut(tok, ":")
		switch strings.ToLower(key) {
		case "domain", "group", "limit", "page":
			if !hasColon {
				break
			}
			if err := p.setOption(strings.ToLower(key), val); err != nil {
				return nil, err
			}
			continue
		}
		if w, ok := strings.CutPrefix(tok, "+"); ok && w != "" && !startsWithDigit(w) {
			p.Required = append(p.Required, w)
			text = append(text, w)
			continue
		}
		text = append(text, tok)
	}
	p.Text = strings.Join(text, " ")
	if p.Regex != nil && p.Text != "" {
		return nil, fmt.Errorf("a regex query takes no other words (only domain:, group:, limit:, page:)")
	}
	return p, nil
}

func (p *Query) setOption(key, val string) error {
	switch key {
	case "domain":
		p.Domain = val
	case "group":
		p.Group = val
	case "limit", "page":
		n, err := strconv.Atoi(val)
		if err != nil || n < 1 {
			return fmt.Errorf("%s: takes a positive number, e.g. %s:2", key, key)
		}
		if key == "limit" {
			p.Limit = min(n, MaxLimit)
		} else if n > MaxPage {
			return fmt.Errorf("page: is at most %d; ask for fewer, larger pages (limit:%d)", MaxPage, MaxLimit)
		} else {
			p.Page = n
		}
	}
	return nil
}

// startsWithDigit says whether s begins with an ASCII digit.
func startsWithDigit(s string) bool { return s != "" && s[0] >= '0' && s[0] <= '9' }

func cutPrefixFold(s, prefix string) (string, bool) {
	if len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix) {
		return s[len(prefix):], true
	}
	return s, false
}

// regexSteps is the length of pattern's compiled program (see
// MaxRegexSteps); pattern compiles already.
func regexSteps(pattern string) int {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return 0
	}
	prog, err := syntax.Compile(re.Simplify())
	if err != nil {
		return 0
	}
	return len(prog.Inst)
}
