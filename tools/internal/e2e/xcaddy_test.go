package e2e

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/caddy-mcp/mcp-gateway/tools/internal/testenv"
)

// xcaddyModule is xcaddy, pinned: the README's `xcaddy` runs as this.
const xcaddyModule = "github.com/caddyserver/xcaddy/cmd/xcaddy@v0.4.5"

// TestXcaddyBuildFromCheckout runs the README's command for building Caddy
// with the gateway from a local checkout, exactly as printed, with xcaddy
// pinned and /path/to/checkout standing for this repository, for the Caddy
// version the module is tested with (go.mod's, through CADDY_VERSION, as
// the README says). The Caddy it builds must list the gateway's modules.
// With a warm build cache it takes seconds; cold, a few minutes.
func TestXcaddyBuildFromCheckout(t *testing.T) {
	root := testenv.RepoRoot(t)
	args := readmeCheckoutBuild(t, root)
	caddyVersion := goModRequire(t, root, "github.com/caddyserver/caddy/v2")

	dir := t.TempDir()
	out := filepath.Join(dir, "caddy")
	for i, a := range args {
		args[i] = strings.ReplaceAll(a, "/path/to/checkout", root)
	}
	cmdArgs := append([]string{"run", xcaddyModule}, args[1:]...)
	cmdArgs = append(cmdArgs, "--output", out)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", cmdArgs...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CADDY_VERSION="+caddyVersion)
	start := time.Now()
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go %s (CADDY_VERSION=%s): %v\n%s", strings.Join(cmdArgs, " "), caddyVersion, err, b)
	}
	t.Logf("xcaddy build from the checkout took %s", time.Since(start).Round(100*time.Millisecond))

	modules, err := exec.Command(out, "list-modules").CombinedOutput()
	if err != nil {
		t.Fatalf("caddy list-modules: %v\n%s", err, modules)
	}
	for _, want := range []string{"http.handlers.mcp_gateway", "http.handlers.mcp_gateway_ui", "admin.api.mcp_gateway"} {
		if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(want) + `$`).Match(modules) {
			t.Errorf("the Caddy xcaddy built lacks %s; list-modules says:\n%s", want, modules)
		}
	}
	version, err := exec.Command(out, "version").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(version), caddyVersion+" ") {
		t.Errorf("caddy version = %q (%v), want %s", version, err, caddyVersion)
	}
	if carriesGlossary(t, root, out) {
		t.Error("the default build carries the Chinese glossary; only builds that ask for it should")
	}

	// The README's build with the glossary, from a checkout: the same
	// command with the build tag in XCADDY_GO_BUILD_FLAGS.
	flags := readmeGlossaryBuildFlags(t, root)
	withGlossary := filepath.Join(dir, "caddy-cedict")
	cmdArgs[len(cmdArgs)-1] = withGlossary
	cmd = exec.CommandContext(ctx, "go", cmdArgs...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CADDY_VERSION="+caddyVersion, "XCADDY_GO_BUILD_FLAGS="+flags)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("XCADDY_GO_BUILD_FLAGS=%q go %s: %v\n%s", flags, strings.Join(cmdArgs, " "), err, b)
	}
	if !carriesGlossary(t, root, withGlossary) {
		t.Errorf("the build with XCADDY_GO_BUILD_FLAGS=%q does not carry the Chinese glossary", flags)
	}
}

// carriesGlossary reports whether a binary embeds the Chinese glossary
// (search/cedict/cedict.zst), by its first 4 KiB.
func carriesGlossary(t *testing.T, root, binary string) bool {
	t.Helper()
	glossary, err := os.ReadFile(filepath.Join(root, "search", "cedict", "cedict.zst"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(binary)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Contains(b, glossary[:4096])
}

// readmeGlossaryBuildFlags is the XCADDY_GO_BUILD_FLAGS of the README's
// build from a checkout with the glossary (the line that sets the tag
// mcpgateway_cedict).
func readmeGlossaryBuildFlags(t *testing.T, root string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`XCADDY_GO_BUILD_FLAGS="([^"]*mcpgateway_cedict[^"]*)"`).FindSubmatch(b)
	if m == nil {
		t.Fatal(`README.md should show the build from a checkout with the glossary: XCADDY_GO_BUILD_FLAGS="... -tags=...,mcpgateway_cedict" xcaddy build ...`)
	}
	return string(m[1])
}

// readmeCheckoutBuild is the README's xcaddy command that builds from a
// local checkout (the one naming /path/to/checkout), split into words.
func readmeCheckoutBuild(t *testing.T, root string) []string {
	t.Helper()
	f, err := os.Open(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var found []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "xcaddy build ") && strings.Contains(line, "=/path/to/checkout") {
			found = append(found, line)
		}
	}
	if len(found) != 1 {
		t.Fatalf("README.md should show one `xcaddy build ... =/path/to/checkout` command, has %d: %q", len(found), found)
	}
	return strings.Fields(found[0])
}

// goModRequire is the version the plugin's go.mod requires of a module.
func goModRequire(t *testing.T, root, module string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^\s*` + regexp.QuoteMeta(module) + `\s+(v\S+)`).FindSubmatch(b)
	if m == nil {
		t.Fatalf("go.mod does not require %s", module)
	}
	return string(m[1])
}
