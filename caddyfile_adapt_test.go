package mcpgateway

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2/caddyconfig"
	"github.com/caddyserver/caddy/v2/caddytest"
	_ "github.com/caddyserver/caddy/v2/modules/standard"
)

var update = flag.Bool("update", false, "rewrite the JSON half of the golden adapt files")

// TestCaddyfileAdapt adapts each testdata/caddyfile_adapt/*.caddyfiletest
// (a Caddyfile, a line of dashes, then the expected JSON or error) and
// compares, one file per case, as Caddy's own adapt tests do.
func TestCaddyfileAdapt(t *testing.T) {
	files, err := filepath.Glob("testdata/caddyfile_adapt/*.caddyfiletest")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			caddyfile, expected, ok := strings.Cut(string(data), "----------")
			if !ok {
				t.Fatal("no ---------- separator")
			}
			caddyfile = strings.TrimSpace(caddyfile) + "\n"
			expected = strings.TrimSpace(expected)
			if strings.HasPrefix(filepath.Base(file), "error_") {
				_, _, err := caddyconfig.GetAdapter("caddyfile").Adapt([]byte(caddyfile), nil)
				if err == nil {
					t.Fatalf("adapted without error; want %q", expected)
				}
				if !strings.Contains(err.Error(), expected) {
					t.Errorf("error:\n%v\nwant it to contain:\n%s", err, expected)
				}
				return
			}
			if *update {
				out, _, err := caddyconfig.GetAdapter("caddyfile").Adapt([]byte(caddyfile), nil)
				if err != nil {
					t.Fatal(err)
				}
				var pretty bytes.Buffer
				json.Indent(&pretty, out, "", "\t")
				os.WriteFile(file, []byte(strings.TrimSpace(caddyfile)+"\n----------\n"+pretty.String()+"\n"), 0o644)
				return
			}
			if expected == "" {
				t.Fatal("no expected JSON; run go test -run TestCaddyfileAdapt -update")
			}
			if !caddytest.CompareAdapt(t, file, caddyfile, "caddyfile", expected) {
				t.Error("adapted JSON differs from the golden file (diff above)")
			}
		})
	}
}
