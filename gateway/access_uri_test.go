package gateway

import (
	"context"
	"errors"
	"net/url"
	"path"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// secretFiles is an upstream like a file server: one template over a
// directory, and two of the files in it listed as resources. Reading a
// URI resolves it as a file server does (the path decoded, dot segments
// removed), so that equivalent spellings of a URI name the same file.
func secretFiles() *mcp.Server {
	files := map[string]string{"/srv/secret/key": "THE SECRET KEY", "/srv/public/readme": "public readme"}
	s := mcp.NewServer(&mcp.Implementation{Name: "files"}, nil)
	read := func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		u, err := url.Parse(req.Params.URI)
		if err != nil {
			return nil, mcp.ResourceNotFoundError(req.Params.URI)
		}
		body, ok := files[path.Clean(u.Path)]
		if !ok {
			return nil, mcp.ResourceNotFoundError(req.Params.URI)
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: body}}}, nil
	}
	s.AddResource(&mcp.Resource{URI: "file:///srv/secret/key", Name: "key"}, read)
	s.AddResource(&mcp.Resource{URI: "file:///srv/public/readme", Name: "readme"}, read)
	s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "file:///srv/{+path}", Name: "any file"}, read)
	return s
}

// rpcError is the JSON-RPC error in err, with the URI it names taken out
// of its message, so that two errors about different URIs compare.
func rpcError(t *testing.T, err error, uri string) (int64, string) {
	t.Helper()
	var wire *jsonrpc.Error
	if !errors.As(err, &wire) {
		t.Fatalf("reading %s: %v is not a JSON-RPC error", uri, err)
	}
	return wire.Code, strings.ReplaceAll(wire.Message, uri, "<uri>")
}

// TestHiddenResourceReadsLikeAMissingOne: in passthrough mode, a
// resources/read of a resource the rule hides (here by a deny glob, its
// URI covered by a template the rule shows) must fail exactly as a read of
// a URI that no resource or template has: the same code, the same message.
func TestHiddenResourceReadsLikeAMissingOne(t *testing.T) {
	rule := AccessRule{Deny: []string{"files.resource:file:///srv/secret/*"}}
	tg := startGatewayWith(t, Config{Mode: ModePassthrough, Upstreams: []*UpstreamConfig{httpUpstream("files", serveHTTP(t, secretFiles()).URL)}},
		Options{Access: []AccessRule{rule}})
	for _, version := range []string{"2025-11-25", StatelessRevision} {
		t.Run(version, func(t *testing.T) {
			cs := connectView(t, tg, 0, version)
			defer cs.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			const hidden = "file:///srv/secret/key"
			_, hiddenErr := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: hidden})
			if hiddenErr == nil {
				t.Fatalf("the hidden %s was read", hidden)
			}
			hc, hm := rpcError(t, hiddenErr, hidden)
			// Missing: a URI no template covers (the SDK answers), and one
			// the template covers that the upstream does not have.
			for _, missing := range []string{"nothing:///srv/secret/key", "file:///srv/public/nothing"} {
				_, missingErr := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: missing})
				if missingErr == nil {
					t.Fatalf("the missing %s was read", missing)
				}
				mc, mm := rpcError(t, missingErr, missing)
				if hc != mc || hm != mm {
					t.Errorf("a hidden resource reads unlike a missing one:\n hidden  %s: code %d, %q\n missing %s: code %d, %q", hidden, hc, hm, missing, mc, mm)
				}
			}
		})
	}
}

// policyServer is an upstream with a tool, a prompt, a resource and a
// template each, for a rule to hide.
