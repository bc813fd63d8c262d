package search

import (
	"regexp"
	"strings"
)

// valueKinds describes the values of a query in the words tools use for
// them, as locators do for paths and URLs (see splitLocators): an
// arithmetic expression ("17.5% of 48,230 divided by 12") is one to
// calculate, a pair of decimal degrees ("40.7580, -73.9855") a position by
// its coordinates, and a number of five digits or more, bare or after a
// short prefix ("story 39012345", "NCT04280705"), an id: one item, by the
// id a tool takes. A commit hash ("commit 4f2a9c1") is a revision, as git
// tools name the commit they take. A calendar date ("2023-11-15", "March
// 15", "12 May") is a date, and two are a date range ("from March 1 to
// March 15"): tools that take one name their parameters so. A range of numbers ("between 1
// and 100") is one of integers, or of decimals when a bound has a decimal
// point ("between 2.5 and 7.5"). A stretch of the past ("over the last two
// years", "since 2020") asks for history: tools that give a series over
// time say "historical" or "history". An email address ("lee@acme.com")
// is an email, as tools that take one call it. The values' own words stay in the query,
// but for the numbers of a range (see withoutNumberRanges).
func valueKinds(text string) string {
	var out []string
	if pastSpan.MatchString(text) {
		out = append(out, "history historical")
	}
	if emailAddress.MatchString(text) {
		out = append(out, "email")
	}
	if !strings.ContainsAny(text, "0123456789") {
		return strings.Join(out, " ")
	}
	if arithmetic.MatchString(text) {
		out = append(out, "calculate math expression")
	}
	if coordinates.MatchString(text) {
		out = append(out, "coordinates latitude longitude")
	}
	if identifier.MatchString(text) {
		out = append(out, "id")
	}
	for _, h := range hexHash.FindAllString(text, -1) {
		if strings.ContainsAny(h, "abcdef") && strings.ContainsAny(h, "0123456789") {
			out = append(out, "revision")
			break
		}
	}
	if m := numberRange.FindStringSubmatch(text); m != nil && m[3] == "" {
		if strings.Contains(m[1]+m[2], ".") {
			out = append(out, "decimal float")
		} else {
			out = append(out, "integer")
		}
	}
	for _, m := range spanOfUnits.FindAllStringSubmatch(text, -1) {
		out = append(out, strings.ToLower(m[1])+" range")
	}
	switch n := len(date.FindAllStringIndex(text, 2)); {
	case n == 1:
		out = append(out, "date")
	case n > 1:
		out = append(out, "date range")
	}
	return strings.Join(out, " ")
}

var (
	// emailAddress matches an email address: "lee@acme.com".
	emailAddress = regexp.MustCompile(`[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b`)
	// pastSpan matches a stretch of the past: "over the last two
	// years", "the past 8 quarters", "since 2020", "from 2019 to 2024".
	pastSpan = regexp.MustCompile(`(?i)\b(?:(?:last|past|previous)\s+(?:\d+|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|few|several)\s+(?:days?|weeks?|months?|years?|quarters?|decades?)|since\s+(?:19|20)\d\d|from\s+(?:19|20)\d\d\s+(?:to|through|until|till|-)\s+(?:19|20)\d\d)\b`)
	// arithmetic matches a number, an operator and a number. A bare "-"
	// or "/" must have spaces around it, since "1-5", "10/12" and
	// "1995-08-14" are ranges and dates.
	arithmetic = regexp.MustCompile(`(?i)\d[\d,.]*(?:\s+[-+*/×÷^x]\s+|\s*[+*×÷^]\s*|\s*%\s*of\s+|\s+percent\s+of\s+|\s+(?:plus|minus|times|divided\s+by|multiplied\s+by)\s+)\(?-?\d`)
	// coordinates matches a latitude and a longitude in decimal degrees,
	// with two decimals at least.
	coordinates = regexp.MustCompile(`(?:^|[^\d.])-?\d{1,2}\.\d{2,}\s*,\s*-?\d{1,3}\.\d{2,}\b`)
	// identifier matches a whole token of five digits or more, after at
	// most four letters: shorter numbers are counts, places and years
	// ("top 5", "slide 2", "2024").
	identifier = regexp.MustCompile(`(?:^|[\s#(])[A-Za-z]{0,4}\d{5,}(?:$|[\s.,;:?!)])`)
	// hexHash matches what may be a commit hash, short or full: seven to
	// forty hexadecimal digits, a whole token (not a part of a UUID);
	// valueKinds asks for both letters and digits in it.
	hexHash = regexp.MustCompile(`(?:^|[\s(])[0-9a-f]{7,40}(?:$|[\s.,;:?!)])`)
	// numberRange matches "between" two numbers, and the unit of the
	// second if it has one ("9pm", "5 am", "10%", "20kg"): then they are
	// times or quantities, not numbers to pick from.
	numberRange = regexp.MustCompile(`(?i)\bbetween\s+(-?\d+(?:\.\d+)?)\s+and\s+(-?\d+(?:\.\d+)?)(\s*(?:am|pm)\b|%|[a-z]+)?`)
	// spanOfUnits matches a span of numbered lines, rows, pages, slides
	// or columns ("lines 10 to 40", "pages 3-5"): a range of them, which
	// tools that take one call so.
	spanOfUnits = regexp.MustCompile(`(?i)\b(line|row|page|slide|column)s?\s+\d+\s*(?:-|–|to|through|thru|until)\s*\d+\b`)
	// date matches a calendar date: year first with dashes or slashes
	// ("2023-11-15", "2024/03/01"), day and month by number with a year
	// ("15/11/2023"), or a month by name beside a day ("March 15",
	// "Sept. 3rd", "12 May", "1st of June").
	date = regexp.MustCompile(`(?i)\b(?:\d{4}[-/]\d{1,2}[-/]\d{1,2}|\d{1,2}/\d{1,2}/\d{2,4}|` +
		month + `\.? \d{1,2}(?:st|nd|rd|th)?\b|\d{1,2}(?:st|nd|rd|th)? (?:of )?` + month + `\b)`)
)

// withoutNumberRanges takes the numbers out of the ranges of numbers in
// text ("a random number between 1 and 100" keeps "between and"): what
// they are counts (see valueKinds), and their digits would match a
// tool's "default 1" as a word. Ranges of times or quantities ("between
// 9am and 5pm") stay.
func withoutNumberRanges(text string) string {
	if !strings.ContainsAny(text, "0123456789") {
		return text
	}
	return numberRange.ReplaceAllStringFunc(text, func(r string) string {
		if numberRange.FindStringSubmatch(r)[3] != "" {
			return r
		}
		return "between and"
	})
}

// month matches a month's name, whole or cut short ("Sept").
const month = `(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)`

// splitQuoted takes the quoted spans out of a query: a title, a name or
// text to type ("rename task 3 to 'Write unit tests'") says what to act
// on, not what to do, as the names in paths do (see splitLocators). It
// returns the query without them and their text.
func splitQuoted(text string) (rest, quotes string) {
	if !strings.ContainsAny(text, "'\"‘“") {
		return text, ""
	}
	var spans []string
	rest = quotedSpan.ReplaceAllStringFunc(text, func(m string) string {
		sub := quotedSpan.FindStringSubmatch(m)
		for _, q := range sub[2:] {
			if q != "" {
				spans = append(spans, q)
			}
		}
		return sub[1]
	})
	return rest, strings.Join(spans, " ")
}

// splitSearchedFor takes out of a request to search a place it names
// ("search the web for ...", "search my notes for ...") what it searches
// for: the terms to search with, which say what to act on, as quoted text
// does, while the place and the verb say which tool ("search my notes for
// meeting minutes" wants search_notes, not a tool about meetings). It
// returns the request without them and their text. A request that names
// no place ("search for hotels in Rome") keeps its words: they are all it
// says of the tool.
func splitSearchedFor(text string) (rest, terms string) {
	m := searchedFor.FindStringSubmatchIndex(text)
	if m == nil {
		return text, ""
	}
	return text[:m[2]], text[m[2]:m[3]]
}

// splitColonContent takes out of a request what follows its colon when
// that is the content to act on rather than another command: "Draw a
// flowchart of our refund process: request, review, approve or reject",
// "Work out my Bazi: born 12 May 1990 at 8am", "Add to Anna's entry: she
// moved to Denver". What comes before the colon says what to do; the
// content, like quoted text, says what to do it with, and its words
// ("request", "approve") are no request for tools named for them. A part
// after the colon that begins with a verb ("I've checked it: approve
// task 3") is the command itself, and a request with less than two words
// before its colon ("Note: ...") says nothing before it; both keep their
// words. It returns the request without the content, and the content.
func splitColonContent(text string) (rest, content string) {
	i := strings.Index(text, ": ")
	if i < 0 {
		return text, ""
	}
	before, after := text[:i], text[i+len(": "):]
	if len(strings.Fields(before)) < 2 {
		return text, ""
	}
	words := Words(after)
	if j := firstRequestWord(words); j < len(words) && (changes(words[j]) || readingWords[words[j]]) {
		return text, ""
	}
	return before, after
}

// splitSaidContent takes out of a request what it asks to say, to the
// end: "comment on issue #318 saying the fix is deployed", "a note that
// says the client approved". Like the content after a colon, it says what
// to write, not what to do: "fix" there is no request for a tool named
// for fixing. Its words stay the request's own in a question ("what are
// guests saying about it" asks what others say), after a form of "be",
// and in a request to remove something, where what it says picks the
// thing ("remove the link saying Alice works at Acme").
func splitSaidContent(text string) (rest, said string) {
	if !strings.Contains(text, "say") {
		return text, ""
	}
	m := saidContent.FindStringSubmatchIndex(text)
	if m == nil || (m[2] >= 0 && beingWords[strings.ToLower(text[m[2]:m[3]])]) {
		return text, ""
	}
	before := Words(text[:m[4]])
	if len(before) == 0 {
		return text, ""
	}
	if i := firstRequestWord(before); i < len(before) && questionWords[before[i]] {
		return text, ""
	}
	if requestEffect(text) == effectUndo {
		return text, ""
	}
	return strings.TrimSpace(text[:m[4]]), text[m[6]:m[7]]
}

// questionWords begin a question: "what are guests saying about it" asks
// what others say.
var questionWords = wordSet("what which who how why when where are is was were do does did")

// saidContent matches "saying", "that says" or "to say" and what follows,
// with the word before.
var saidContent = regexp.MustCompile(`(?i)(?:\b(\w+)\s+)?\b(saying|that says|which says|to say)\s+(.+)$`)

// beingWords are the forms of "be" before a progressive "saying".
var beingWords = wordSet("am is are was were be been being s re")

// searchedFor matches "search" or "look" with the place searched, one or
// two words after a determiner ("the web", "my notes", "our shared
// drive"), and "for" what it searches for, to the end.
var searchedFor = regexp.MustCompile(`(?i)\b(?:search|searching|look|looking)\s+(?:through\s+|in\s+)?(?:the|my|our|a|an|this|your)\s+\w+(?:\s+\w+)?\s+for\s+(.+)$`)

// quotedSpan matches a span in quotes that opens at the start, after a
// space or parenthesis, or inside JSON or a key=value pair (after a
// bracket, brace, colon, comma or "="), so that the apostrophe of
// "Anna's" opens none.
var quotedSpan = regexp.MustCompile(`(^|[\s(\[{:,=])(?:'([^']+)'|"([^"]+)"|‘([^’]+)’|“([^”]+)”)`)
