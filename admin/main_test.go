package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pickem/api/auth"
	"github.com/pickem/api/domain"
	"github.com/pickem/api/dynamo"
	"github.com/pickem/api/dynamo/ddb"
	"github.com/pickem/api/dynamo/table"
	"github.com/pickem/api/internal/dynamotest"
	"github.com/pickem/api/internal/localdata"
	"github.com/pickem/api/server"
)

func TestMain(m *testing.M) { dynamotest.Main(m) }

const (
	testSecret = "admin-test-secret-0123456789abcdef0123456789"
	cardPath   = "../testdata/cards/wrestlemania-41-night-2.yaml"
	cardID     = "2025-04-20-wrestlemania-41-night-2"
)

// clock is before WrestleMania 41 Night 2 (20 April 2025, 22:00 UTC), so players can still
// pick until the admin locks the event.
var clock = time.Date(2025, 4, 15, 12, 0, 0, 0, time.UTC)

// apiEnv is the real API handler served over HTTP on 127.0.0.1, on a fresh table of the
// package's DynamoDB Local.
type apiEnv struct {
	url   string
	store *dynamo.Store
	token string // admin token, minted by the token command
}

func newAPIEnv(t *testing.T) *apiEnv {
	t.Helper()
	now := func() time.Time { return clock }
	store := dynamo.New(dynamotest.Client(t, ddb.CostOption), dynamotest.TableName(), dynamo.WithClock(now))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := store.EnsureTable(ctx); err != nil {
		t.Fatalf("EnsureTable: %v", err)
	}
	h, err := server.New(server.Config{Store: store, Verifier: auth.NewHS256([]byte(testSecret)), Now: now})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	e := &apiEnv{url: srv.URL + "/graphql", store: store}
	e.token = e.mint(t, "-sub", "root", "-name", "Root Admin", "-admin")
	return e
}

// runResult is what one run of the command printed and returned.
type runResult struct {
	stdout, stderr string
	code           int
}

// admin runs the command against the env with the admin token.
func (e *apiEnv) admin(t *testing.T, args ...string) runResult {
	t.Helper()
	return e.as(t, e.token, args...)
}

func (e *apiEnv) as(t *testing.T, token string, args ...string) runResult {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(append([]string{"-url", e.url, "-token", token}, args...), &out, &errb)
	return runResult{out.String(), errb.String(), code}
}

func (e *apiEnv) mint(t *testing.T, args ...string) string {
	t.Helper()
	r := e.as(t, "", append([]string{"token", "-secret", testSecret}, args...)...)
	if r.code != 0 {
		t.Fatalf("token: exit %d: %s", r.code, r.stderr)
	}
	return strings.TrimSpace(r.stdout)
}

func (r runResult) ok(t *testing.T) runResult {
	t.Helper()
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	return r
}

func (r runResult) fails(t *testing.T, code int, stderr ...string) {
	t.Helper()
	if r.code != code {
		t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", r.code, code, r.stdout, r.stderr)
	}
	for _, s := range stderr {
		if !strings.Contains(r.stderr, s) {
			t.Errorf("stderr %q does not contain %q", r.stderr, s)
		}
	}
}

func (r runResult) has(t *testing.T, want ...string) {
	t.Helper()
	for _, s := range want {
		if !strings.Contains(r.stdout, s) {
			t.Errorf("output does not contain %q:\n%s", s, r.stdout)
		}
	}
}

var matchIDLine = regexp.MustCompile(`(?m)^\s+match\s+([0-9a-f-]{36})$`)

// TestAdminWorkflow runs the whole admin workflow, in order, on the WrestleMania card: each
// step depends on the ones before it.
func TestAdminWorkflow(t *testing.T) {
	e := newAPIEnv(t)

	t.Run("TokenIsAnAdminToken", func(t *testing.T) {
		id, err := auth.NewHS256([]byte(testSecret)).Verify(context.Background(), e.token)
		if err != nil || id.ID != "root" || id.Name != "Root Admin" || !id.IsAdmin() {
			t.Fatalf("minted token: %+v, %v", id, err)
		}
	})

	t.Run("AuditLogEmptyBeforeAnyChange", func(t *testing.T) {
		e.admin(t, "audit", "-event", cardID).ok(t).has(t, "Audit log of "+cardID, "(no entries)")
	})

	t.Run("CreateEventFromYAML", func(t *testing.T) {
		r := e.admin(t, "create-event", "-file", cardPath).ok(t)
		r.has(t, "created event "+cardID+" with 6 matches", "WrestleMania 41 Night 2",
			"Intercontinental Championship Fatal Four-Way", "The Judgment Day (Liv Morgan & Raquel Rodríguez) (c)",
			"team 3   Finn Bálor", "WWE Women's Tag Team Championship", "no result yet")
		ev, err := e.store.GetEvent(context.Background(), cardID)
		if err != nil || len(ev.Matches) != 6 || ev.Matches[1].Teams[0].Champion != true || len(ev.Matches[1].Teams) != 4 {
			t.Fatalf("stored event: %+v, %v", ev, err)
		}
	})

	t.Run("CreateEventAgainIsTheSameEvent", func(t *testing.T) {
		before, err := e.store.GetEvent(context.Background(), cardID)
		if err != nil {
			t.Fatal(err)
		}
		e.admin(t, "create-event", "-file", cardPath).ok(t).has(t, "created event "+cardID+" with 6 matches")
		ev, err := e.store.GetEvent(context.Background(), cardID)
		if err != nil || len(ev.Matches) != 6 || ev.Matches[0].ID != before.Matches[0].ID || ev.CardVersion != before.CardVersion {
			t.Fatalf("after the re-run: %d matches, first %s (was %s), %v", len(ev.Matches), ev.Matches[0].ID, before.Matches[0].ID, err)
		}
	})

	var matches []string
	t.Run("CardPrintsMatchIDs", func(t *testing.T) {
		r := e.admin(t, "card", "-event", cardID).ok(t)
		for _, m := range matchIDLine.FindAllStringSubmatch(r.stdout, -1) {
			matches = append(matches, m[1])
		}
		if len(matches) != 6 {
			t.Fatalf("found %d match ids in:\n%s", len(matches), r.stdout)
		}
		r.has(t, "1. El Grande Americano vs. Rey Fénix — 5 points", "6. Undisputed WWE Championship — 25 points", "state    UPCOMING")
	})
	if len(matches) != 6 {
		t.FailNow()
	}

	// Three players pick while the event is open: sam gets everything right, jo every second
	// team, alex every first team.
	actual := []int{0, 1, 1, 0, 0, 1}
	for user, teams := range map[string][]int{"sam": actual, "jo": {1, 1, 1, 1, 1, 1}, "alex": {0, 0, 0, 0, 0, 0}} {
		picks := make([]domain.Pick, len(teams))
		for i, team := range teams {
			picks[i] = domain.Pick{MatchID: matches[i], Team: team}
		}
		if _, err := e.store.SubmitPrediction(context.Background(), domain.UserRef{ID: user, Name: "Player " + user}, cardID, domain.Entry{Picks: picks}); err != nil {
			t.Fatalf("pick of %s: %v", user, err)
		}
	}

	t.Run("ScoreRefusesAnOpenEvent", func(t *testing.T) {
		e.admin(t, "score", "-event", cardID).fails(t, 1, "admin: BAD_USER_INPUT: ", "still open")
	})

	t.Run("Lock", func(t *testing.T) {
		e.admin(t, "lock", "-event", cardID).ok(t).has(t, "is BROADCAST")
	})

	t.Run("ScoreNamesMissingResults", func(t *testing.T) {
		e.admin(t, "score", "-event", cardID, "-dry-run").fails(t, 1, "admin: BAD_USER_INPUT: ", "Undisputed WWE Championship")
	})

	t.Run("SetResults", func(t *testing.T) {
		// A detour on match 4: a draw, cleared, then the real winner.
		e.admin(t, "set-result", "-event", cardID, "-match", matches[3], "-draw").ok(t).has(t, "4. Randy Orton vs. Joe Hendry: DRAW")
		e.admin(t, "set-result", "-event", cardID, "-match", matches[3], "-clear").ok(t).has(t, "no result yet")
		for i, w := range actual {
			e.admin(t, "set-result", "-event", cardID, "-match", matches[i], "-winner", strconv.Itoa(w)).ok(t).has(t, "WIN: team")
		}
		e.admin(t, "card", "-event", cardID).ok(t).has(t, "WIN: team 1, John Cena", "WIN: team 1, Becky Lynch & Lyra Valkyria", "state    BROADCAST")
	})

	// A scoring transaction holds players of one score shard.
	shards := map[int]bool{}
	for _, u := range []string{"sam", "jo", "alex"} {
		shards[table.ShardOf(u, 1)] = true
	}
	tx := strconv.Itoa(len(shards))
	t.Run("ScoreDryRun", func(t *testing.T) {
		e.admin(t, "score", "-event", cardID, "-dry-run").ok(t).has(t, "dry run of "+cardID, "predictions to score  3", "standings to change   3", "transactions needed   "+tx,
			fmt.Sprintf("matches counted       %d (final: every match has a result, scoring makes the event SCORED)", len(actual)))
		e.admin(t, "standings", "-season", "2025").ok(t).has(t, "no scored events yet")
	})

	t.Run("Score", func(t *testing.T) {
		e.admin(t, "score", "-event", cardID).ok(t).has(t, "scored "+cardID, "predictions scored  3", "standings changed   3", "transactions        "+tx,
			fmt.Sprintf("matches counted     %d (final: every match has a result, the event is SCORED)", len(actual)))
		e.admin(t, "score", "-event", cardID).ok(t).has(t, "predictions scored  0", "already up to date")
	})

	t.Run("Standings", func(t *testing.T) {
		r := e.admin(t, "standings", "-season", "2025").ok(t)
		lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
		want := []struct{ rank, name, points string }{{"1", "Player sam", "85"}, {"2", "Player jo", "60"}, {"3", "Player alex", "25"}}
		if len(lines) != 2+len(want) {
			t.Fatalf("standings:\n%s", r.stdout)
		}
		for i, w := range want {
			if f := strings.Fields(lines[2+i]); len(f) < 6 || f[0] != w.rank || f[1]+" "+f[2] != w.name || f[4] != w.points {
				t.Errorf("row %d = %q, want rank %s %s with %s points", i+1, lines[2+i], w.rank, w.name, w.points)
			}
		}
		// Pages of one row each still give the ranked top two.
		r = e.admin(t, "standings", "-season", "2025", "-first", "2").ok(t)
		if n := strings.Count(r.stdout, "Player "); n != 2 {
			t.Errorf("-first 2 printed %d rows:\n%s", n, r.stdout)
		}
	})

	t.Run("CorrectionAndRescore", func(t *testing.T) {
		e.admin(t, "set-result", "-event", cardID, "-match", matches[5], "-no-contest").ok(t).has(t, "NO_CONTEST (void")
		// Every prediction is written again (it now reflects the corrected card); the
		// standings of sam and jo, who had picked Cena, move.
		e.admin(t, "score", "-event", cardID).ok(t).has(t, "predictions scored  3", "standings changed   2")
		r := e.admin(t, "standings", "-season", "2025").ok(t)
		if !regexp.MustCompile(`1\s+Player sam\s+sam\s+60\s`).MatchString(r.stdout) {
			t.Errorf("after the correction:\n%s", r.stdout)
		}
	})

	t.Run("Events", func(t *testing.T) {
		e.admin(t, "events", "-season", "2025").ok(t).has(t, cardID, "SCORED")
	})

	t.Run("Audit", func(t *testing.T) {
		// Every admin change above, by the admin of the token: the card, the lock, 9 results
		// (the draw, the clear, six winners, the correction), 2 scoring calls; the refused
		// re-creation none.
		r := e.admin(t, "audit", "-event", cardID).ok(t)
		r.has(t, "Audit log of "+cardID+", newest first", "Root Admin (root)",
			`created "WrestleMania 41 Night 2", starts 2025-04-20T22:00:00Z, with 6 matches`,
			"state UPCOMING → BROADCAST", `match 4 "Randy Orton vs. Joe Hendry": result cleared (was DRAW (void))`,
			`match 6 "Undisputed WWE Championship": NO_CONTEST (void) (was WIN, team 1 (John Cena))`)
		if n := strings.Count(r.stdout, " setResult "); n != 9 {
			t.Errorf("%d setResult entries, want 9:\n%s", n, r.stdout)
		}
		// Two scoring calls wrote (the first score, the rescore after the correction); the
		// dry runs and the re-run that found nothing to do wrote no entry.
		if n := strings.Count(r.stdout, " scoreEvent "); n != 2 {
			t.Errorf("%d scoreEvent entries, want 2:\n%s", n, r.stdout)
		}
		r.has(t, "wrote 3 predictions and 3 standings in ", "wrote 3 predictions and 2 standings in ", "complete, event SCORED")
		// (The test clock stands still: entries of one instant come in no particular order.)
		if n := strings.Count(r.stdout, " createEvent "); n != 1 {
			t.Errorf("%d createEvent entries, want 1:\n%s", n, r.stdout)
		}
		// -first 2: the two newest.
		r = e.admin(t, "audit", "-event", cardID, "-first", "2").ok(t)
		if n := len(strings.Split(strings.TrimSpace(r.stdout), "\n")); n != 4 {
			t.Errorf("-first 2 printed %d lines, want a title, a header and 2 entries:\n%s", n, r.stdout)
		}
	})
}

func TestAdminCreateEventFromJSON(t *testing.T) {
	e := newAPIEnv(t)
	card := map[string]any{
		"name": "Saturday Night's Main Event", "startsAt": "2025-05-24T23:00:00-04:00",
		"matches": []any{map[string]any{"name": "Singles", "points": 10, "teams": []any{
			map[string]any{"members": []string{"Gunther"}}, map[string]any{"members": []string{"Jey Uso"}, "champion": true}}}},
	}
	path := filepath.Join(t.TempDir(), "snme.json")
	data, _ := json.Marshal(card)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	// The id comes from the UTC date of the start (the 25th) and the name.
	e.admin(t, "create-event", "-file", path).ok(t).has(t, "created event 2025-05-25-saturday-night-s-main-event with 1 matches", "Jey Uso (c)")

	// -starts-at replays a card file on another date, with a derived id.
	e.admin(t, "create-event", "-file", cardPath, "-starts-at", "2026-04-19T22:00:00Z").ok(t).has(t, "created event 2026-04-19-wrestlemania-41-night-2 ")
}

// TestAdminGameCard creates a card with the game's settings and method points, enters a
// result with its method and sets and clears the tie-breaker's answer.
func TestAdminGameCard(t *testing.T) {
	e := newAPIEnv(t)
	const id = "2025-06-07-game-night"
	e.admin(t, "create-event", "-file", "../testdata/cards/game-night.yaml").ok(t).has(t,
		"created event "+id, "jokers   on", "perfect  +25", "question How many minutes will the main event last? (answer: not counted yet)",
		"1. Opener — 10 points, +5 for the method")
	e.admin(t, "tiebreaker", "-event", id, "-answer", "31").fails(t, 1, "admin: BAD_USER_INPUT: ")
	e.admin(t, "lock", "-event", id).ok(t)
	matches := matchIDLine.FindAllStringSubmatch(e.admin(t, "card", "-event", id).ok(t).stdout, -1)
	e.admin(t, "set-result", "-event", id, "-match", matches[0][1], "-winner", "1", "-method", "submission").ok(t).has(t, "WIN: team 1, Kyle Fletcher by SUBMISSION")
	e.admin(t, "set-result", "-event", id, "-match", matches[1][1], "-draw", "-method", "PINFALL").fails(t, 2, "-method goes with -winner")
	e.admin(t, "tiebreaker", "-event", id, "-answer", "31").ok(t).has(t, "tie-breaker answer 31 set")
	e.admin(t, "tiebreaker", "-event", id).fails(t, 2, "exactly one of -answer N, -clear")
	e.admin(t, "tiebreaker", "-event", id, "-clear").ok(t).has(t, "tie-breaker answer cleared")
	e.admin(t, "audit", "-event", id).ok(t).has(t, "setTiebreakerAnswer")
}

func TestAdminErrors(t *testing.T) {
	t.Setenv("PICKEM_DEV_SECRET", "")
	e := newAPIEnv(t)
	player := e.mint(t, "-sub", "sam", "-name", "Sam")
	tests := []struct {
		name   string
		token  string
		args   []string
		code   int
		stderr []string
	}{
		{"BadToken", "not-a-token", []string{"lock", "-event", cardID}, 1, []string{"admin: UNAUTHENTICATED: ", "admin token"}},
		{"TokenSignedWithAnotherSecret", mintWith(t, "another-secret-0123456789abcdef0123"), []string{"create-event", "-file", cardPath}, 1, []string{"admin: UNAUTHENTICATED: "}},
		{"NoToken", "", []string{"lock", "-event", cardID}, 1, []string{"admin: UNAUTHENTICATED: "}},
		{"PlayerToken", player, []string{"create-event", "-file", cardPath}, 1, []string{"admin: FORBIDDEN: "}},
		{"UnknownEvent", e.token, []string{"card", "-event", "2025-01-01-nothing"}, 1, []string{`admin: NOT_FOUND: event "2025-01-01-nothing" not found`}},
		{"InvalidEventID", e.token, []string{"lock", "-event", "EVENT#x"}, 1, []string{"admin: BAD_USER_INPUT: "}},
		{"Unreachable", e.token, []string{"-url", "http://127.0.0.1:1/graphql", "card", "-event", cardID}, 1, []string{"admin: cannot reach the API"}},
		{"MissingCardFile", e.token, []string{"create-event", "-file", "no-such-card.yaml"}, 1, []string{"no-such-card.yaml"}},
		{"UnknownCommand", e.token, []string{"delete-everything"}, 2, []string{"unknown command"}},
		{"NoCommand", e.token, nil, 2, []string{"usage: admin"}},
		{"MissingFlag", e.token, []string{"score"}, 2, []string{"-event is required"}},
		{"TwoOutcomes", e.token, []string{"set-result", "-event", cardID, "-match", "m", "-winner", "1", "-draw"}, 2, []string{"exactly one of"}},
		{"NoOutcome", e.token, []string{"set-result", "-event", cardID, "-match", "m"}, 2, []string{"exactly one of"}},
		{"AuditPlayerToken", player, []string{"audit", "-event", cardID}, 1, []string{"admin: FORBIDDEN: "}},
		{"AuditInvalidEventID", e.token, []string{"audit", "-event", "EVENT#x"}, 1, []string{"admin: BAD_USER_INPUT: "}},
		{"AuditMissingFlag", e.token, []string{"audit"}, 2, []string{"-event is required"}},
		{"TokenWithoutSecret", e.token, []string{"-data", t.TempDir(), "token", "-secret", "", "-sub", "x"}, 2, []string{"PICKEM_DEV_SECRET"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e.as(t, tt.token, tt.args...).fails(t, tt.code, tt.stderr...)
		})
	}

	t.Run("TypoInCardFile", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "typo.yaml")
		card := "name: Typo\nstartsAt: \"2025-06-01T20:00:00Z\"\nmatches:\n  - name: M\n    points: 5\n    teams:\n      - members: [A]\n        champ: true\n      - members: [B]\n"
		if err := os.WriteFile(path, []byte(card), 0o644); err != nil {
			t.Fatal(err)
		}
		e.admin(t, "create-event", "-file", path).fails(t, 1, "champ")
	})
}

func mintWith(t *testing.T, secret string) string {
	t.Helper()
	tok, err := auth.MintHS256([]byte(secret), auth.Identity{ID: "root", Name: "Root", Groups: []string{auth.AdminGroup}}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// TestAdminHelpPrintsNoSecrets: `-h` of the command and of every subcommand exits 0 and
// never shows PICKEM_TOKEN or PICKEM_DEV_SECRET, which would otherwise be flag defaults.
func TestAdminHelpPrintsNoSecrets(t *testing.T) {
	const token, secret = "token-from-the-environment-0123", "secret-from-the-environment-4567"
	t.Setenv("PICKEM_TOKEN", token)
	t.Setenv("PICKEM_DEV_SECRET", secret)
	cases := [][]string{{"-h"}, {"help"}, {"-token", "given", "-h"}}
	for _, c := range commands {
		cases = append(cases, []string{c.name, "-h"})
	}
	for _, args := range cases {
		var out, errb bytes.Buffer
		code := run(args, &out, &errb)
		text := out.String() + errb.String()
		if code != 0 || strings.Contains(text, token) || strings.Contains(text, secret) || strings.Contains(text, "given") {
			t.Errorf("admin %s: exit %d, output:\n%s", strings.Join(args, " "), code, text)
		}
	}
}

// TestAdminUsesTheLocalServersSecret: with no token, against a loopback URL, the command
// mints an admin token from the dev secret in -data (the local server's), and `token`
// does the same without -secret.
func TestAdminUsesTheLocalServersSecret(t *testing.T) {
	t.Setenv("PICKEM_TOKEN", "")
	t.Setenv("PICKEM_DEV_SECRET", "")
	dir, err := localdata.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	secret, _, err := dir.Key(localdata.DevSecretFile)
	if err != nil {
		t.Fatal(err)
	}
	store := dynamo.New(dynamotest.Client(t), dynamotest.TableName(), dynamo.WithClock(func() time.Time { return clock }))
	if err := store.EnsureTable(t.Context()); err != nil {
		t.Fatal(err)
	}
	h, err := server.New(server.Config{Store: store, Verifier: auth.NewHS256([]byte(secret)), Now: func() time.Time { return clock }})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h) // 127.0.0.1
	defer srv.Close()
	url := srv.URL + "/graphql"
	admin := func(args ...string) runResult {
		var out, errb bytes.Buffer
		code := run(append([]string{"-url", url, "-data", string(dir)}, args...), &out, &errb)
		return runResult{out.String(), errb.String(), code}
	}

	admin("create-event", "-file", cardPath).ok(t).has(t, "created event "+cardID)
	tok := strings.TrimSpace(admin("token", "-sub", "ann", "-name", "Ann").ok(t).stdout)
	if _, err := auth.NewHS256([]byte(secret)).Verify(t.Context(), tok); err != nil {
		t.Errorf("token minted without -secret: %v", err)
	}

	// Another -data (no secret there): no token, so the server refuses the admin mutation.
	var out, errb bytes.Buffer
	code := run([]string{"-url", url, "-data", t.TempDir(), "lock", "-event", cardID}, &out, &errb)
	if code != 1 || !strings.Contains(errb.String(), "UNAUTHENTICATED") {
		t.Errorf("without a secret: exit %d, %s", code, errb.String())
	}
}

func TestIsLoopback(t *testing.T) {
	for url, want := range map[string]bool{
		"http://127.0.0.1:8080/graphql":  true,
		"http://localhost:8080/graphql":  true,
		"http://[::1]:8080/graphql":      true,
		"https://api.example.com/":       false,
		"http://10.0.0.5:8080/graphql":   false,
		"http://127.0.0.1.example.com/":  false,
		"not a url at all ://127.0.0.1/": false,
	} {
		if got := isLoopback(url); got != want {
			t.Errorf("isLoopback(%q) = %v", url, got)
		}
	}
}

func TestParseStart(t *testing.T) {
	now := time.Date(2026, 3, 9, 17, 42, 5, 0, time.FixedZone("CET", 3600))
	for in, want := range map[string]string{
		"+7d":                  "2026-03-16T16:00:00Z",
		"+36h":                 "2026-03-11T04:00:00Z",
		"2026-12-01T22:00:00Z": "2026-12-01T22:00:00Z",
	} {
		if got, err := parseStart(in, now); err != nil || got != want {
			t.Errorf("parseStart(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"+0d", "+-3h", "+7x", "tomorrow", "2026-12-01"} {
		if _, err := parseStart(bad, now); err == nil {
			t.Errorf("parseStart(%q) accepted", bad)
		}
	}
}
