package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/caddy-mcp/mcp-gateway/tools/internal/testenv"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The scale-out recipe of docs/scaling.md, run as it is documented: a front
// Caddy and two gateway Caddys from examples/scaleout, in front of the go-sdk
// everything server. Each gateway instance names itself in the
// X-Gateway-Instance response header, which is how these tests see which
// instance answered a request.

// scaleoutHop is one HTTP exchange a client made through the front.
type scaleoutHop struct {
	method   string // the JSON-RPC method of a POST, else the HTTP method
	session  string // the request's Mcp-Session-Id
	instance string // X-Gateway-Instance of the answer ("" if no gateway answered)
	status   int
	route    string // X-Front-Route of the answer: "held" for a retry the front routed by its state
}

// scaleoutRecorder is an http.RoundTripper that notes, for every request,
// which gateway instance answered it.
type scaleoutRecorder struct {
	mu   sync.Mutex
	hops []scaleoutHop
}

func (r *scaleoutRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	method := req.Method
	if req.Method == http.MethodPost && req.Body != nil {
		b, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		req = req.Clone(req.Context())
		req.Body = io.NopCloser(bytes.NewReader(b))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
		var msg struct{ Method string }
		if json.Unmarshal(b, &msg) == nil && msg.Method != "" {
			method = msg.Method
		}
	}
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	r.hops = append(r.hops, scaleoutHop{method, req.Header.Get("Mcp-Session-Id"), resp.Header.Get("X-Gateway-Instance"), resp.StatusCode, resp.Header.Get("X-Front-Route")})
	r.mu.Unlock()
	return resp, nil
}

func (r *scaleoutRecorder) snapshot() []scaleoutHop {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]scaleoutHop(nil), r.hops...)
}

// instances counts the answers per instance, for requests whose method
// is method ("" for all).
func (r *scaleoutRecorder) instances(method string) map[string]int {
	return r.count(func(h scaleoutHop) bool { return method == "" || h.method == method })
}

// sessionInstances counts the answers per instance to requests that
// carried a session ID.
func (r *scaleoutRecorder) sessionInstances() map[string]int {
	return r.count(func(h scaleoutHop) bool { return h.session != "" })
}

func (r *scaleoutRecorder) count(keep func(scaleoutHop) bool) map[string]int {
	out := map[string]int{}
	for _, h := range r.snapshot() {
		if keep(h) {
			out[h.instance]++
		}
	}
	return out
}

// scaleoutClient is one MCP client session through the front.
type scaleoutClient struct {
	cs  *mcp.ClientSession
	rec *scaleoutRecorder
}

func scaleoutConnect(t *testing.T, url string) (*scaleoutClient, error) {
	t.Helper()
	rec := &scaleoutRecorder{}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "scaleout"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: rec}}, testenv.SessionOptions())
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { cs.Close() })
	return &scaleoutClient{cs, rec}, nil
}

// call runs the upstream's test_simple_text through execute_tool and
// returns an error unless it answers its text.
func (c *scaleoutClient) call() error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: "execute_tool", Arguments: map[string]any{"tool_name": "tools.test_simple_text"}})
	if err != nil {
		return err
	}
	if res.IsError || len(res.Content) != 1 {
		return fmt.Errorf("result %+v", res)
	}
	if text, _ := res.Content[0].(*mcp.TextContent); text == nil || text.Text != "This is a simple text response for testing." {
		return fmt.Errorf("result content %+v", res.Content[0])
	}
	return nil
}

// scaleOut is the recipe running: the front's MCP endpoint and the
// gateway instances a and b.
type scaleOut struct {
	front    string
	gateways map[string]*testenv.CaddyInstance
	start    func(name string, port int) *testenv.CaddyInstance // (re)starts an instance
}

// startScaleOut starts the everything server, two gateway instances (a and
// b) from gatewayFile and the front from frontFile.
func startScaleOut(t *testing.T, gatewayFile, frontFile string) *scaleOut {
	t.Helper()
	return startScaleOutWith(t, gatewayFile, frontFile, nil)
}

// startScaleOutWith is startScaleOut with the front's Caddyfile changed by
// edit first (nil: run the file as it is).
func startScaleOutWith(t *testing.T, gatewayFile, frontFile string, edit func(string) string) *scaleOut {
	t.Helper()
	upstream, _ := testenv.StartEverythingServer(t)
	s := &scaleOut{gateways: map[string]*testenv.CaddyInstance{}}
	s.start = func(name string, port int) *testenv.CaddyInstance {
		return testenv.StartCaddyFile(t, gatewayFile, port,
			"GATEWAY_NAME="+name, fmt.Sprint("GATEWAY_PORT=", port), "UPSTREAM_URL="+upstream,
			"GATEWAY_GRACE_PERIOD=1s")
	}
	for _, name := range []string{"a", "b"} {
		s.gateways[name] = s.start(name, testenv.FreePort(t))
	}
	gatewayA := fmt.Sprint("127.0.0.1:", s.gateways["a"].HTTPPort)
	gatewayB := fmt.Sprint("127.0.0.1:", s.gateways["b"].HTTPPort)
	if edit == nil {
		port := testenv.FreePort(t)
		testenv.StartCaddyFile(t, frontFile, port, fmt.Sprint("FRONT_PORT=", port), "GATEWAY_A="+gatewayA, "GATEWAY_B="+gatewayB)
		s.front = fmt.Sprintf("http://127.0.0.1:%d/mcp", port)
		return s
	}
	b, err := os.ReadFile(filepath.Join(testenv.RepoRoot(t), frontFile))
	if err != nil {
		t.Fatal(err)
	}
	front := strings.NewReplacer("{$FRONT_PORT:8080}", "{HTTP_PORT}",
		"{$GATEWAY_A:127.0.0.1:8081}", gatewayA, "{$GATEWAY_B:127.0.0.1:8082}", gatewayB).Replace(edit(string(b)))
	s.front = testenv.StartCaddy(t, front).URL("/mcp")
	return s
}

// scaleoutPost sends one JSON-RPC message and returns the status, the
// answering instance and the body; for a new session, the body is the
// session ID the answer carries.
func scaleoutPost(t *testing.T, url, sessionID, body string) (int, string, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if sessionID != "" {
		req.Header.Set("Mcp-Session-Id", sessionID)
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := http.DefaultClient.Do(req.WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if sessionID == "" && resp.StatusCode == http.StatusOK {
		return resp.StatusCode, resp.Header.Get("X-Gateway-Instance"), resp.Header.Get("Mcp-Session-Id")
	}
	return resp.StatusCode, resp.Header.Get("X-Gateway-Instance"), string(b)
}

const (
	scaleoutInitialize  = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"scaleout","version":"1"}}}`
	scaleoutInitialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	scaleoutPing        = `{"jsonrpc":"2.0","id":2,"method":"ping"}`
	instanceGoneBody    = "session not found: its gateway instance is gone; start a new session"
)

// TestScaleOutStateful runs examples/scaleout/front.Caddyfile in front of
// two instances of examples/scaleout/gateway.Caddyfile: new sessions spread
// over both instances, and every request of a session reaches the instance
// that created it (its session ID starts with that instance's name).
func TestScaleOutStateful(t *testing.T) {
	front := startScaleOut(t, "examples/scaleout/gateway.Caddyfile", "examples/scaleout/front.Caddyfile").front

	const sessions, calls = 8, 3
	var clients []*scaleoutClient
	for range sessions {
		c, err := scaleoutConnect(t, front)
		if err != nil {
			t.Fatal(err)
		}
		clients = append(clients, c)
	}
	// Calls from all sessions at once, interleaved.
	var wg sync.WaitGroup
	errs := make(chan error, sessions*calls)
	for i, c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range calls {
				if err := c.call(); err != nil {
					errs <- fmt.Errorf("session %d, call %d: %v", i, j, err)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}

	perInstance := map[string]int{}
	for i, c := range clients {
		id := c.cs.ID()
		name, _, ok := strings.Cut(id, ".")
		if !ok || (name != "a" && name != "b") {
			t.Errorf("session %d: ID %q does not start with an instance name", i, id)
			continue
		}
		perInstance[name]++
		// Every request that carried the session's ID (the event stream,
		// initialized, the calls) reached its instance.
		if got := c.rec.sessionInstances(); len(got) != 1 || got[name] < calls+2 {
			t.Errorf("session %d (%s): its requests were answered by %v, want all by %s: %+v", i, id, got, name, c.rec.snapshot())
		}
		if got := c.rec.instances("tools/call"); got[name] != calls {
			t.Errorf("session %d: tools/call answered by %v, want %d by %s", i, got, calls, name)
		}
		if got := c.rec.instances("initialize"); got[name] != 1 {
			t.Errorf("session %d: initialize answered by %v, want by %s", i, got, name)
		}
	}
	t.Logf("sessions per instance: %v", perInstance)
	if perInstance["a"] == 0 || perInstance["b"] == 0 {
		t.Errorf("sessions per instance %v: want both instances to have sessions", perInstance)
	}

	// The name in the ID is what routes it: a's session under b's name
	// reaches b, which does not know it.
	raw := strings.TrimPrefix(clients[0].cs.ID(), clients[0].cs.ID()[:2])
	other := map[string]string{"a": "b", "b": "a"}[clients[0].cs.ID()[:1]]
	if status, instance, body := scaleoutPost(t, front, other+"."+raw, scaleoutPing); status != http.StatusNotFound || instance != other {
		t.Errorf("a session ID under the other instance's name: %d from %q (%s), want 404 from %s", status, instance, body, other)
	}
	if status, instance, body := scaleoutPost(t, front, clients[0].cs.ID(), scaleoutPing); status != http.StatusOK || instance != clients[0].cs.ID()[:1] {
		t.Errorf("the session's own ID: %d from %q (%s)", status, instance, body)
	}
}

// TestScaleOutHeaderPolicyAlone shows why the recipe tags session IDs:
// with only `lb_policy header Mcp-Session-Id`, a new session (no header)
// goes where the fallback policy sends it, and its later requests go where
// the hash of its ID points, which is the other instance for about half
// the sessions. Those get 404 on their very first request after
// initialize.
func TestScaleOutHeaderPolicyAlone(t *testing.T) {
	upstream, _ := testenv.StartEverythingServer(t)
	var ports []int
	for _, name := range []string{"a", "b"} {
		g := testenv.StartCaddy(t, `{
	admin off
	persist_config off
}
:{HTTP_PORT} {
	bind 127.0.0.1
	header X-Gateway-Instance `+name+`
	mcp_gateway /mcp* {
		upstream tools `+upstream+`
	}
}
`)
		ports = append(ports, g.HTTPPort)
	}
	frontCaddy := testenv.StartCaddy(t, fmt.Sprintf(`{
	admin off
	persist_config off
}
:{HTTP_PORT} {
	bind 127.0.0.1
	reverse_proxy 127.0.0.1:%d 127.0.0.1:%d {
		lb_policy header Mcp-Session-Id {
			fallback round_robin
		}
	}
}
`, ports[0], ports[1]))
	front := frontCaddy.URL("/mcp")

	const sessions = 16
	var kept, lost int
	for i := range sessions {
		status, creator, id := scaleoutPost(t, front, "", scaleoutInitialize)
		if status != http.StatusOK || id == "" || creator == "" {
			t.Fatalf("initialize %d: %d from %q, session %q", i, status, creator, id)
		}
		// The same ID always lands on the same instance (it is a hash),
		// and only the creator knows it.
		var first string
		for j, msg := range []string{scaleoutInitialized, scaleoutPing, scaleoutPing} {
			status, instance, body := scaleoutPost(t, front, id, msg)
			if j == 0 {
				first = instance
			}
			switch {
			case instance != first:
				t.Errorf("session %d: request %d went to %q, earlier ones to %q", i, j, instance, first)
			case instance == creator && (status < 200 || status > 299):
				t.Errorf("session %d on its creator %s: %d %s", i, creator, status, body)
			case instance != creator && status != http.StatusNotFound:
				t.Errorf("session %d of %s on %q: %d %s, want 404", i, creator, instance, status, body)
			}
		}
		if first == creator {
			kept++
		} else {
			lost++
		}
	}
	t.Logf("lb_policy header Mcp-Session-Id alone: %d of %d sessions reach their creator, %d get 404 at once", kept, sessions, lost)
	if kept == 0 || lost == 0 {
		t.Errorf("%d sessions kept, %d lost: want some of each (the hash picks either instance)", kept, lost)
	}
}

// TestScaleOutInstanceGoesAway takes one gateway instance of the stateful
// recipe away, stopped (SIGTERM: Caddy shuts down within its grace
// period) or crashed (SIGKILL). Either way: sessions on the other instance
// go on; a session of the lost instance gets HTTP 404 from the front, with
// a plain reason (the go-sdk client reports mcp.ErrSessionMissing); and the
// client is served again as soon as it opens a new session, which lands
// on the instance that is left.
func TestScaleOutInstanceGoesAway(t *testing.T) {
	for _, how := range []string{"stopped", "crashed"} {
		t.Run(how, func(t *testing.T) {
			so := startScaleOut(t, "examples/scaleout/gateway.Caddyfile", "examples/scaleout/front.Caddyfile")
			front := so.front

			byInstance := map[string][]*scaleoutClient{}
			for range 6 {
				c, err := scaleoutConnect(t, front)
				if err != nil {
					t.Fatal(err)
				}
				if err := c.call(); err != nil {
					t.Fatal(err)
				}
				byInstance[c.cs.ID()[:1]] = append(byInstance[c.cs.ID()[:1]], c)
			}
			if len(byInstance["a"]) == 0 || len(byInstance["b"]) == 0 {
				t.Fatalf("sessions per instance: a %d, b %d; want both", len(byInstance["a"]), len(byInstance["b"]))
			}

			start := time.Now()
			b := so.gateways["b"]
			if how == "stopped" {
				b.Stop()
			} else {
				syscall.Kill(-b.Cmd.Process.Pid, syscall.SIGKILL)
				<-b.Exited()
			}
			t.Logf("instance b %s in %s", how, time.Since(start).Round(time.Millisecond))
			if took := time.Since(start); took > 5*time.Second {
				t.Errorf("instance b took %s to stop; its grace period is 1s", took)
			}

			// Sessions on a do not notice.
			for i, c := range byInstance["a"] {
				for range 2 {
					if err := c.call(); err != nil {
						t.Errorf("session %d on a after b went away: %v", i, err)
					}
				}
				if got := c.rec.instances("tools/call"); got["a"] != 3 || len(got) != 1 {
					t.Errorf("session %d on a: calls answered by %v", i, got)
				}
			}

			// A session of b: HTTP 404 with a plain reason, from the front.
			for i, c := range byInstance["b"] {
				status, instance, body := scaleoutPost(t, front, c.cs.ID(), scaleoutPing)
				if status != http.StatusNotFound || instance != "" || body != instanceGoneBody {
					t.Errorf("session %d of b, raw request: %d from %q: %q; want 404 from the front: %q", i, status, instance, body, instanceGoneBody)
				}
				err := c.call()
				if !errors.Is(err, mcp.ErrSessionMissing) {
					t.Errorf("session %d of b: call error %v, want one wrapping mcp.ErrSessionMissing", i, err)
				}
				// Recovery: a new session, on a.
				t0 := time.Now()
				n, err := scaleoutConnect(t, front)
				if err != nil {
					t.Fatalf("session %d of b: reconnecting: %v", i, err)
				}
				if err := n.call(); err != nil {
					t.Errorf("session %d of b, new session %s: %v", i, n.cs.ID(), err)
				}
				if got := n.rec.instances(""); !strings.HasPrefix(n.cs.ID(), "a.") || len(got) != 1 || got["a"] == 0 {
					t.Errorf("session %d of b, new session %s answered by %v; want a only", i, n.cs.ID(), got)
				}
				if took := time.Since(t0); took > 2*time.Second {
					t.Errorf("session %d of b: a new session and a call took %s", i, took)
				}
			}

			// b comes back (same name, same address) without its
			// sessions: it answers them 404 itself.
			so.start("b", b.HTTPPort)
			for i, c := range byInstance["b"] {
				if status, instance, body := scaleoutPost(t, front, c.cs.ID(), scaleoutPing); status != http.StatusNotFound || instance != "b" {
					t.Errorf("session %d of b after b came back: %d from %q: %q; want 404 from b", i, status, instance, body)
				}
			}
		})
	}
}

// TestScaleOutWithoutErrorMapping shows why front.Caddyfile maps the
// front's 502 and 503 to 404 for requests with a session ID: without that
// block, a session of a lost instance gets 502 Bad Gateway, which the
// go-sdk client reports as a failed request, not as a session that is
// gone, so it does not know to start a new one.
func TestScaleOutWithoutErrorMapping(t *testing.T) {
	so := startScaleOutWith(t, "examples/scaleout/gateway.Caddyfile", "examples/scaleout/front.Caddyfile", func(c string) string {
		i := strings.Index(c, "\thandle_errors 502 503 {")
		j := strings.Index(c[i:], "\n\t}\n")
		if i < 0 || j < 0 {
			t.Fatal("front.Caddyfile has no handle_errors block")
		}
		return c[:i] + c[i+j+len("\n\t}\n"):]
	})
	var onB *scaleoutClient
	for range 6 {
		c, err := scaleoutConnect(t, so.front)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(c.cs.ID(), "b.") {
			onB = c
		}
	}
	if onB == nil {
		t.Fatal("no session on b")
	}
	so.gateways["b"].Stop()
	if status, _, body := scaleoutPost(t, so.front, onB.cs.ID(), scaleoutPing); status != http.StatusBadGateway {
		t.Errorf("a session of the lost instance, without the error mapping: %d %q, want 502", status, body)
	}
	err := onB.call()
	if err == nil || errors.Is(err, mcp.ErrSessionMissing) || !strings.Contains(err.Error(), "Bad Gateway") {
		t.Errorf("call error %v, want a Bad Gateway error that is not mcp.ErrSessionMissing", err)
	}
}

// TestScaleOutDocsShowTheExamples: docs/scaling.md shows the example
// Caddyfiles exactly as they are.
func TestScaleOutDocsShowTheExamples(t *testing.T) {
	root := testenv.RepoRoot(t)
	doc, err := os.ReadFile(filepath.Join(root, "docs", "scaling.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"front.Caddyfile", "gateway.Caddyfile", "front-stateless.Caddyfile", "gateway-stateless.Caddyfile"} {
		b, err := os.ReadFile(filepath.Join(root, "examples", "scaleout", name))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(doc), "```caddyfile\n"+strings.TrimRight(string(b), "\n")+"\n```") {
			t.Errorf("docs/scaling.md does not show examples/scaleout/%s as it is", name)
		}
	}
}

// TestScaleOutStateless runs examples/scaleout/front-stateless.Caddyfile
// (round robin) in front of two instances of
// examples/scaleout/gateway-stateless.Caddyfile: there are no session IDs,
// calls of one client are answered by both instances, and when one
// instance stops the clients go on without reconnecting.
func TestScaleOutStateless(t *testing.T) {
	so := startScaleOut(t, "examples/scaleout/gateway-stateless.Caddyfile", "examples/scaleout/front-stateless.Caddyfile")
	front := so.front

	const clients, calls = 4, 4
	var cs []*scaleoutClient
	for range clients {
		c, err := scaleoutConnect(t, front)
		if err != nil {
			t.Fatal(err)
		}
		if c.cs.ID() != "" {
			t.Errorf("stateless gateway gave a session ID %q", c.cs.ID())
		}
		cs = append(cs, c)
	}
	for i, c := range cs {
		for j := range calls {
			if err := c.call(); err != nil {
				t.Errorf("client %d, call %d: %v", i, j, err)
			}
		}
	}
	total := map[string]int{}
	spread := 0
	for _, c := range cs {
		got := c.rec.instances("tools/call")
		for k, v := range got {
			total[k] += v
		}
		if got["a"] > 0 && got["b"] > 0 {
			spread++
		}
	}
	t.Logf("tools/call answered per instance: %v; clients whose calls both instances answered: %d of %d", total, spread, clients)
	if total["a"] == 0 || total["b"] == 0 || total["a"]+total["b"] != clients*calls {
		t.Errorf("tools/call answered per instance: %v; want all %d by a or b, and both used", total, clients*calls)
	}
	if spread == 0 {
		t.Errorf("no client had calls answered by both instances")
	}

	// One instance goes away: the same clients go on, on the other.
	so.gateways["b"].Stop()
	before := map[*scaleoutClient]int{}
	for _, c := range cs {
		before[c] = len(c.rec.snapshot())
	}
	for round := range 2 {
		for i, c := range cs {
			if err := c.call(); err != nil {
				t.Errorf("client %d, call %d after b stopped: %v", i, round, err)
			}
		}
	}
	for i, c := range cs {
		for _, h := range c.rec.snapshot()[before[c]:] {
			if h.method == "tools/call" && (h.instance != "a" || h.status != http.StatusOK) {
				t.Errorf("client %d after b stopped: %+v", i, h)
			}
		}
	}
}
