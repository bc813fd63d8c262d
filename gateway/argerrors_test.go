package gateway

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// realSchemas are input schemas of real MCP tools (see
// testdata/input-schemas.json), by "server/tool".
func realSchemas(t testing.TB) map[string]any {
	t.Helper()
	b, err := os.ReadFile("testdata/input-schemas.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct{ Schemas map[string]any }
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Schemas
}

// schemaTool is a catalog tool with the given input schema: a key of
// realSchemas, or a schema's JSON.
func schemaTool(t testing.TB, schema string) *Tool {
	t.Helper()
	var s any
	if strings.HasPrefix(schema, "{") {
		if err := json.Unmarshal([]byte(schema), &s); err != nil {
			t.Fatal(err)
		}
		return &Tool{Name: "demo.tool", Def: &mcp.Tool{InputSchema: s}}
	}
	s, ok := realSchemas(t)[schema]
	if !ok {
		t.Fatalf("no schema %q in testdata", schema)
	}
	parts := strings.Split(schema, "/")
	return &Tool{Name: QualifiedName(parts[len(parts)-2], parts[len(parts)-1]), Def: &mcp.Tool{InputSchema: s}}
}

// argumentsError is checkArguments' error for a call, decoded; it fails
// the test when the call passes or the error is not the contract's.
func argumentsError(t testing.TB, tool *Tool, args string) invalidArguments {
	t.Helper()
	res := checkArguments(tool, json.RawMessage(args))
	if res == nil {
		t.Fatalf("%s(%s) passed, want an invalid_arguments error", tool.Name, args)
	}
	if !res.IsError || res.Meta[ErrorMetaKey] != string(ErrInvalidArguments) || len(res.Content) != 1 {
		t.Fatalf("%s(%s): not an invalid_arguments error: %+v", tool.Name, args, res)
	}
	var body invalidArguments
	if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &body); err != nil || body.Error == "" {
		t.Fatalf("%s(%s): error body %q is not {\"error\": ...}", tool.Name, args, res.Content[0].(*mcp.TextContent).Text)
	}
	// The error quotes the caller's names and values: a marker the
	// arguments hold themselves is theirs, not the validator's.
	for _, raw := range []string{"validating ", "/properties/", "map[", "<anonymous", "%!"} {
		if strings.Contains(body.Error, raw) && !strings.Contains(args, raw) {
			t.Errorf("%s(%s): the validator's own text %q shows: %s", tool.Name, args, raw, body.Error)
		}
	}
	return body
}

const inline = ` Its input schema is in "schema".`

// TestArgumentErrorsOnRealSchemas checks the whole error text for wrong
// calls to real tools: each problem at its path, in words, with the
// allowed values and close names.
func TestArgumentErrorsOnRealSchemas(t *testing.T) {
	for _, tc := range []struct {
		schema, args, want string
	}{
		{"server-memory/create_entities", `{"entities":[{"name":"a"}]}`,
			`Invalid arguments for 'server-memory.create_entities': entities[0]: missing required "entityType" and "observations".` + inline},
		{"server-memory/create_entities", `{"entities":[{"name":"a","entityType":"x","observations":["o"]},{"name":5,"entityType":"x","observations":"o"}]}`,
			"Invalid arguments for 'server-memory.create_entities':\n- entities[1].name: must be a string, got 5\n- entities[1].observations: must be an array, got \"o\"\n" + inline[1:]},
		// server-memory allows properties it does not list: "entity" is
		// no error of its own, but worth a hint beside the real one.
		{"server-memory/create_entities", `{"entity":[{"name":"a"}]}`,
			"Invalid arguments for 'server-memory.create_entities':\n- missing required argument \"entities\"\n- \"entity\" is not one of its arguments (did you mean \"entities\"?)\n" + inline[1:]},
		{"server-memory/search_nodes", `{"query":42}`,
			`Invalid arguments for 'server-memory.search_nodes': query: must be a string, got 42.` + inline},
		{"server-memory/create_relations", `{"relations":[{"from":"a","to":"b","relationType":"x"},{"from":"a"}]}`,
			`Invalid arguments for 'server-memory.create_relations': relations[1]: missing required "to" and "relationType".` + inline},
		{"go-sdk-everything-server/json_schema_2020_12_tool", `{"name":5,"contactMethod":"fax","emial":"a@b"}`,
			"Invalid arguments for 'go-sdk-everything-server.json_schema_2020_12_tool':\n- missing required argument \"phone\" or \"email\"\n- unknown argument \"emial\" (did you mean \"email\"?)\n- contactMethod: must be one of \"phone\", \"email\", got \"fax\"\n- name: must be a string, got 5\n" + inline[1:]},
		// allOf[anyOf[required phone, required email]]
		{"go-sdk-everything-server/json_schema_2020_12_tool", `{"contactMethod":"phone"}`,
			`Invalid arguments for 'go-sdk-everything-server.json_schema_2020_12_tool': missing required argument "phone" or "email".` + inline},
		// if contactMethod is "phone" then phone is required
		{"go-sdk-everything-server/json_schema_2020_12_tool", `{"contactMethod":"phone","email":"x"}`,
			`Invalid arguments for 'go-sdk-everything-server.json_schema_2020_12_tool': missing required argument "phone".` + inline},
		// $ref to $defs; and without contactMethod "phone", the else
		// branch asks for an email: a rule of the whole, which the
		// validator judges before the properties.
		{"go-sdk-everything-server/json_schema_2020_12_tool", `{"address":{"city":3},"phone":"1"}`,
			"Invalid arguments for 'go-sdk-everything-server.json_schema_2020_12_tool':\n- missing required argument \"email\"\n- address.city: must be a string, got 3\n" + inline[1:]},
		{"go-sdk-everything-server/json_schema_2020_12_tool", `{"address":{"city":3},"email":"a@b"}`,
			`Invalid arguments for 'go-sdk-everything-server.json_schema_2020_12_tool': address.city: must be a string, got 3.` + inline},
		{"go-sdk-everything-server/test_x_mcp_header", `{"level":"ten"}`,
			`Invalid arguments for 'go-sdk-everything-server.test_x_mcp_header': level: must be an integer, got "ten".` + inline},
		{"go-sdk-everything-server/test_x_mcp_header", `{"level":"10"}`,
			`Invalid arguments for 'go-sdk-everything-server.test_x_mcp_header': level: must be an integer, got "10" (write the number without quotes).` + inline},
		// 27 allowed values: 20 listed
		{"livemcpbench/opgg-mcp/lol-summoner-search", `{"game_name":"a","tag_line":"b","region":"kr","lang":"xx"}`,
			"Invalid arguments for 'opgg-mcp.lol-summoner-search':\n" +
				`- lang: must be one of "ar_AE", "cs_CZ", "de_DE", "el_GR", "en_US", "en_AU", "en_GB", "en_PH", "en_SG", "es_AR", "es_ES", "es_MX", "fr_FR", "hu_HU", "it_IT", "ja_JP", "ko_KR", "pl_PL", "pt_BR", "ro_RO" and 7 more, got "xx"` + "\n" +
				`- region: must be one of "KR", "BR", "EUNE", "EUW", "LAN", "LAS", "NA", "OCE", "RU", "TR", "JP", "PH", "SG", "TH", "TW", "VN", "ME", "SEA", got "kr" (did you mean "KR"?)` + "\n" + inline[1:]},
		// pydantic's Optional[Literal[...]]: anyOf [enum, null] as one list
		{"livemcpbench/biomcp/fetch", `{"id":"1","domain":"articles"}`,
			`Invalid arguments for 'biomcp.fetch': domain: must be one of "article", "trial", "variant" or null, got "articles" (did you mean "article"?).` + inline},
		{"livemcpbench/duckduckgo-search/duckduckgo_web_search", `{"query":"x","count":50,"safeSearch":"Strict"}`,
			"Invalid arguments for 'duckduckgo-search.duckduckgo_web_search':\n- count: must be at most 20, got 50\n- safeSearch: must be one of \"strict\", \"moderate\", \"off\", got \"Strict\" (did you mean \"strict\"?)\n" + inline[1:]},
		// a recursive $ref ("#/properties/data/items") two levels down
		{"livemcpbench/mcp-server-chart/generate_treemap_chart", `{"data":[{"name":"a","value":1,"children":[{"name":"b"}]}],"theme":"dark"}`,
			"Invalid arguments for 'mcp-server-chart.generate_treemap_chart':\n- data[0].children[0]: missing required \"value\"\n- theme: must be one of \"default\", \"academy\", got \"dark\"\n" + inline[1:]},
		{"livemcpbench/mcp-server-chart/generate_treemap_chart", `{"data":[]}`,
			`Invalid arguments for 'mcp-server-chart.generate_treemap_chart': data: must have at least 1 item, got 0.` + inline},
		// anyOf [array of enum, null]: the array form is the one meant
		{"livemcpbench/investor/get_cnn_fear_greed_index", `{"indicators":["fear_and_greed","vix"]}`,
			`Invalid arguments for 'investor.get_cnn_fear_greed_index': indicators[1]: must be one of "fear_and_greed", "fear_and_greed_historical", "put_call_options", "market_volatility_vix", "market_volatility_vix_50", "junk_bond_demand", "safe_haven_demand", got "vix" (did you mean "market_volatility_vix" or "market_volatility_vix_50"?).` + inline},
		{"livemcpbench/investor/get_cnn_fear_greed_index", `{"indicators":"fear"}`,
			`Invalid arguments for 'investor.get_cnn_fear_greed_index': indicators: must be an array or null, got "fear".` + inline},
		{"livemcpbench/coin-flip/search-problems", `{"limit":0,"difficulty":"easy","userId":"x"}`,
			"Invalid arguments for 'coin-flip.search-problems':\n- unknown argument \"userId\"; known: \"difficulty\", \"limit\", \"skip\", \"tags\"\n- difficulty: must be one of \"EASY\", \"MEDIUM\", \"HARD\", got \"easy\" (did you mean \"EASY\"?)\n- limit: must be at least 1, got 0\n" + inline[1:]},
		{"livemcpbench/yfmcp/get_price_history", `{"symbol":"A","period":"1week"}`,
			`Invalid arguments for 'yfmcp.get_price_history': period: must be one of "1d", "5d", "1mo", "3mo", "6mo", "1y", "2y", "5y", "10y", "ytd", "max", got "1week".` + inline},
	} {
		t.Run(tc.schema+" "+tc.args, func(t *testing.T) {
			tool := schemaTool(t, tc.schema)
			got := argumentsError(t, tool, tc.args)
			if got.Error != tc.want {
				t.Errorf("error:\n%s\nwant:\n%s", got.Error, tc.want)
			}
			want, _ := json.Marshal(tool.Def.InputSchema)
			if string(got.Schema) != string(want) {
				t.Errorf("schema = %s, want the tool's own, %s", got.Schema, want)
			}
		})
	}
}

// TestArgumentErrorsByKeyword checks the words for each keyword the
// validator reports, on small schemas that each use it.
func TestArgumentErrorsByKeyword(t *testing.T) {
	for _, tc := range []struct {
		name, schema, args, want string
	}{
		{"const", `{"type":"object","properties":{"mode":{"const":"fast"}}}`, `{"mode":"slow"}`,
			`mode: must be "fast", got "slow"`},
		{"oneOf matching two forms", `{"type":"object","properties":{"v":{"oneOf":[{"type":"integer"},{"type":"number"}]}}}`, `{"v":1}`,
			`v: must match exactly one of its allowed forms, but matches several`},
		{"not", `{"type":"object","properties":{"v":{"not":{"type":"string"}}}}`, `{"v":"s"}`,
			`v: must not take the form its schema rules out ("not")`},
		{"dependentRequired", `{"type":"object","properties":{"card":{"type":"string"},"billing":{"type":"string"}},"dependentRequired":{"card":["billing"]}}`, `{"card":"x"}`,
			`"card" needs "billing" too`},
		{"draft-07 dependencies", `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"card":{"type":"string"},"billing":{"type":"string"}},"dependencies":{"card":["billing"]}}`, `{"card":"x"}`,
			`"card" needs "billing" too`},
		{"minLength", `{"type":"object","properties":{"name":{"type":"string","minLength":3}}}`, `{"name":"ab"}`,
			`name: must be at least 3 characters long, got 2`},
		{"maxLength counts characters", `{"type":"object","properties":{"name":{"type":"string","maxLength":2}}}`, `{"name":"été"}`,
			`name: must be at most 2 characters long, got 3`},
		{"pattern", `{"type":"object","properties":{"day":{"type":"string","pattern":"^\\d{4}-\\d{2}-\\d{2}$"}}}`, `{"day":"May 1"}`,
			`day: must be a string matching the pattern "^\\d{4}-\\d{2}-\\d{2}$", got "May 1"`},
		{"exclusiveMinimum", `{"type":"object","properties":{"n":{"type":"number","exclusiveMinimum":0}}}`, `{"n":0}`,
			`n: must be greater than 0, got 0`},
		{"multipleOf", `{"type":"object","properties":{"n":{"type":"number","multipleOf":0.5}}}`, `{"n":0.3}`,
			`n: must be a multiple of 0.5, got 0.3`},
		{"maxItems", `{"type":"object","properties":{"ids":{"type":"array","maxItems":2}}}`, `{"ids":[1,2,3]}`,
			`ids: must have at most 2 items, got 3`},
		{"uniqueItems", `{"type":"object","properties":{"tags":{"type":"array","uniqueItems":true}}}`, `{"tags":["a","a"]}`,
			`tags: must not repeat an item`},
		{"minProperties", `{"type":"object","properties":{"meta":{"type":"object","minProperties":1}}}`, `{"meta":{}}`,
			`meta: must have at least 1 property, got 0`},
		{"type list", `{"type":"object","properties":{"n":{"type":["string","null"]}}}`, `{"n":1}`,
			`n: must be a string or null, got 1`},
		{"object sent as a string of JSON", `{"type":"object","properties":{"filter":{"type":"object"}}}`, `{"filter":"{\"a\":1}"}`,
			`filter: must be an object, got "{\"a\":1}" (pass the object itself, not a string of JSON)`},
		{"boolean sent as a string", `{"type":"object","properties":{"flag":{"type":"boolean"}}}`, `{"flag":"true"}`,
			`flag: must be a boolean, got "true" (write true or false without quotes)`},
		{"patternProperties", `{"type":"object","patternProperties":{"^x-":{"type":"string"}},"additionalProperties":false}`, `{"x-a":1}`,
			`x-a: must be a string, got 1`},
		{"name outside patternProperties", `{"type":"object","patternProperties":{"^x-":{"type":"string"}},"additionalProperties":false}`, `{"y":"s"}`,
			`unknown argument "y"; known: names matching "^x-"`},
		{"additionalProperties schema", `{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":{"type":"integer"}}`, `{"a":"s","b":"t"}`,
			`b: must be an integer, got "t"`},
		{"no arguments at all", `{"type":"object","additionalProperties":false}`, `{"a":1}`,
			`unknown argument "a"; the tool takes no arguments`},
		{"nested unknown property in another case", `{"type":"object","properties":{"filter":{"type":"object","properties":{"user_id":{"type":"string"}},"additionalProperties":false}}}`, `{"filter":{"userId":"u"}}`,
			`filter: unknown property "userId" (did you mean "user_id"?)`},
		{"property schema false", `{"type":"object","properties":{"a":false}}`, `{"a":1}`,
			`a: must be left out: its schema allows no value here`},
		{"key that is not a plain name", `{"type":"object","properties":{"odd key":{"type":"integer"}}}`, `{"odd key":"x"}`,
			`["odd key"]: must be an integer, got "x"`},
		{"names with / and ~", `{"type":"object","properties":{"a/b~c":{"type":"integer"}}}`, `{"a/b~c":"x"}`,
			`["a/b~c"]: must be an integer, got "x"`},
		{"inside allOf", `{"type":"object","allOf":[{"properties":{"a/b":{"type":"object","properties":{"n":{"type":"integer"}}}}}]}`, `{"a/b":{"n":"x"}}`,
			`["a/b"].n: must be an integer, got "x"`},
		{"draft-07 tuple", `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"pt":{"type":"array","items":[{"type":"number"},{"type":"number"}]}}}`, `{"pt":[1,"2"]}`,
			`pt[1]: must be a number, got "2" (write the number without quotes)`},
		{"prefixItems", `{"type":"object","properties":{"pt":{"type":"array","prefixItems":[{"type":"number"}],"items":{"type":"string"}}}}`, `{"pt":[1,2]}`,
			`pt[1]: must be a string, got 2`},
		{"$id and $ref", `{"$id":"https://example.com/tool.json","type":"object","properties":{"n":{"$ref":"#/$defs/n"}},"$defs":{"n":{"type":"integer"}}}`, `{"n":"x"}`,
			`n: must be an integer, got "x"`},
		{"draft-07 $ref hides its siblings", `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"n":{"$ref":"#/definitions/n","required":["never"]}},"definitions":{"n":{"type":"object","required":["id"]}}}`, `{"n":{}}`,
			`n: missing required "id"`},
		{"anyOf of a string or an object", `{"type":"object","properties":{"v":{"anyOf":[{"type":"string"},{"type":"object","required":["a"]}]}}}`, `{"v":{}}`,
			`v: missing required "a"`},
		{"anyOf of required sets", `{"type":"object","properties":{"v":{"anyOf":[{"type":"object","required":["a"]},{"type":"object","required":["b","c"]}]}}}`, `{"v":{}}`,
			`v: missing required "a", or "b" and "c"`},
		{"anyOf of two object forms", `{"type":"object","properties":{"v":{"anyOf":[{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]},{"type":"object","properties":{"b":{"type":"integer"}},"required":["b"]}]}}}`, `{"v":{"a":1,"b":"x"}}`,
			`v: must match one of its 2 allowed forms: (1) a: must be a string, got 1; (2) b: must be an integer, got "x"`},
		{"oneOf of types", `{"type":"object","properties":{"id":{"oneOf":[{"type":"string"},{"type":"integer"}]}}}`, `{"id":1.5}`,
			`id: must be a string or an integer, got 1.5`},
		{"unevaluatedProperties", `{"type":"object","properties":{"a":{"type":"string"}},"unevaluatedProperties":false}`, `{"a":"s","b":"t"}`,
			`the arguments must satisfy its schema's "unevaluatedProperties" keyword`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := argumentsError(t, schemaTool(t, tc.schema), tc.args)
			want := "Invalid arguments for 'demo.tool': " + tc.want + "." + inline
			if got.Error != want {
				t.Errorf("error:\n%s\nwant:\n%s", got.Error, want)
			}
		})
	}
}

// TestArgumentsTheGatewayLetsThrough checks that the checks never refuse
// a call the schema allows, nor judge by a schema the validator cannot
// use.
func TestArgumentsTheGatewayLetsThrough(t *testing.T) {
	for _, tc := range []struct {
		name, schema, args string
	}{
		{"valid call", "server-memory/create_entities", `{"entities":[{"name":"a","entityType":"x","observations":[]}]}`},
		// The schema allows properties it does not list: a name close to
		// a listed one is a hint in an error, never an error of its own.
		{"unknown name the schema allows", "server-memory/search_nodes", `{"query":"x","querry":"y"}`},
		{"contactMethod email with an email", "go-sdk-everything-server/json_schema_2020_12_tool", `{"contactMethod":"email","email":"a@b"}`},
		// draft-04: the validator resolves it but refuses every value.
		{"a dialect the validator does not validate", `{"$schema":"http://json-schema.org/draft-04/schema#","type":"object","properties":{"n":{"type":"integer"}}}`, `{"n":"x"}`},
		// exclusiveMinimum: true (draft-04 style) does not resolve.
		{"a schema that does not resolve", "livemcpbench/pdf-reader-mcp/read_pdf", `{"sources":5}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if res := checkArguments(schemaTool(t, tc.schema), json.RawMessage(tc.args)); res != nil {
				t.Errorf("refused: %s", res.Content[0].(*mcp.TextContent).Text)
			}
		})
	}
}

// TestArgumentErrorBounds checks that an error stays short whatever the
// call: problems listed up to maxListedProblems, a long schema named
// rather than sent, and a huge array explained within the work bounds.
func TestArgumentErrorBounds(t *testing.T) {
	t.Run("many problems", func(t *testing.T) {
		var items []string
		for i := range 20 {
			items = append(items, fmt.Sprintf(`{"name":%d}`, i))
		}
		got := argumentsError(t, schemaTool(t, "server-memory/create_entities"), `{"entities":[`+strings.Join(items, ",")+`]}`)
		lines := strings.Split(got.Error, "\n")
		if len(lines) != maxListedProblems+3 || lines[maxListedProblems+1] != "- …and more: fix these first" {
			t.Errorf("%d lines:\n%s", len(lines), got.Error)
		}
		if !strings.HasPrefix(lines[1], "- entities[0]: missing required") || !strings.HasPrefix(lines[2], "- entities[0].name: must be a string, got 0") {
			t.Errorf("first problems:\n%s", got.Error)
		}
	})
	t.Run("long schema", func(t *testing.T) {
		tool := schemaTool(t, "livemcpbench/mcp-server-chart/generate_bar_chart")
		raw, _ := json.Marshal(tool.Def.InputSchema)
		if len(raw) <= maxInlineSchemaBytes {
			t.Fatalf("the test schema is %d bytes, not longer than %d", len(raw), maxInlineSchemaBytes)
		}
		got := argumentsError(t, tool, `{"data":[]}`)
		want := "Invalid arguments for 'mcp-server-chart.generate_bar_chart': data: must have at least 1 item, got 0. Call get_tool_schema with tool_name 'mcp-server-chart.generate_bar_chart' for its input schema."
		if got.Error != want || got.Schema != nil {
			t.Errorf("error = %q with schema %s, want %q and no schema", got.Error, got.Schema, want)
		}
	})
	t.Run("huge array", func(t *testing.T) {
		valid := `{"name":"a","entityType":"x","observations":[]}`
		args := `{"entities":[` + strings.Repeat(valid+",", 20000) + `{"name":"a"}]}`
		got := argumentsError(t, schemaTool(t, "server-memory/create_entities"), args)
		// Past maxPartValidations the failing item is not looked for: the
		// error says which rule of which argument failed, and no more.
		want := `Invalid arguments for 'server-memory.create_entities': entities: must satisfy its schema's "items" keyword.` + inline
		if got.Error != want {
			t.Errorf("error = %q, want %q", got.Error, want)
		}
	})
	t.Run("large schema", func(t *testing.T) {
		// Too large to resolve parts of within maxResolvedSchemaBytes: the
		// validator's first failure is still placed and worded, down to
		// where an array item would have to be found.
		props := map[string]any{"list": map[string]any{"type": "array", "items": map[string]any{"type": "object", "required": []string{"id"}}}}
		for i := range 1000 {
			props[fmt.Sprintf("option_%d", i)] = map[string]any{"type": "string", "description": "one of a thousand options"}
		}
		schema, _ := json.Marshal(map[string]any{"type": "object", "properties": props})
		if len(schema) <= maxResolvedSchemaBytes {
			t.Fatalf("the test schema is %d bytes, not larger than %d", len(schema), maxResolvedSchemaBytes)
		}
		tool := schemaTool(t, string(schema))
		for args, want := range map[string]string{
			`{"option_7":7}`:         `option_7: must be a string, got 7`,
			`{"list":[{"id":1},{}]}`: `list: must satisfy its schema's "items" keyword`,
		} {
			want = "Invalid arguments for 'demo.tool': " + want + ". Call get_tool_schema with tool_name 'demo.tool' for its input schema."
			if got := argumentsError(t, tool, args); got.Error != want {
				t.Errorf("%s: error = %q, want %q", args, got.Error, want)
			}
		}
	})
	t.Run("long names and values", func(t *testing.T) {
		long := strings.Repeat("x", 5000)
		got := argumentsError(t, schemaTool(t, "go-sdk-everything-server/json_schema_2020_12_tool"), `{"`+long+`":1,"name":"`+long+`","contactMethod":"`+long+`"}`)
		if len(got.Error) > maxErrorText+len("…") {
			t.Errorf("a %d-byte error", len(got.Error))
		}
	})
}

// TestArgumentErrorsThroughExecuteTool checks the error execute_tool
// returns: the contract's {"error": ...} with the schema beside it, and
// the invalid_arguments code.
func TestArgumentErrorsThroughExecuteTool(t *testing.T) {
	tg := startGateway(t, Config{Upstreams: []*UpstreamConfig{httpUpstream("rich", serveHTTP(t, richServer()).URL)}})
	res := tg.call(t, ExecuteToolName, map[string]any{"tool_name": "rich.add", "arguments": map[string]any{"a": "1", "c": 2}})
	if !res.IsError || res.Meta[ErrorMetaKey] != string(ErrInvalidArguments) {
		t.Fatalf("result = %+v, want an invalid_arguments error", res)
	}
	var body struct {
		Error  string         `json:"error"`
		Schema map[string]any `json:"schema"`
	}
	if err := json.Unmarshal([]byte(text(res)), &body); err != nil {
		t.Fatalf("%q: %v", text(res), err)
	}
	want := "Invalid arguments for 'rich.add':\n- missing required argument \"b\"\n- a: must be an integer, got \"1\" (write the number without quotes)\n" + inline[1:]
	if body.Error != want {
		t.Errorf("error:\n%s\nwant:\n%s", body.Error, want)
	}
	if props, _ := body.Schema["properties"].(map[string]any); props["a"] == nil || body.Schema["required"] == nil {
		t.Errorf("schema = %v, want rich.add's", body.Schema)
	}
}

// TestArgumentErrorsNeverShowTheValidatorsText calls each real tool with
// a wrong value of each kind for each argument, and with each argument's
// name misspelled: every error must be in words, with no trace of the
// validator's own text.
func TestArgumentErrorsNeverShowTheValidatorsText(t *testing.T) {
	wrong := []string{`"ten"`, `5.5`, `true`, `null`, `[1,{}]`, `{"x":[1]}`}
	for key := range realSchemas(t) {
		tool := schemaTool(t, key)
		props, _ := tool.Def.InputSchema.(map[string]any)["properties"].(map[string]any)
		calls := []string{`{}`}
		for name := range props {
			n, _ := json.Marshal(name)
			for _, w := range wrong {
				calls = append(calls, fmt.Sprintf(`{%s:%s}`, n, w))
			}
			calls = append(calls, fmt.Sprintf(`{"%s_":1}`, strings.ToUpper(name)))
		}
		for _, args := range calls {
			if res := checkArguments(tool, json.RawMessage(args)); res != nil {
				argumentsError(t, tool, args) // fails on the validator's text
			}
		}
	}
}

// FuzzArgumentErrors throws arbitrary arguments at real tools' schemas:
// the checks must not panic, and an error must be the contract's,
// bounded, and in words.
//
//	go test -fuzz FuzzArgumentErrors ./gateway/
func FuzzArgumentErrors(f *testing.F) {
	schemas := realSchemas(f)
	var keys []string
	for k := range schemas {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for i, args := range []string{`{}`, `{"entities":[{"name":1}]}`, `{"a":{"b":[[[[1]]]]}}`, `{"data":[{"children":[{"children":[{}]}]}]}`, `{"indicators":[null,"x"]}`, `{"lang":"\xff"}`} {
		f.Add(uint8(i), args)
	}
	f.Fuzz(func(t *testing.T, which uint8, args string) {
		if !json.Valid([]byte(args)) || !strings.HasPrefix(strings.TrimSpace(args), "{") {
			return // execute_tool passes on only JSON objects
		}
		tool := schemaTool(t, keys[int(which)%len(keys)])
		res := checkArguments(tool, json.RawMessage(args))
		if res == nil {
			return
		}
		body := argumentsError(t, tool, args)
		if len(body.Error) > maxErrorText+len("…") || len(body.Schema) > maxInlineSchemaBytes {
			t.Errorf("error of %d bytes with a schema of %d", len(body.Error), len(body.Schema))
		}
	})
}

// BenchmarkCheckArguments measures the argument check of a valid call
// (every execute_tool pays it) and of a call with a problem in an array
// item (the error path, which reads the schema and validates parts).
//
//	go test -run '^$' -bench CheckArguments -benchmem ./gateway/
func BenchmarkCheckArguments(b *testing.B) {
	tool := schemaTool(b, "server-memory/create_entities")
	for _, bc := range []struct{ name, args string }{
		{"valid", `{"entities":[{"name":"a","entityType":"x","observations":["o"]},{"name":"b","entityType":"y","observations":[]}]}`},
		{"invalid item", `{"entities":[{"name":"a","entityType":"x","observations":["o"]},{"name":"b"}]}`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			args := json.RawMessage(bc.args)
			for b.Loop() {
				checkArguments(tool, args)
			}
		})
	}
}
