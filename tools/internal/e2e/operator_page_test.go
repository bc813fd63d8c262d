package e2e

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddy-mcp/mcp-gateway/tools/internal/testenv"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestOperatorPage loads the operator page (mcp_gateway_ui, on a site
// route behind basic_auth) in headless Chromium: it shows the upstreams'
// health, runs the model's search, lists the searches that found nothing,
// shows the catalog by domain and group, and renders (a screenshot with
// the page's colours). Its refresh button works, but not from another
// site, and without the password there is no page.
func TestOperatorPage(t *testing.T) {
	everythingURL, _ := testenv.StartEverythingServer(t)
	caddy := testenv.StartCaddy(t, operationsCaddyfile(everythingURL, filepath.Join(t.TempDir(), "mem.jsonl")))
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "page"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: caddy.URL("/mcp")}, testenv.SessionOptions())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "discover_tools", Arguments: map[string]any{"query": "zzyzx qwertyuiop"}}); err != nil {
		t.Fatal(err)
	}

	page := fmt.Sprintf("http://ops:ops-password@127.0.0.1:%d/ops/", caddy.HTTPPort)
	dom := testenv.Headless(t, page+"?q="+url.QueryEscape("read the knowledge graph"), "--dump-dom")
	for _, want := range []string{
		"MCP gateway <code>ops</code>",
		`<td><code>ev</code></td><td>streamable_http</td><td class="ready">ready</td>`,
		`<td><code>mem</code></td><td>stdio</td><td class="ready">ready</td>`,
		`<table id="results">`, "<code>mem.read_graph</code>",
		"<code>zzyzx qwertyuiop</code></td><td>nothing</td>",
		"<summary><code>mem</code>",
		"Refresh upstreams now",
	} {
		if !strings.Contains(dom, want) {
			t.Errorf("the rendered page lacks %q", want)
		}
	}
	if t.Failed() {
		t.Logf("DOM:\n%s", dom)
	}

	// The page is an operator's: no framing, no scripts, nothing cached,
	// sniffed or told to the sites it might link to.
	req, _ := http.NewRequest("GET", caddy.URL("/ops/"), nil)
	req.SetBasicAuth("ops", "ops-password")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	for header, want := range map[string]string{
		"Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
		"Cache-Control":           "no-store",
		"X-Content-Type-Options":  "nosniff",
		"Referrer-Policy":         "no-referrer",
	} {
		if got := resp.Header.Get(header); got != want {
			t.Errorf("the page's %s is %q, want %q", header, got, want)
		}
	}

	// Refresh: a form post from the page itself works; one from another
	// site does not; no password, no page.
	post := func(origin, user string) int {
		req, _ := http.NewRequest("POST", caddy.URL("/ops/"), strings.NewReader("action=refresh"))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if user != "" {
			req.SetBasicAuth(user, "ops-password")
		}
		if origin != "" {
			req.Header.Set("Origin", origin)
			req.Header.Set("Sec-Fetch-Site", "cross-site")
		}
		client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := post("", "ops"); code != http.StatusSeeOther {
		t.Errorf("refresh: %d, want 303 back to the page", code)
	}
	if code := post("https://evil.example", "ops"); code != http.StatusForbidden {
		t.Errorf("cross-site refresh: %d, want 403", code)
	}
	if code := post("", ""); code != http.StatusUnauthorized {
		t.Errorf("refresh without the password: %d, want 401", code)
	}

	shot := filepath.Join(t.TempDir(), "page.png")
	testenv.Headless(t, page, "--screenshot="+shot, "--window-size=1200,900")
	if dir := os.Getenv("OPERATOR_PAGE_SCREENSHOT_DIR"); dir != "" {
		defer func() { b, _ := os.ReadFile(shot); os.WriteFile(filepath.Join(dir, "operator-page.png"), b, 0o644) }()
	}
	b, err := os.ReadFile(shot)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("the screenshot is not a PNG: %v", err)
	}
	if w, h := img.Bounds().Dx(), img.Bounds().Dy(); w != 1200 || h != 900 {
		t.Errorf("screenshot is %dx%d", w, h)
	}
	// The page's green for "ready" (#11772d) and dark text must show.
	var green, dark int
	for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y++ {
		for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x++ {
			r, g, b, _ := img.At(x, y).RGBA()
			r, g, b = r>>8, g>>8, b>>8
			switch {
			case g > 80 && g > r+40 && g > b+40:
				green++
			case r < 80 && g < 80 && b < 80:
				dark++
			}
		}
	}
	if green < 50 || dark < 2000 {
		t.Errorf("the screenshot shows %d green and %d dark pixels: the page did not render", green, dark)
	}
}
