package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/caddy-mcp/mcp-gateway/tools/internal/testenv"
)

// rootsCaddyfile fronts the official filesystem server, allowed one
// folder, with a session of its own per client; extra is more of the
// upstream's options.
const rootsCaddyfile = `{
	admin off
	persist_config off
}
:{HTTP_PORT} {
	bind 127.0.0.1
	mcp_gateway /mcp* {
		mode passthrough
		upstream files {
			command node {NODE_DIR}/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js %s
			session per_client
			allow read_* list_*
			%s
		}
	}
}
`

// TestClientRootsDoNotWidenAnUpstream: the filesystem server replaces the
// folders it was started with by the roots its client gives. A remote
// client that declares roots naming another folder of the gateway's host
// must not get that folder read: without relay_roots the gateway neither
// tells the upstream the client has roots nor asks the client for them.
// With relay_roots (an upstream that runs where its clients' files are),
// the client's roots reach it.
func TestClientRootsDoNotWidenAnUpstream(t *testing.T) {
	allowed, outside := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(allowed, "notes.txt"), []byte("inside the allowed folder"), 0o600); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(outside, "secret.txt")
	if err := os.WriteFile(secret, []byte("outside-secret-4711"), 0o600); err != nil {
		t.Fatal(err)
	}
	connect := func(t *testing.T, extra string) *testenv.TSClient {
		caddy := testenv.StartCaddy(t, fmt.Sprintf(rootsCaddyfile, allowed, extra))
		client := testenv.StartTSClient(t)
		client.MustDo(map[string]any{"op": "connect", "url": caddy.URL("/mcp"),
			"roots": []map[string]any{{"uri": "file://" + outside, "name": "the client's folder"}}})
		return client
	}
	// allowedDirectories asks the upstream which folders it serves, until
	// it names want or a few seconds pass: the server fetches its client's
	// roots in the background once its session is initialized.
	allowedDirectories := func(t *testing.T, client *testenv.TSClient, want string) (string, float64) {
		var text string
		var asked float64
		deadline := time.Now().Add(3 * time.Second)
		for {
			r := client.MustDo(map[string]any{"op": "callTool", "name": "files_list_allowed_directories", "arguments": map[string]any{}})
			n, _ := r["roots"].(float64)
			asked += n
			text = fmt.Sprint(r["result"])
			if strings.Contains(text, want) || time.Now().After(deadline) {
				return text, asked
			}
			time.Sleep(200 * time.Millisecond)
		}
	}

	t.Run("without relay_roots", func(t *testing.T) {
		client := connect(t, "")
		dirs, asked := allowedDirectories(t, client, outside)
		if strings.Contains(dirs, outside) || !strings.Contains(dirs, allowed) {
			t.Errorf("the upstream serves %s; want %s only, not the client's root %s", dirs, allowed, outside)
		}
		if asked != 0 {
			t.Errorf("the client was asked for its roots %v times; want never", asked)
		}
		r := client.MustDo(map[string]any{"op": "callTool", "name": "files_read_text_file", "arguments": map[string]any{"path": secret}})
		if strings.Contains(fmt.Sprint(r), "outside-secret-4711") {
			t.Errorf("a file outside the upstream's folder was read through the client's roots: %v", r)
		}
		r = client.MustDo(map[string]any{"op": "callTool", "name": "files_read_text_file", "arguments": map[string]any{"path": filepath.Join(allowed, "notes.txt")}})
		if !strings.Contains(fmt.Sprint(r), "inside the allowed folder") {
			t.Errorf("reading inside the upstream's folder = %v, want the file", r)
		}
	})

	// The server asks for its roots once, as its session starts, which
	// is during the client's first call; the answer may come after that
	// call has ended, and must still reach the server.
	t.Run("with relay_roots", func(t *testing.T) {
		client := connect(t, "relay_roots")
		dirs, asked := allowedDirectories(t, client, outside)
		if asked == 0 {
			t.Errorf("with relay_roots the client was never asked for its roots")
		}
		if !strings.Contains(dirs, outside) {
			t.Errorf("with relay_roots the upstream serves %s; want the client's root %s", dirs, outside)
		}
	})
}
