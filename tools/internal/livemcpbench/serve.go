package livemcpbench

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Handler serves every server over streamable HTTP at /<domain>/mcp.
func Handler(servers []*Server) http.Handler {
	mux := http.NewServeMux()
	for _, s := range servers {
		srv := NewMCPServer(s)
		mux.Handle("/"+s.Domain+"/mcp", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	}
	return mux
}

// Caddyfile is a Caddyfile for a gateway listening at listen in front of
// every server: over HTTP at httpAddr (as Handler serves them), or, if
// httpAddr is empty, as stdio upstreams running exe -stdio <domain>. The
// upstreams' descriptions come from the servers themselves (their MCP
// instructions).
func Caddyfile(servers []*Server, listen, httpAddr, exe, toolsPath string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "{\n\tadmin off\n\tpersist_config off\n}\n\nhttp://%s {\n\tmcp_gateway {\n", listen)
	for _, s := range servers {
		if httpAddr != "" {
			fmt.Fprintf(&b, "\t\tupstream %s http://%s/%s/mcp\n", s.Domain, httpAddr, s.Domain)
			continue
		}
		args := ""
		if toolsPath != "" {
			args = " -tools " + quote(toolsPath)
		}
		fmt.Fprintf(&b, "\t\tupstream %s {\n\t\t\tcommand %s%s -stdio %s\n\t\t}\n", s.Domain, quote(exe), args, s.Domain)
	}
	b.WriteString("\t}\n}\n")
	return b.String()
}

func quote(s string) string {
	if strings.ContainsAny(s, " \t\"{}") {
		return fmt.Sprintf("%q", s)
	}
	return s
}
