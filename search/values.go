package search

import (
	"regexp"
	"strings"
)

// valueKinds describes the values of a query in the words tools use for
// them, as locators do for paths and URLs (see splitLocators): an
// arithmetic expression ("17.5% of 48,230 divided by 12") is one to
// calculate, a pair of decimal degrees ("40.7580, -73.9855") a position by
// its coordinates. The values' own words stay in the query.
func valueKinds(text string) string {
	var out []string
	if arithmetic.MatchString(text) {
		out = append(out, "calculate math expression")
	}
	if coordinates.MatchString(text) {
		out = append(out, "coordinates latitude longitude")
	}
	return strings.Join(out, " ")
}

var (
	// arithmetic matches a number, an operator and a number. A bare "-"
	// or "/" must have spaces around it, since "1-5", "10/12" and
	// "1995-08-14" are ranges and dates.
	arithmetic = regexp.MustCompile(`(?i)\d[\d,.]*(?:\s+[-+*/×÷^x]\s+|\s*[+*×÷^]\s*|\s*%\s*of\s+|\s+percent\s+of\s+|\s+(?:plus|minus|times|divided\s+by|multiplied\s+by)\s+)\(?-?\d`)
	// coordinates matches a latitude and a longitude in decimal degrees,
	// with two decimals at least.
	coordinates = regexp.MustCompile(`(?:^|[^\d.])-?\d{1,2}\.\d{2,}\s*,\s*-?\d{1,3}\.\d{2,}\b`)
)
