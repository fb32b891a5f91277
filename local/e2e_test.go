//go:build e2e

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestPlaygroundInChromium is `make e2e`: the local server as `go run ./local` runs it, and
// e2e/playground.mjs driving Debian's headless Chromium against it with every other host
// refused (the playground must work offline). The screenshot goes to
// $PICKEM_E2E_SCREENSHOT, default dist/e2e/playground.png.
func TestPlaygroundInChromium(t *testing.T) {
	s := startLocal(t, t.TempDir(), shared(t), "-seed")
	defer s.stop(t)
	shot := os.Getenv("PICKEM_E2E_SCREENSHOT")
	if shot == "" {
		shot, _ = filepath.Abs("../dist/e2e/playground.png")
	}
	if err := os.MkdirAll(filepath.Dir(shot), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), "node", "playground.mjs", s.base+"/", s.playerTok, shot)
	cmd.Dir = "../e2e"
	out, err := cmd.CombinedOutput()
	t.Logf("e2e/playground.mjs:\n%s", out)
	if err != nil {
		t.Fatalf("browser check failed: %v", err)
	}
	t.Logf("screenshot: %s", shot)
}
