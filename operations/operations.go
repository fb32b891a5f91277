// Package operations holds every GraphQL document the Pick'Em clients send, one .graphql
// file each, named after what it does:
//
//   - the frontend's (every file but admin-*): one per screen or action. The frontend's
//     client tooling writes the trusted-documents manifests of manifests/ from them, in the
//     text that client sends (Builtin is their union), and the benchmarks send them;
//   - the admin command's (admin-*.graphql), which it sends as they are.
//
// server's contract test runs every document against the real handler, so a change to the
// schema that breaks a client breaks a test. A document's text is its file's content
// without the surrounding whitespace.
package operations

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"path"
	"slices"
	"strings"
)

//go:embed *.graphql
var files embed.FS

// The frontend's screens, as the benchmarks send them.
var (
	EventList        = Text("event-list")
	EventCard        = Text("event-card")
	ScoredEvent      = Text("scored-event")
	Standings        = Text("standings")
	Profile          = Text("profile")
	SubmitPrediction = Text("submit-prediction")
	LeagueStandings  = Text("league-standings")
	// ScoreEvent is the admin command's: it is who scores an event.
	ScoreEvent = Text("admin-score-event")
)

// Text returns the document of the file name (without ".graphql"). It panics when there is
// no such file: names are fixed when the program is built.
func Text(name string) string {
	b, err := files.ReadFile(name + ".graphql")
	if err != nil {
		panic(fmt.Sprintf("operations: no document %q", name))
	}
	return strings.TrimSpace(string(b))
}

// Names returns the name of every document, sorted.
func Names() []string {
	entries, err := files.ReadDir(".")
	if err != nil {
		panic(err) // the embedded directory always reads
	}
	var names []string
	for _, e := range entries {
		names = append(names, strings.TrimSuffix(e.Name(), path.Ext(e.Name())))
	}
	slices.Sort(names)
	return names
}

// IsAdmin reports whether the document name is the admin command's.
func IsAdmin(name string) bool { return strings.HasPrefix(name, "admin-") }

// Frontend returns the frontend's documents by name.
func Frontend() map[string]string {
	m := map[string]string{}
	for _, name := range Names() {
		if !IsAdmin(name) {
			m[name] = Text(name)
		}
	}
	return m
}

// Hash is the hex SHA-256 of doc, the key of doc in a trusted-documents manifest.
func Hash(doc string) string {
	sum := sha256.Sum256([]byte(doc))
	return hex.EncodeToString(sum[:])
}
