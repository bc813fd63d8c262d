package testenv

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// Chromium is the path of Debian's headless-capable Chromium. The tests
// need it (`apt-get install chromium`; `make test` installs it when it
// can): without it they fail, never skip.
func Chromium(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if path, err := exec.LookPath(name); err == nil {
			return path
		}
	}
	t.Fatal("Chromium is needed for the operator page tests: apt-get install chromium (Debian), or run make test as root")
	return ""
}

// Headless runs Chromium headless on url with args (--dump-dom,
// --screenshot=...), and returns its standard output.
func Headless(t testing.TB, url string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	profile := t.TempDir()
	all := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
		"--user-data-dir=" + profile, "--hide-scrollbars"}, args...)
	cmd := exec.CommandContext(ctx, Chromium(t), append(all, url)...)
	cmd.Env = append(os.Environ(), "HOME="+profile, "XDG_CONFIG_HOME="+filepath.Join(profile, "config"))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %v: %v\n%s", args, err, stderr.String())
	}
	return stdout.String()
}
