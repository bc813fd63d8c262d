package search

import "testing"

func TestSplitSaidContent(t *testing.T) {
	for in, want := range map[string][2]string{
		"Comment on issue #318 in acme/api saying the fix is deployed.": {"Comment on issue #318 in acme/api", "the fix is deployed."},
		"Post a note on item 5512 that says the client approved":        {"Post a note on item 5512", "the client approved"},
		"Change my message 1234567 to say meeting moved to 3pm":         {"Change my message 1234567", "meeting moved to 3pm"},
		// What others say is asked about, not said.
		"What are guests saying about cleanliness at Hotel Arts?": {"What are guests saying about cleanliness at Hotel Arts?", ""},
		"Remove the link saying Alice works at Acme":              {"Remove the link saying Alice works at Acme", ""},
		"saying hello": {"saying hello", ""},
		"":             {"", ""},
	} {
		if rest, said := splitSaidContent(in); rest != want[0] || said != want[1] {
			t.Errorf("splitSaidContent(%q) = %q, %q, want %q, %q", in, rest, said, want[0], want[1])
		}
	}
}
