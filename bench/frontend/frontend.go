// Package frontend holds the GraphQL documents the Pick'Em frontend sends, one per screen,
// exactly as the SPA sends them. The benchmarks in bench/ and bench/gqlexec send these
// texts so that what is measured is what players cause.
package frontend

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// EventList is screen 1: the 20 newest events (no card, no leaderboard).
const EventList = `query EventList($first: Int) {
  events(first: $first) {
    edges { cursor node { id name startsAt season state locked } }
    pageInfo { hasNextPage endCursor }
  }
}`

// EventCard is screen 2: an event's card and the caller's own picks for it (with their
// rank once scored).
const EventCard = `query EventCard($id: ID!) {
  event(id: $id) {
    id name startsAt season state locked scoredMatches
    matches {
      id position name points preshow championships
      teams { name members champion }
      result { outcome winner }
      pickCounts
    }
  }
  prediction(eventId: $id) { eventId picks { matchId team correct } points correct rank updatedAt }
}`

// ScoredEvent is screen 3: a scored event's card with results and the top of its
// leaderboard.
const ScoredEvent = `query ScoredEvent($id: ID!, $first: Int) {
  event(id: $id) {
    id name startsAt season state locked scoredMatches
    matches {
      id position name points preshow championships
      teams { name members champion }
      result { outcome winner }
      pickCounts
    }
    leaderboard(first: $first) {
      edges { cursor node { rank user { id name } points correct } }
      pageInfo { hasNextPage endCursor }
    }
  }
}`

// Standings is screen 4: a page of a season's league table.
const Standings = `query Standings($season: Int!, $first: Int) {
  standings(season: $season, first: $first) {
    edges { cursor node { rank user { id name } points correct eventsPlayed } }
    pageInfo { hasNextPage endCursor }
  }
}`

// Profile is screen 5: a player's profile with their seasons and latest scored
// predictions, and their ranks in them.
const Profile = `query Profile($id: ID!) {
  user(id: $id) {
    id name
    standings { season rank points correct eventsPlayed }
    predictions(first: 20) {
      edges { cursor node { event { id name startsAt } points correct rank picks { matchId team correct } } }
      pageInfo { hasNextPage endCursor }
    }
  }
}`

// SubmitPrediction is screen 6: the caller submits picks for an upcoming event.
const SubmitPrediction = `mutation SubmitPrediction($eventId: ID!, $picks: [PickInput!]!) {
  submitPrediction(eventId: $eventId, picks: $picks) { eventId picks { matchId team } updatedAt }
}`

// ScoreEvent is screen 7: the admin script scores a locked event whose results are in.
const ScoreEvent = `mutation ScoreEvent($eventId: ID!) {
  scoreEvent(eventId: $eventId) { eventId predictionsScored standingsChanged transactions }
}`

// LeagueStandings is screen 8: a private league (members only) with its members' standings
// in a season.
const LeagueStandings = `query LeagueStandings($id: ID!, $season: Int!, $first: Int) {
  league(id: $id) {
    id name memberCount inviteCode owner { id name }
    standings(season: $season, first: $first) {
      edges { cursor node { rank user { id name } points correct eventsPlayed } }
      pageInfo { hasNextPage endCursor }
    }
  }
}`

// Documents are every operation the frontend sends (and the admin screen that scores),
// by operation name: the trusted documents of a production deployment.
func Documents() map[string]string {
	return map[string]string{
		"EventList": EventList, "EventCard": EventCard, "ScoredEvent": ScoredEvent, "Standings": Standings,
		"Profile": Profile, "SubmitPrediction": SubmitPrediction, "ScoreEvent": ScoreEvent,
		"LeagueStandings": LeagueStandings,
	}
}

// Manifest is the trusted-documents manifest of Documents: each document under the hex
// SHA-256 of its exact text (the format of GraphQL Codegen's persisted documents and of
// Apollo's persisted queries hash).
func Manifest() map[string]string {
	m := map[string]string{}
	for _, doc := range Documents() {
		m[hash(doc)] = doc
	}
	return m
}

func hash(doc string) string {
	sum := sha256.Sum256([]byte(doc))
	return hex.EncodeToString(sum[:])
}

// OperationsDir is the directory, from the repository root, of the clients' contract
// operations (server/contract_test.go runs every one).
const OperationsDir = "testdata/operations"

// PlayerOperations returns the contract operations of dir (OperationsDir) that players
// send, by file name without ".graphql": every file but the admin command's
// (admin-*.graphql; admins may send any document). Besides the screens of Documents they
// page through lists (`after`), rename the player (register) and read `me`.
func PlayerOperations(dir string) (map[string]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.graphql"))
	if err == nil && len(files) == 0 {
		err = fmt.Errorf("no *.graphql files")
	}
	if err != nil {
		return nil, fmt.Errorf("frontend: operations in %s: %w", dir, err)
	}
	ops := map[string]string{}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".graphql")
		if strings.HasPrefix(name, "admin-") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("frontend: %w", err)
		}
		ops[name] = string(b)
	}
	return ops, nil
}

// TrustedManifest is the trusted-documents manifest a production deployment runs
// (server/trusted-documents.json, PICKEM_TRUSTED_DOCUMENTS=builtin): Manifest and the
// PlayerOperations of dir, each under the hex SHA-256 of its exact text.
func TrustedManifest(dir string) (map[string]string, error) {
	ops, err := PlayerOperations(dir)
	if err != nil {
		return nil, err
	}
	m := Manifest()
	for _, doc := range ops {
		m[hash(doc)] = doc
	}
	return m, nil
}

// Request is the JSON body of a GraphQL POST.
type Request struct {
	OperationName string         `json:"operationName,omitempty"`
	Query         string         `json:"query"`
	Variables     map[string]any `json:"variables,omitempty"`
}

// Pick is one element of SubmitPrediction's $picks.
type Pick struct {
	MatchID string `json:"matchId"`
	Team    int    `json:"team"`
}
