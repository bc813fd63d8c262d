package e2e

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/caddy-mcp/mcp-gateway/tools/internal/testenv"
)

// argumentsCaddyfile fronts two real upstreams whose tools take
// structured arguments: the go-sdk everything server (HTTP; its
// json_schema_2020_12_tool has an enum, a $ref, allOf/anyOf, if/then and
// additionalProperties false) and server-memory (stdio; nested arrays of
// objects, extra properties allowed).
const argumentsCaddyfile = `{
	admin 127.0.0.1:{ADMIN_PORT}
	persist_config off
}
http://127.0.0.1:{HTTP_PORT} {
	mcp_gateway /mcp* {
		upstream everything {EVERYTHING_URL}
		upstream memory {
			command node {NODE_DIR}/node_modules/@modelcontextprotocol/server-memory/dist/index.js
			env MEMORY_FILE_PATH {MEMORY_FILE}
		}
	}
}
`

// argumentError is an invalid_arguments error as execute_tool returns it.
type argumentError struct {
	Error  string          `json:"error"`
	Schema json.RawMessage `json:"schema"`
}

// TestArgumentErrorsThroughCaddy calls real tools through a real Caddy
// with wrong arguments, as a model would, and checks that each error says
// what is wrong where, lists an enum's values, suggests the argument
// name meant, and carries the tool's schema, which is the one
// get_tool_schema gives; and that the call fixed by the error's words
// then succeeds.
func TestArgumentErrorsThroughCaddy(t *testing.T) {
	everythingURL, _ := testenv.StartEverythingServer(t)
	caddy := testenv.StartCaddy(t, strings.NewReplacer(
		"{EVERYTHING_URL}", everythingURL,
		"{MEMORY_FILE}", t.TempDir()+"/memory.jsonl",
	).Replace(argumentsCaddyfile))
	client := testenv.StartTSClient(t)
	client.MustDo(map[string]any{"op": "connect", "url": caddy.URL("/mcp")})

	execute := func(t *testing.T, tool string, args map[string]any) argumentError {
		t.Helper()
		r := call(t, client, "execute_tool", map[string]any{"tool_name": tool, "arguments": args})
		if code := r.Meta["io.github.caddy-mcp/error"]; code != "invalid_arguments" {
			t.Fatalf("%s(%v): error code %v, want invalid_arguments: %s", tool, args, code, r.text())
		}
		r.gatewayError(t) // the contract's {"error": "..."}
		var e argumentError
		if err := json.Unmarshal([]byte(r.text()), &e); err != nil {
			t.Fatalf("%s(%v): %q: %v", tool, args, r.text(), err)
		}
		if strings.Contains(e.Error, "validating ") || strings.Contains(e.Error, "/properties/") {
			t.Errorf("%s(%v): the validator's own text shows: %s", tool, args, e.Error)
		}
		return e
	}
	// sameSchema checks an error's schema is the tool's, as
	// get_tool_schema gives it.
	sameSchema := func(t *testing.T, tool string, e argumentError) {
		t.Helper()
		var described struct {
			Parameters json.RawMessage `json:"parameters"`
		}
		call(t, client, "get_tool_schema", map[string]any{"tool_name": tool}).decode(t, &described)
		var got, want any
		if err := json.Unmarshal(e.Schema, &got); err != nil {
			t.Fatalf("%s: schema %q: %v", tool, e.Schema, err)
		}
		if err := json.Unmarshal(described.Parameters, &want); err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: error's schema\n%s\nget_tool_schema's\n%s", tool, e.Schema, described.Parameters)
		}
	}

	t.Run("nested required properties", func(t *testing.T) {
		e := execute(t, "memory.create_entities", map[string]any{"entities": []any{map[string]any{"name": "Caddy"}}})
		want := `Invalid arguments for 'memory.create_entities': entities[0]: missing required "entityType" and "observations". Its input schema is in "schema".`
		if e.Error != want {
			t.Errorf("error:\n%s\nwant:\n%s", e.Error, want)
		}
		sameSchema(t, "memory.create_entities", e)

		// The call as the error says to fix it.
		fixed := call(t, client, "execute_tool", map[string]any{"tool_name": "memory.create_entities", "arguments": map[string]any{
			"entities": []any{map[string]any{"name": "Caddy", "entityType": "server", "observations": []string{"serves MCP"}}},
		}})
		if fixed.IsError || !strings.Contains(fixed.text(), "Caddy") {
			t.Errorf("the fixed call = %+v", fixed)
		}
	})

	t.Run("several problems, an enum and an unknown name", func(t *testing.T) {
		e := execute(t, "everything.json_schema_2020_12_tool", map[string]any{"name": 5, "contactMethod": "fax", "emial": "a@example.com"})
		want := "Invalid arguments for 'everything.json_schema_2020_12_tool':\n" +
			"- missing required argument \"phone\" or \"email\"\n" +
			"- unknown argument \"emial\" (did you mean \"email\"?)\n" +
			"- contactMethod: must be one of \"phone\", \"email\", got \"fax\"\n" +
			"- name: must be a string, got 5\n" +
			"Its input schema is in \"schema\"."
		if e.Error != want {
			t.Errorf("error:\n%s\nwant:\n%s", e.Error, want)
		}
		sameSchema(t, "everything.json_schema_2020_12_tool", e)
	})

	t.Run("a value in another case", func(t *testing.T) {
		e := execute(t, "everything.json_schema_2020_12_tool", map[string]any{"contactMethod": "Email", "email": "ada@example.com"})
		want := `Invalid arguments for 'everything.json_schema_2020_12_tool': contactMethod: must be one of "phone", "email", got "Email" (did you mean "email"?). Its input schema is in "schema".`
		if e.Error != want {
			t.Errorf("error:\n%s\nwant:\n%s", e.Error, want)
		}
	})

	t.Run("one of two arguments required", func(t *testing.T) {
		e := execute(t, "everything.json_schema_2020_12_tool", map[string]any{"name": "Ada"})
		want := `Invalid arguments for 'everything.json_schema_2020_12_tool': missing required argument "phone" or "email". Its input schema is in "schema".`
		if e.Error != want {
			t.Errorf("error:\n%s\nwant:\n%s", e.Error, want)
		}
		fixed := call(t, client, "execute_tool", map[string]any{"tool_name": "everything.json_schema_2020_12_tool", "arguments": map[string]any{"name": "Ada", "email": "ada@example.com"}})
		if fixed.IsError {
			t.Errorf("the fixed call = %+v", fixed)
		}
	})

	t.Run("a number in quotes", func(t *testing.T) {
		e := execute(t, "everything.test_x_mcp_header", map[string]any{"level": "10"})
		want := `Invalid arguments for 'everything.test_x_mcp_header': level: must be an integer, got "10" (write the number without quotes). Its input schema is in "schema".`
		if e.Error != want {
			t.Errorf("error:\n%s\nwant:\n%s", e.Error, want)
		}
	})

	t.Run("a misspelled name the schema allows", func(t *testing.T) {
		// server-memory's schemas allow properties they do not list:
		// "entity" is no error itself, but the hint tells the model why
		// "entities" is missing.
		e := execute(t, "memory.create_entities", map[string]any{"entity": []any{}})
		want := "Invalid arguments for 'memory.create_entities':\n" +
			"- missing required argument \"entities\"\n" +
			"- \"entity\" is not one of its arguments (did you mean \"entities\"?)\n" +
			"Its input schema is in \"schema\"."
		if e.Error != want {
			t.Errorf("error:\n%s\nwant:\n%s", e.Error, want)
		}
		// An unknown name alone does not fail a call the schema allows.
		if r := call(t, client, "execute_tool", map[string]any{"tool_name": "memory.search_nodes", "arguments": map[string]any{"query": "Caddy", "querry": "x"}}); r.IsError {
			t.Errorf("a valid call with an extra name failed: %s", r.text())
		}
	})

	t.Run("a misspelled meta-tool argument", func(t *testing.T) {
		msg := call(t, client, "execute_tool", map[string]any{"toolName": "memory.read_graph"}).gatewayError(t)
		if !strings.Contains(msg, "execute_tool has no argument 'toolName' (did you mean 'tool_name'?)") {
			t.Errorf("error = %q, want a suggestion", msg)
		}
	})
}
