//go:build clients

package main

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

var trustedDocuments = flag.String("trusted-documents", "builtin",
	`PICKEM_TRUSTED_DOCUMENTS of the server: "builtin" (the frontend's manifests), or "off": any document runs, and the clients send their documents' text`)

// TestClients is `make clients`: the local server with demo data, driven from Node by Apollo
// Client 4 and by urql with Graphcache (clients/test/*.test.mjs, node:test) with the
// configuration docs/api.md gives (clients/apollo.mjs, clients/urql.mjs), and watched by a raw
// WebSocket client on the realtime endpoint with the key the banner prints. Node runs with
// NODE_ENV=development and the development export condition, so that both clients' caches
// warn (each test fails on a warning). Needs `npm ci` (make deps) for the clients.
func TestClients(t *testing.T) {
	env := shared(t)
	if *trustedDocuments != "off" {
		env["PICKEM_TRUSTED_DOCUMENTS"] = *trustedDocuments
	}
	s := startLocal(t, t.TempDir(), env, "-seed")
	defer s.stop(t)

	tests, err := filepath.Glob("../clients/test/*.test.mjs")
	if err != nil || len(tests) == 0 {
		t.Fatalf("no client tests in ../clients/test (%v)", err)
	}
	args := append([]string{"--conditions=development", "--test", "--test-concurrency=1", "--test-reporter=spec"}, tests...)
	cmd := exec.CommandContext(t.Context(), "node", args...)
	cmd.Env = append(os.Environ(),
		"NODE_ENV=development",
		"PICKEM_URL="+s.base,
		"PICKEM_PLAYER_TOKEN="+s.playerTok,
		"PICKEM_ADMIN_TOKEN="+s.adminTok,
		"PICKEM_REALTIME_URL="+s.realtimeURL,
		"PICKEM_REALTIME_AUTH="+s.realtimeAuth,
		"PICKEM_TRUSTED_DOCUMENTS="+*trustedDocuments,
	)
	out, err := cmd.CombinedOutput()
	t.Logf("node --test (trusted documents %s):\n%s", *trustedDocuments, out)
	if err != nil {
		t.Fatalf("client tests failed: %v", err)
	}
}
