package gateway

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// billingServer has tools that say "invoice" where their users say "bill".
func billingServer(t *testing.T) string {
	s := mcp.NewServer(&mcp.Implementation{Name: "ledger"}, nil)
	addTextTool(s, "create_invoice", "Create an invoice for a customer.", "ok")
	addTextTool(s, "list_customers", "List the customers.", "ok")
	addTextTool(s, "send_reminder", "Send a payment reminder by email.", "ok")
	return serveHTTP(t, s).URL
}

// An operator's explained search says why each result ranks where it
// does; a model's search of the same query says nothing of it.
func TestDiscoverExplained(t *testing.T) {
	tg := startGateway(t, Config{Upstreams: []*UpstreamConfig{{Name: "ledger", Connection: Connection{URL: billingServer(t)}}}})
	explained, isError := tg.DiscoverExplained(context.Background(), map[string]any{"query": "create an invoice for ACME"})
	if isError {
		t.Fatal(explained)
	}
	var answer struct {
		Results []struct {
			Name        string          `json:"name"`
			Score       float64         `json:"score"`
			Explanation json.RawMessage `json:"explanation"`
		} `json:"results"`
		Reading struct {
			Words []struct {
				Word string `json:"word"`
			} `json:"words"`
		} `json:"reading"`
	}
	if err := json.Unmarshal([]byte(explained), &answer); err != nil {
		t.Fatal(err)
	}
	if len(answer.Results) == 0 || answer.Results[0].Name != "ledger.create_invoice" || answer.Results[0].Score <= 0 {
		t.Fatalf("results %s", explained)
	}
	if e := string(answer.Results[0].Explanation); !strings.Contains(e, `"bm25f"`) || !strings.Contains(e, `"invoic"`) || !strings.Contains(e, `"name"`) {
		t.Errorf("explanation %s", e)
	}
	if len(answer.Reading.Words) == 0 {
		t.Errorf("no reading: %s", explained)
	}
	plain, _ := tg.Discover(context.Background(), map[string]any{"query": "create an invoice for ACME"})
	model := text(tg.call(t, DiscoverToolsName, map[string]any{"query": "create an invoice for ACME"}))
	for _, answer := range []string{plain, model} {
		if strings.Contains(answer, "explanation") || strings.Contains(answer, "reading") || strings.Contains(answer, "score") {
			t.Errorf("an unexplained search explains: %s", answer)
		}
	}
	// A model cannot ask for explanations.
	if res := tg.call(t, DiscoverToolsName, map[string]any{"query": "invoice", "explain": true}); !res.IsError {
		t.Errorf("discover_tools took explain: %s", text(res))
	}
}

// The operator's synonyms, inline or from a file, reach the index: a
// request that says "bill" finds the tool that says "invoice".
func TestOperatorSynonymsReachTheIndex(t *testing.T) {
	url := billingServer(t)
	file := filepath.Join(t.TempDir(), "synonyms.txt")
	if err := os.WriteFile(file, []byte("# our words\nbill invoice\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, search := range map[string]*SearchConfig{
		"none":   nil,
		"inline": {Synonyms: []string{"invoice bill"}},
		"file":   {SynonymFiles: []string{file}},
	} {
		tg := startGateway(t, Config{Upstreams: []*UpstreamConfig{{Name: "ledger", Connection: Connection{URL: url}}}, Search: search})
		got := callJSON[searchResponse](t, tg, DiscoverToolsName, map[string]any{"query": "draw up a bill for ACME"})
		found := len(got.Results) > 0 && got.Results[0].Name == "ledger.create_invoice"
		if found != (search != nil) {
			t.Errorf("%s: results %+v", name, got.Results)
		}
	}
}

func TestSearchConfigErrors(t *testing.T) {
	for want, search := range map[string]*SearchConfig{
		`synonyms "invoice": a group of synonyms needs two words`: {Synonyms: []string{"invoice"}},
		`synonyms "e-mail mail": "e-mail" is not one word`:        {Synonyms: []string{"e-mail mail"}},
		`synonyms "c# csharp": a group is one line of words`:      {Synonyms: []string{"c# csharp"}},
		"search: synonyms file: open /nonexistent/synonyms.txt":   {SynonymFiles: []string{"/nonexistent/synonyms.txt"}},
	} {
		cfg := Config{Search: search}
		if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate() = %v, want %q", err, want)
		}
	}
	bad := filepath.Join(t.TempDir(), "bad.txt")
	if err := os.WriteFile(bad, []byte("ok fine\nlonely\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := Config{Search: &SearchConfig{SynonymFiles: []string{bad}}}
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "bad.txt: line 2: a group of synonyms needs two words") {
		t.Errorf("Validate() = %v", err)
	}
}
