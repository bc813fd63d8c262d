package gateway

import (
	"context"
	"net/url"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestHiddenResourceIsNotReadThroughATemplate: a resource the access rule
// hides cannot be read through a template the rule shows whose pattern
// covers its URI, by any spelling of it, whether the rule hides it by a
// deny glob or by leaving it out of its allow globs; URIs the template
// covers that the rule does not hide are read as before.
func TestHiddenResourceIsNotReadThroughATemplate(t *testing.T) {
	files := mcp.NewServer(&mcp.Implementation{Name: "files"}, &mcp.ServerOptions{
		CompletionHandler: func(context.Context, *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
			return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{"public/readme", "secret/key", "public/other"}, Total: 3}}, nil
		},
	})
	// It reads a URI as a file server does: its path decoded, dot segments
	// removed, so that other spellings of a URI name the same file.
	read := func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		u, err := url.Parse(req.Params.URI)
		if err != nil {
			return nil, mcp.ResourceNotFoundError(req.Params.URI)
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: "contents of file://" + path.Clean(u.Path)}}}, nil
	}
	files.AddResource(&mcp.Resource{URI: "file:///srv/secret/key", Name: "key"}, read)
	files.AddResource(&mcp.Resource{URI: "file:///srv/public/readme", Name: "readme"}, read)
	files.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "file:///srv/{+path}", Name: "any file"}, read)
	for _, tc := range []struct {
		name string
		rule AccessRule
	}{
		{"deny glob", AccessRule{Deny: []string{"files.resource:file:///srv/secret/*"}}},
		{"allow globs", AccessRule{Allow: []string{"files.resource:file:///srv/public/*", "files.template:*"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tg := startGatewayWith(t, Config{Mode: ModePassthrough, Upstreams: []*UpstreamConfig{httpUpstream("files", serveHTTP(t, files).URL)}},
				Options{Access: []AccessRule{tc.rule}})
			// Nor by another spelling of its URI that RFC 3986 calls
			// equivalent (a percent-encoded letter, a dot segment).
			for _, uri := range []string{"file:///srv/secret/key", "file:///srv/%73ecret/key", "file:///srv/public/../secret/key", "file:///srv/./secret/key"} {
				if res, err := tg.client.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri}); err == nil {
					t.Errorf("the hidden file:///srv/secret/key was read through the template as %s: %v", uri, res.Contents[0].Text)
				}
			}
			// Completing the template's path offers no value that makes the
			// hidden URI.
			res, err := tg.client.Complete(context.Background(), &mcp.CompleteParams{
				Ref:      &mcp.CompleteReference{Type: "ref/resource", URI: "file:///srv/{+path}"},
				Argument: mcp.CompleteParamsArgument{Name: "path", Value: ""},
			})
			if err != nil || !slices.Equal(res.Completion.Values, []string{"public/readme", "public/other"}) || res.Completion.Total != 2 {
				t.Errorf("completing the template's path: %v %+v; want public/readme and public/other, total 2", err, res)
			}
			for _, uri := range []string{"file:///srv/public/readme", "file:///srv/public/other"} {
				res, err := tg.client.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
				if err != nil || len(res.Contents) != 1 || !strings.Contains(res.Contents[0].Text, uri) {
					t.Errorf("reading %s: %v %v", uri, err, res)
				}
			}
		})
	}
}
