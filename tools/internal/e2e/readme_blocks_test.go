package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/caddy-mcp/mcp-gateway/tools/internal/testenv"
)

// The documentation's config blocks are checked by the real Caddy (built
// from tools/cmd/caddy) as a reader would use them. A fenced block's info
// string says what it is; the first word is the language, for renderers:
//
//	```caddyfile                          a whole Caddyfile: caddy validate
//	```caddyfile fragment=site            the inside of a site block: wrapped
//	                                      in one, then validated
//	```caddyfile fragment=mcp_gateway     the inside of an mcp_gateway block:
//	                                      wrapped in a site and mcp_gateway,
//	                                      then validated
//	```caddyfile id=<name>                (with any of the above) names the
//	                                      block for a json block's adapt-of
//	```caddyfile no-validate reason="..." not checked; the reason is required
//	```json caddy                         a whole JSON config: caddy validate
//	```json caddy adapt-of=<name>         also: equal (as JSON) to what
//	                                      caddy adapt makes of block <name>
//
// Other blocks (sh, json without "caddy", ...) are not configs. That
// docs/scaling.md shows the examples/scaleout files as they are is
// TestScaleOutDocsShowTheExamples' business.

var (
	knownAttrs = map[string]bool{"fragment": true, "id": true, "reason": true, "adapt-of": true}
	knownFlags = map[string]bool{"caddy": true, "no-validate": true}
)

// docBlock is one fenced block of a Markdown file.
type docBlock struct {
	file   string // relative to the repository root
	line   int    // of the opening fence
	lang   string
	attrs  map[string]string
	flags  map[string]bool
	body   string
	prefix int // lines the wrapping adds before the body
}

func (b docBlock) where() string { return fmt.Sprintf("%s:%d", b.file, b.line) }

// docFiles are the Markdown files whose config blocks are checked.
func docFiles(t *testing.T, root string) []string {
	t.Helper()
	files := []string{"README.md"}
	more, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range more {
		rel, _ := filepath.Rel(root, f)
		files = append(files, rel)
	}
	return files
}

var infoAttr = regexp.MustCompile(`(\w[\w-]*)=("([^"]*)"|\S+)|(\S+)`)

// parseDocBlocks returns the fenced blocks of a Markdown file.
func parseDocBlocks(t *testing.T, root, file string) []docBlock {
	t.Helper()
	f, err := os.Open(filepath.Join(root, file))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var blocks []docBlock
	var cur *docBlock
	var body []string
	fence := ""
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trimmed := strings.TrimLeft(line, " ")
		if cur == nil {
			if !strings.HasPrefix(trimmed, "```") {
				continue
			}
			fence = trimmed[:len(trimmed)-len(strings.TrimLeft(trimmed, "`"))]
			info := strings.TrimSpace(trimmed[len(fence):])
			b := docBlock{file: file, line: n, attrs: map[string]string{}, flags: map[string]bool{}}
			for i, m := range infoAttr.FindAllStringSubmatch(info, -1) {
				switch {
				case i == 0:
					b.lang = m[0]
				case m[1] != "" && m[3] != "":
					b.attrs[m[1]] = m[3]
				case m[1] != "":
					b.attrs[m[1]] = m[2]
				default:
					b.flags[m[4]] = true
				}
			}
			cur, body = &b, nil
			continue
		}
		if strings.HasPrefix(trimmed, fence) && strings.Trim(trimmed, "`") == "" {
			cur.body = strings.Join(body, "\n") + "\n"
			blocks = append(blocks, *cur)
			cur = nil
			continue
		}
		body = append(body, line)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if cur != nil {
		t.Fatalf("%s: the block opened here is never closed", cur.where())
	}
	return blocks
}

// caddyfile is the block as a whole Caddyfile, wrapped as its fragment
// attribute says.
func (b *docBlock) caddyfile() (string, error) {
	const site = "http://127.0.0.1:8080 {\n"
	switch b.attrs["fragment"] {
	case "":
		return b.body, nil
	case "site":
		b.prefix = 1
		return site + b.body + "}\n", nil
	case "mcp_gateway":
		b.prefix = 2
		return site + "mcp_gateway /mcp* {\n" + b.body + "}\n}\n", nil
	}
	return "", fmt.Errorf("%s: unknown fragment=%q; use site or mcp_gateway", b.where(), b.attrs["fragment"])
}

// docsEnvironment is what the blocks' {$VAR} and {env.VAR} placeholders
// stand for: the values the text around them gives, or a plausible one.
var docsEnvironment = map[string]string{
	"CRM_TOKEN":     "crm-secret-token",
	"UPSTREAM_URL":  "http://127.0.0.1:3000/mcp",
	"GATEWAY_NAME":  "a",
	"GATEWAY_PORT":  "8081",
	"GATEWAY_A":     "127.0.0.1:8081",
	"GATEWAY_B":     "127.0.0.1:8082",
	"FRONT_PORT":    "8080",
	"INSTANCE_NAME": "a",
}

// TestReadmeCaddyfileBlocks validates every Caddyfile and JSON config block
// of README.md and docs/*.md with the real Caddy, and checks the JSON
// example is what caddy adapt makes of its Caddyfile. A failure names the
// block's file and line, and maps Caddy's line numbers back to the file.
func TestReadmeCaddyfileBlocks(t *testing.T) {
	root := testenv.RepoRoot(t)
	testenv.Caddy(t) // build once, before the subtests
	for k, v := range docsEnvironment {
		t.Setenv(k, v)
	}
	dir := t.TempDir()

	var all []docBlock
	for _, file := range docFiles(t, root) {
		all = append(all, parseDocBlocks(t, root, file)...)
	}
	byID := map[string]*docBlock{}
	checked := 0
	for i := range all {
		b := &all[i]
		if id := b.attrs["id"]; id != "" {
			if prev := byID[id]; prev != nil {
				t.Errorf("%s: id=%s is taken by the block at %s", b.where(), id, prev.where())
			}
			byID[id] = b
		}
	}
	readmeKinds := map[string]bool{}
	for i := range all {
		b := &all[i]
		isConfig := b.lang == "caddyfile" || (b.lang == "json" && b.flags["caddy"])
		if !isConfig {
			continue
		}
		for k := range b.attrs {
			if !knownAttrs[k] {
				t.Errorf("%s: unknown %s= in the info string; the markers are listed in readme_blocks_test.go", b.where(), k)
			}
		}
		for f := range b.flags {
			if !knownFlags[f] {
				t.Errorf("%s: unknown %q in the info string; the markers are listed in readme_blocks_test.go", b.where(), f)
			}
		}
		if b.file == "README.md" && b.attrs["fragment"] == "" && !b.flags["no-validate"] {
			readmeKinds[b.lang] = true
		}
		if b.flags["no-validate"] {
			if strings.TrimSpace(b.attrs["reason"]) == "" {
				t.Errorf(`%s: no-validate needs a reason="..."`, b.where())
			}
			continue
		}
		checked++
		t.Run(strings.ReplaceAll(b.where(), "/", "_"), func(t *testing.T) {
			switch b.lang {
			case "caddyfile":
				validateCaddyfileBlock(t, dir, b)
			case "json":
				validateJSONBlock(t, dir, b, byID)
			}
		})
	}
	// The README holds a whole Caddyfile and a JSON config, and the docs
	// ten blocks in all; far fewer means the parser lost them.
	if !readmeKinds["caddyfile"] || !readmeKinds["json"] {
		t.Errorf("README.md should hold a whole Caddyfile and a JSON config (```json caddy) the test validates; it has %v", readmeKinds)
	}
	if checked < 5 {
		t.Errorf("only %d config blocks found in %v; the fences' info strings may have changed", checked, docFiles(t, root))
	}
}

var caddyLine = regexp.MustCompile(`\S*\d+\.block\.(?:Caddyfile|json):(\d+)`)

// validateCaddyfileBlock runs caddy validate on a Caddyfile block.
func validateCaddyfileBlock(t *testing.T, dir string, b *docBlock) {
	text, err := b.caddyfile()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, fmt.Sprintf("%d.block.Caddyfile", b.line))
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := testenv.RunCaddy(t, dir, "validate", "--adapter", "caddyfile", "--config", path)
	if err != nil || !strings.Contains(out, "Valid configuration") {
		t.Errorf("%s: caddy validate failed (%v):\n%s\nthe Caddyfile validated:\n%s", b.where(), err, b.mapLines(lastLines(out, 12)), numbered(text))
	}
}

// validateJSONBlock runs caddy validate on a JSON config block and, with
// adapt-of, compares it with caddy adapt's output for that block.
func validateJSONBlock(t *testing.T, dir string, b *docBlock, byID map[string]*docBlock) {
	var doc any
	if err := json.Unmarshal([]byte(b.body), &doc); err != nil {
		t.Fatalf("%s: not JSON: %v", b.where(), err)
	}
	path := filepath.Join(dir, fmt.Sprintf("%d.block.json", b.line))
	if err := os.WriteFile(path, []byte(b.body), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := testenv.RunCaddy(t, dir, "validate", "--config", path)
	if err != nil || !strings.Contains(out, "Valid configuration") {
		t.Errorf("%s: caddy validate failed (%v):\n%s", b.where(), err, lastLines(out, 12))
	}
	id := b.attrs["adapt-of"]
	if id == "" {
		return
	}
	src := byID[id]
	if src == nil {
		t.Fatalf("%s: adapt-of=%s names no block (give a caddyfile block id=%s)", b.where(), id, id)
	}
	text, err := src.caddyfile()
	if err != nil {
		t.Fatal(err)
	}
	cf := filepath.Join(dir, fmt.Sprintf("%d.adapt.Caddyfile", src.line))
	if err := os.WriteFile(cf, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	adapted, err := testenv.RunCaddy(t, dir, "adapt", "--adapter", "caddyfile", "--config", cf)
	if err != nil {
		t.Fatalf("caddy adapt of %s: %v\n%s", src.where(), err, adapted)
	}
	// Warnings go to stderr, which RunCaddy mixes in: the config is the
	// last line.
	lines := strings.Split(strings.TrimSpace(adapted), "\n")
	var want any
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &want); err != nil {
		t.Fatalf("caddy adapt of %s: %v\n%s", src.where(), err, adapted)
	}
	if !reflect.DeepEqual(doc, want) {
		pretty, _ := json.MarshalIndent(want, "", "  ")
		t.Errorf("%s: the JSON is not what caddy adapt makes of the Caddyfile at %s; caddy adapt gives:\n%s", b.where(), src.where(), pretty)
	}
}

// mapLines rewrites Caddy's "<file>:<n>" references into the docs' lines.
func (b *docBlock) mapLines(out string) string {
	return caddyLine.ReplaceAllStringFunc(out, func(m string) string {
		var n int
		fmt.Sscanf(caddyLine.FindStringSubmatch(m)[1], "%d", &n)
		if n <= b.prefix {
			return m + " (the wrapping)"
		}
		return fmt.Sprintf("%s:%d", b.file, b.line+n-b.prefix)
	})
}

func numbered(text string) string {
	var sb strings.Builder
	for i, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		fmt.Fprintf(&sb, "%4d  %s\n", i+1, l)
	}
	return sb.String()
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
