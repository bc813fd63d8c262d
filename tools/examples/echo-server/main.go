// Command echo-server is a small MCP server for trying the gateway's
// security settings: it answers with what it received, so you can see
// which headers reach an upstream and who the gateway says is calling.
//
//	echo-server -http 127.0.0.1:9102      streamable HTTP at /mcp
//	echo-server -stdio                    over standard input and output
//
// -flavour picks what it serves:
//
//	echo (the default)  tools: echo (returns its text), headers (returns the
//	                    HTTP headers of the request that carried the call),
//	                    admin_reset (a stand-in for a dangerous tool that
//	                    policies should hide).
//	docs                no tools: resources (docs://guide/intro,
//	                    docs://guide/security), a resource template
//	                    (docs://pages/{name}), a prompt (summarize, whose
//	                    topic argument completes), and subscriptions.
//	crm                 tools: people_search, sleep (waits the given
//	                    milliseconds, at most 10,000); a resource
//	                    (crm://people/directory), a resource template
//	                    (crm://people/{id}), a prompt (draft_email).
//
// The docs and crm flavours are an upstream with resources and prompts but
// no tools, and one with all three, for testing access rules over every
// kind of item and fairness between callers of a slow tool.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	addr := flag.String("http", "127.0.0.1:9102", "listen address; the MCP endpoint is /mcp")
	stdio := flag.Bool("stdio", false, "serve over standard input and output instead of HTTP")
	flavour := flag.String("flavour", "echo", "what to serve: echo, docs or crm")
	flag.Parse()
	s, err := newFlavour(*flavour)
	if err != nil {
		fmt.Fprintln(os.Stderr, "echo-server:", err)
		os.Exit(2)
	}
	if *stdio {
		if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
			log.Fatal(err)
		}
		return
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	log.Printf("echo-server (%s) at http://%s/mcp", *flavour, *addr)
	log.Fatal(http.ListenAndServe(*addr, mux))
}

// newFlavour is the server of one flavour (see the package doc).
func newFlavour(flavour string) (*mcp.Server, error) {
	switch flavour {
	case "echo":
		return newServer(), nil
	case "docs":
		return newDocsServer(), nil
	case "crm":
		return newCRMServer(), nil
	}
	return nil, fmt.Errorf("unknown flavour %q; flavours are echo, docs and crm", flavour)
}

func newServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "echo-server", Version: "1.0.0"}, &mcp.ServerOptions{
		Instructions: "Echoes what it receives: text, and the HTTP headers of each call.",
	})
	s.AddTool(&mcp.Tool{
		Name:        "echo",
		Description: "Return the given text unchanged.",
		InputSchema: map[string]any{"type": "object", "properties": map[string]any{"text": map[string]any{"type": "string"}}, "required": []string{"text"}},
	}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var args struct{ Text string }
		if err := json.Unmarshal(req.Params.Arguments, &args); err != nil {
			return nil, err
		}
		return text(args.Text), nil
	})
	s.AddTool(&mcp.Tool{
		Name:        "headers",
		Description: "Return the HTTP request headers that reached this server with the call, as JSON.",
		InputSchema: map[string]any{"type": "object"},
	}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		got := map[string]string{}
		if req.Extra != nil {
			for k, vs := range req.Extra.Header {
				got[k] = strings.Join(vs, ", ")
			}
		}
		b, _ := json.Marshal(got) // map keys marshal sorted
		return text(string(b)), nil
	})
	s.AddTool(&mcp.Tool{
		Name:        "admin_reset",
		Description: "Reset everything (a stand-in for a dangerous admin tool).",
		InputSchema: map[string]any{"type": "object"},
	}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return text("reset done"), nil
	})
	return s
}

// docsPages are the pages of the docs flavour, by name: docs://guide/<name>
// are resources, and docs://pages/<name> reads any of them through the
// template.
var docsPages = map[string]string{
	"intro":    "Internal handbook: start here.",
	"security": "Internal handbook: incident contacts and escalation.",
}

// newDocsServer serves resources, a resource template, a prompt with a
// completable argument, and subscriptions, but no tools.
func newDocsServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "docs-server", Version: "1.0.0"}, &mcp.ServerOptions{
		Instructions:       "The internal handbook, as resources and a prompt.",
		CompletionHandler:  completeDocs,
		SubscribeHandler:   func(context.Context, *mcp.SubscribeRequest) error { return nil },
		UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
	})
	for _, name := range []string{"intro", "security"} {
		s.AddResource(&mcp.Resource{
			URI:         "docs://guide/" + name,
			Name:        "guide_" + name,
			Description: "Handbook page " + name + ".",
			MIMEType:    "text/plain",
		}, readDocsPage)
	}
	s.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: "docs://pages/{name}",
		Name:        "page",
		Description: "Any handbook page by name.",
		MIMEType:    "text/plain",
	}, readDocsPage)
	s.AddPrompt(&mcp.Prompt{
		Name:        "summarize",
		Description: "Summarize a handbook page.",
		Arguments:   []*mcp.PromptArgument{{Name: "topic", Description: "The page to summarize.", Required: true}},
	}, func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{
			Description: "Summarize a handbook page.",
			Messages:    []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "Summarize the handbook page " + req.Params.Arguments["topic"] + "."}}},
		}, nil
	})
	return s
}

// readDocsPage reads docs://guide/<name> or docs://pages/<name>.
func readDocsPage(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	name := uri[strings.LastIndex(uri, "/")+1:]
	page, ok := docsPages[name]
	if !ok {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/plain", Text: page}}}, nil
}

// completeDocs completes the summarize prompt's topic, and the template's
// page name, with the pages' names.
func completeDocs(_ context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	var values []string
	for name := range docsPages {
		if strings.HasPrefix(name, req.Params.Argument.Value) {
			values = append(values, name)
		}
	}
	return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: values, Total: len(values)}}, nil
}

// maxSleep bounds the sleep tool's wait.
const maxSleep = 10 * time.Second

// newCRMServer serves tools (a quick one and a slow one), a resource, a
// resource template and a prompt.
func newCRMServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "crm-server", Version: "1.0.0"}, &mcp.ServerOptions{
		Instructions: "People of the company: search, contact, and a slow tool for load tests.",
	})
	people := map[string]string{"1": "Ada Lovelace", "2": "Alan Turing"}
	s.AddTool(&mcp.Tool{
		Name:        "people_search",
		Description: "Find people by name.",
		InputSchema: map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}},
	}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var args struct{ Name string }
		_ = json.Unmarshal(req.Params.Arguments, &args)
		var found []string
		for _, p := range people {
			if strings.Contains(strings.ToLower(p), strings.ToLower(args.Name)) {
				found = append(found, p)
			}
		}
		return text(fmt.Sprintf("%d found", len(found))), nil
	})
	s.AddTool(&mcp.Tool{
		Name:        "sleep",
		Description: "Wait the given number of milliseconds (at most 10000), then answer.",
		InputSchema: map[string]any{"type": "object", "properties": map[string]any{"milliseconds": map[string]any{"type": "integer", "minimum": 0, "maximum": maxSleep.Milliseconds()}}, "required": []string{"milliseconds"}},
	}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var args struct{ Milliseconds int64 }
		if err := json.Unmarshal(req.Params.Arguments, &args); err != nil {
			return nil, err
		}
		d := min(max(time.Duration(args.Milliseconds)*time.Millisecond, 0), maxSleep)
		select {
		case <-time.After(d):
			return text(fmt.Sprintf("slept %d ms", d.Milliseconds())), nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	})
	s.AddResource(&mcp.Resource{
		URI:         "crm://people/directory",
		Name:        "directory",
		Description: "Everyone in the company.",
		MIMEType:    "text/plain",
	}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: "Ada Lovelace, Alan Turing"}}}, nil
	})
	s.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: "crm://people/{id}",
		Name:        "person",
		Description: "One person by id.",
		MIMEType:    "text/plain",
	}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		uri := req.Params.URI
		p, ok := people[uri[strings.LastIndex(uri, "/")+1:]]
		if !ok {
			return nil, mcp.ResourceNotFoundError(uri)
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/plain", Text: p}}}, nil
	})
	s.AddPrompt(&mcp.Prompt{
		Name:        "draft_email",
		Description: "Draft an email to a person.",
		Arguments:   []*mcp.PromptArgument{{Name: "to", Required: true}},
	}, func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "Draft an email to " + req.Params.Arguments["to"] + "."}}}}, nil
	})
	return s
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}
