package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/caddy-mcp/mcp-gateway/tools/internal/testenv"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Users of the tests' basic_auth: <user>-password is each one's password
// (bcrypt hashes of cost 10, made with `caddy hash-password`).
const testUsers = `		alice $2a$10$FdDm19K2rBBhLSSrHzWeLexkuLTiRjdD6bOdpaUV56eJ7OAn1rFd6
		bob $2a$10$/2LrKKHCikY4sDBSYMVOGe0S9uS8nGHWT10WxEg/xNL8xk4eLaLpa
		carol $2a$10$oB5RePV3y.c1qWD.afXZC.IeqHbFNHDJpaScrPWQVsRqR02U4xsZW`

// userHeaders are the basic_auth credentials of one of testUsers.
func userHeaders(user string) map[string]string {
	return map[string]string{"Authorization": basic(user, user+"-password")}
}

// startEchoFlavour runs examples/echo-server in a flavour (see its doc)
// over HTTP and returns its URL.
func startEchoFlavour(t *testing.T, flavour string) string {
	t.Helper()
	bin := testenv.Build(t, "./examples/echo-server", "echo-server")
	port := testenv.FreePort(t)
	p := testenv.Start(t, "", nil, bin, "-http", fmt.Sprintf("127.0.0.1:%d", port), "-flavour", flavour)
	testenv.WaitPort(t, port, p)
	return fmt.Sprintf("http://127.0.0.1:%d/mcp", port)
}

// accessItemsCaddyfile serves two gateways over the same upstreams and
// policies: /mcp in passthrough mode, /meta in meta mode. alice (an
// admin) may use everything; carol a single tool of crm; everyone else
// (bob) everything but docs and vault, denied by globs that are not
// "<domain>.*". docs has resources and prompts but no tools; crm has all
// three; vault is down (nothing listens at its URL).
func accessItemsCaddyfile(docs, crm, vault string) string {
	gateway := func(path, name, mode string) string {
		return fmt.Sprintf(`	mcp_gateway %s {
		name %s
		mode %s
		access @admins {
			allow *
		}
		access @carol {
			allow crm.people_search
		}
		access {
			deny docs* vault*
		}
		upstream docs %s {
			description "Internal handbook"
		}
		upstream crm %s {
			description "People of the company"
		}
		upstream vault %s {
			description "Secrets vault"
		}
	}
`, path, name, mode, docs, crm, vault)
	}
	return `{
	admin 127.0.0.1:{ADMIN_PORT}
	persist_config off
}
:{HTTP_PORT} {
	bind 127.0.0.1
	basic_auth {
` + testUsers + `
	}
	@admins expression {http.auth.user.id} == "alice"
	@carol expression {http.auth.user.id} == "carol"
` + gateway("/mcp", "passthrough", "passthrough") + gateway("/meta", "meta", "meta") + `}
`
}

// bobMustNotSee are words of the items and domains hidden from bob: the
// docs upstream (its domain, descriptions, URIs, prompt) and vault.
var bobMustNotSee = []string{"docs", "handbook", "Handbook", "vault", "Secrets"}

// mustNotMention fails the test if text holds any of words.
func mustNotMention(t *testing.T, what, text string, words []string) {
	t.Helper()
	for _, w := range words {
		if strings.Contains(text, w) {
			t.Errorf("%s reveals %q: %s", what, w, text)
		}
	}
}

// listed is the values of field in a list result's items (items under
// key: "resources", "resourceTemplates", "prompts", "tools").
func listed(t *testing.T, a wireAnswer, key, field string) []string {
	t.Helper()
	if a.Status != http.StatusOK || a.Error != nil {
		t.Errorf("listing %s: %d %s", key, a.Status, a.Body)
		return nil
	}
	var r map[string]json.RawMessage
	var items []map[string]any
	if err := json.Unmarshal(a.Result, &r); err != nil {
		t.Fatalf("decoding %s: %v", a.Result, err)
	}
	if err := json.Unmarshal(r[key], &items); err != nil {
		t.Fatalf("decoding %s of %s: %v", key, a.Result, err)
	}
	out := []string{}
	for _, item := range items {
		out = append(out, fmt.Sprint(item[field]))
	}
	slices.Sort(out)
	return out
}

// answersLikeUnknown sends method with hidden's params and with unknown's
// (the same request naming something that does not exist) and fails
// unless both answers are the same once each names what it asked for as
// "<name>": a hidden item must answer exactly like a missing one.
func answersLikeUnknown(t *testing.T, c *wireClient, method string, hidden, unknown map[string]any, hiddenName, unknownName string) {
	t.Helper()
	normal := func(a wireAnswer, name string) string {
		b, _ := json.Marshal(struct {
			Status int
			Result json.RawMessage
			Error  *wireError
		}{a.Status, a.Result, a.Error})
		return strings.ReplaceAll(string(b), name, "<name>")
	}
	h := normal(c.request(method, hidden), hiddenName)
	ua := c.request(method, unknown)
	if ua.Error == nil {
		t.Errorf("%s of unknown %s did not fail: %d %s", method, unknownName, ua.Status, ua.Body)
	}
	u := normal(ua, unknownName)
	if h != u {
		t.Errorf("%s of hidden %s answers\n  %s\nbut of unknown %s\n  %s", method, hiddenName, h, unknownName, u)
	}
}

// TestAccessRulesCoverEveryItem reproduces the first finding of the attack
// on the edge (passthrough resources and prompts escaped the policy) through
// a real Caddy, in both protocol eras: with `deny docs*` (not docs.*), bob
// learns nothing of docs by any listing, read, get, completion or
// subscription, and a hidden URI, prompt or domain answers exactly like an
// unknown one; carol, allowed one tool of crm, gets none of crm's resources
// and prompts; the down upstream vault, hidden from bob, is named neither in
// his instructions (initialize and server/discover) nor in discover_tools'
// health note. alice, allowed everything, sees all of it, so that what bob
// does not see is hidden, not missing.
func TestAccessRulesCoverEveryItem(t *testing.T) {
	docs, crm := startEchoFlavour(t, "docs"), startEchoFlavour(t, "crm")
	vault := fmt.Sprintf("http://127.0.0.1:%d/mcp", testenv.FreePort(t))
	caddy := testenv.StartCaddy(t, accessItemsCaddyfile(docs, crm, vault))
	passthrough, meta := caddy.URL("/mcp"), caddy.URL("/meta")

	for _, rev := range wireRevisions {
		t.Run(rev, func(t *testing.T) {
			// alice: the control. Everything exists and works.
			alice := connectWire(t, passthrough, userHeaders("alice"), rev)
			if got := listed(t, alice.request("resources/list", nil), "resources", "uri"); !slices.Contains(got, "docs://guide/intro") {
				t.Errorf("alice's resources: %v", got)
			}
			if got := listed(t, alice.request("prompts/list", nil), "prompts", "name"); !slices.Contains(got, "docs_summarize") {
				t.Errorf("alice's prompts: %v", got)
			}
			if a := alice.request("resources/read", map[string]any{"uri": "docs://pages/intro"}); !strings.Contains(string(a.Result), "start here") {
				t.Errorf("alice reading docs://pages/intro: %s", a.Body)
			}
			if !strings.Contains(alice.instructions, "vault") {
				t.Errorf("alice's instructions do not name the vault upstream: %q", alice.instructions)
			}

			bob := connectWire(t, passthrough, userHeaders("bob"), rev)
			mustNotMention(t, "bob's instructions", bob.instructions, bobMustNotSee)
			if !strings.Contains(bob.instructions, "crm") {
				t.Errorf("bob's instructions do not name crm: %q", bob.instructions)
			}
			for _, l := range []struct{ method, key, field, want string }{
				{"resources/list", "resources", "uri", "crm://people/directory"},
				{"resources/templates/list", "resourceTemplates", "uriTemplate", "crm://people/{id}"},
				{"prompts/list", "prompts", "name", "crm_draft_email"},
				{"tools/list", "tools", "name", "crm_people_search"},
			} {
				a := bob.request(l.method, nil)
				if got := listed(t, a, l.key, l.field); !slices.Contains(got, l.want) {
					t.Errorf("bob's %s: %v, want %s among them", l.method, got, l.want)
				}
				mustNotMention(t, "bob's "+l.method, string(a.Result), bobMustNotSee)
			}
			if a := bob.request("resources/read", map[string]any{"uri": "crm://people/1"}); !strings.Contains(string(a.Result), "Ada Lovelace") {
				t.Errorf("bob reading crm://people/1: %s", a.Body)
			}
			for _, uri := range []string{"docs://guide/intro", "docs://pages/intro", "docs://pages/security"} {
				unknown := strings.Replace(uri, "docs://", "nothing://", 1)
				answersLikeUnknown(t, bob, "resources/read", map[string]any{"uri": uri}, map[string]any{"uri": unknown}, uri, unknown)
			}
			answersLikeUnknown(t, bob, "prompts/get",
				map[string]any{"name": "docs_summarize", "arguments": map[string]any{"topic": "intro"}},
				map[string]any{"name": "nothing_summarize", "arguments": map[string]any{"topic": "intro"}}, "docs_summarize", "nothing_summarize")
			answersLikeUnknown(t, bob, "completion/complete",
				map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": "docs_summarize"}, "argument": map[string]any{"name": "topic", "value": "in"}},
				map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": "nothing_summarize"}, "argument": map[string]any{"name": "topic", "value": "in"}},
				"docs_summarize", "nothing_summarize")
			answersLikeUnknown(t, bob, "completion/complete",
				map[string]any{"ref": map[string]any{"type": "ref/resource", "uri": "docs://pages/{name}"}, "argument": map[string]any{"name": "name", "value": "in"}},
				map[string]any{"ref": map[string]any{"type": "ref/resource", "uri": "nothing://pages/{name}"}, "argument": map[string]any{"name": "name", "value": "in"}},
				"docs://pages/{name}", "nothing://pages/{name}")
			if rev < statelessRevision { // subscriptions belong to sessions
				answersLikeUnknown(t, bob, "resources/subscribe", map[string]any{"uri": "docs://guide/intro"}, map[string]any{"uri": "nothing://guide/intro"}, "docs://guide/intro", "nothing://guide/intro")
			}

			// carol may use crm.people_search and nothing else of crm.
			carol := connectWire(t, passthrough, userHeaders("carol"), rev)
			mustNotMention(t, "carol's instructions", carol.instructions, bobMustNotSee)
			if got := listed(t, carol.request("tools/list", nil), "tools", "name"); !slices.Equal(got, []string{"crm_people_search"}) {
				t.Errorf("carol's tools: %v, want only crm_people_search", got)
			}
			for _, l := range []struct{ method, key, field string }{
				{"resources/list", "resources", "uri"},
				{"resources/templates/list", "resourceTemplates", "uriTemplate"},
				{"prompts/list", "prompts", "name"},
			} {
				if got := listed(t, carol.request(l.method, nil), l.key, l.field); len(got) != 0 {
					t.Errorf("carol's %s: %v, want none", l.method, got)
				}
			}
			if text, isError := carol.request("tools/call", map[string]any{"name": "crm_people_search", "arguments": map[string]any{"name": "ada"}}).toolText(t); isError || text != "1 found" {
				t.Errorf("carol's people_search: %q (error %v)", text, isError)
			}
			for _, uri := range []string{"crm://people/directory", "crm://people/1"} {
				unknown := strings.Replace(uri, "crm://", "nothing://", 1)
				answersLikeUnknown(t, carol, "resources/read", map[string]any{"uri": uri}, map[string]any{"uri": unknown}, uri, unknown)
			}
			answersLikeUnknown(t, carol, "prompts/get",
				map[string]any{"name": "crm_draft_email", "arguments": map[string]any{"to": "Ada"}},
				map[string]any{"name": "nothing_draft_email", "arguments": map[string]any{"to": "Ada"}}, "crm_draft_email", "nothing_draft_email")

			// Meta mode: the domain table, its health note, and what an
			// unknown domain's error suggests.
			metaBob := connectWire(t, meta, userHeaders("bob"), rev)
			mustNotMention(t, "bob's instructions in meta mode", metaBob.instructions, bobMustNotSee)
			toc, _ := metaBob.request("tools/call", map[string]any{"name": "discover_tools", "arguments": map[string]any{}}).toolText(t)
			mustNotMention(t, "bob's discover_tools", toc, bobMustNotSee)
			if !strings.Contains(toc, `"crm"`) {
				t.Errorf("bob's discover_tools does not list crm: %s", toc)
			}
			for _, probe := range []string{"vault", "docs", "vaul", "doc"} {
				msg, _ := metaBob.request("tools/call", map[string]any{"name": "discover_tools", "arguments": map[string]any{"domain": probe}}).toolText(t)
				unknown, _ := metaBob.request("tools/call", map[string]any{"name": "discover_tools", "arguments": map[string]any{"domain": "zzz"}}).toolText(t)
				if strings.ReplaceAll(msg, "'"+probe+"'", "'<name>'") != strings.ReplaceAll(unknown, "'zzz'", "'<name>'") {
					t.Errorf("bob's discover_tools(domain=%q):\n  %s\nbut for an unknown domain:\n  %s", probe, msg, unknown)
				}
			}
			metaAlice := connectWire(t, meta, userHeaders("alice"), rev)
			if toc, _ := metaAlice.request("tools/call", map[string]any{"name": "discover_tools", "arguments": map[string]any{}}).toolText(t); !strings.Contains(toc, "Temporarily unavailable: vault") {
				t.Errorf("alice's discover_tools has no health note for vault: %s", toc)
			}
		})
	}

	// The go-sdk client, which speaks 2026-07-28, hears the same
	// instructions on server/discover.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, url := range []string{passthrough, meta} {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "access-items"}, nil).Connect(ctx,
			&mcp.StreamableClientTransport{Endpoint: url, HTTPClient: authClient(userHeaders("bob"))}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if v := cs.InitializeResult().ProtocolVersion; v != statelessRevision {
			t.Errorf("the go-sdk client speaks %s, want %s", v, statelessRevision)
		}
		mustNotMention(t, "bob's instructions to the go-sdk client at "+url, cs.InitializeResult().Instructions, bobMustNotSee)
		cs.Close()
	}
}

// authClient is an HTTP client that sends headers with every request.
func authClient(headers map[string]string) *http.Client {
	return &http.Client{Transport: headerTransport(headers)}
}

type headerTransport map[string]string

func (h headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	for k, v := range h {
		req.Header.Set(k, v)
	}
	return http.DefaultTransport.RoundTrip(req)
}
