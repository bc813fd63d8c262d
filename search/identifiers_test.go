package search

import "testing"

func TestSplitIdentifiers(t *testing.T) {
	for in, want := range map[string][2]string{
		"Get the full SQL for usp_GetOrders, usp_UpdateStock and usp_CloseInvoice.": {"Get the full SQL for and", "usp_GetOrders, usp_UpdateStock usp_CloseInvoice."},
		"plot node_cpu_seconds_total for the last hour":                             {"plot for the last hour", "node_cpu_seconds_total"},
		"what does getOrders return":                                                {"what does return", "getOrders"},
		// Brands in camelCase, ids and plain words are no identifiers.
		"sell my iPhone on eBay via GitHub": {"sell my iPhone on eBay via GitHub", ""},
		"close ticket T-101 and _draft_":    {"close ticket T-101 and _draft_", ""},
		"":                                  {"", ""},
	} {
		if rest, names := splitIdentifiers(in); rest != want[0] || names != want[1] {
			t.Errorf("splitIdentifiers(%q) = %q, %q, want %q, %q", in, rest, names, want[0], want[1])
		}
	}
}
