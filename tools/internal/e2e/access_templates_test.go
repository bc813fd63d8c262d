package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/caddy-mcp/mcp-gateway/tools/internal/testenv"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestHiddenResourceIsNotReadThroughATemplate, through a real Caddy: the
// crm upstream lists crm://people/directory and has the template
// crm://people/{id}, whose pattern covers the directory's URI too. bob's
// policy hides the directory and shows the template: he reads people by
// id, in both eras, but not the directory, by either route.
func TestHiddenResourceIsNotReadThroughATemplate(t *testing.T) {
	crm := startEchoFlavour(t, "crm")
	caddy := testenv.StartCaddy(t, fmt.Sprintf(`{
	admin off
	persist_config off
}
:{HTTP_PORT} {
	bind 127.0.0.1
	basic_auth {
%s
	}
	mcp_gateway /mcp* {
		mode passthrough
		access {
			deny crm.resource:crm://people/directory
		}
		upstream crm %s
	}
}
`, testUsers, crm))
	for _, revision := range []string{"", testenv.SessionRevision} {
		bob := connectGo(t, caddy.URL("/mcp"), userHeaders("bob"), revision)
		res, err := bob.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "crm://people/1"})
		if err != nil || len(res.Contents) != 1 || res.Contents[0].Text != "Ada Lovelace" {
			t.Errorf("revision %q: bob reading crm://people/1 through the template: %v %v", revision, err, res)
		}
		if res, err := bob.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "crm://people/directory"}); err == nil {
			t.Errorf("revision %q: bob read the hidden crm://people/directory through the template: %v", revision, res.Contents[0].Text)
		} else if strings.Contains(err.Error(), "Lovelace") {
			t.Errorf("revision %q: the refusal shows the directory: %v", revision, err)
		}
	}
}
