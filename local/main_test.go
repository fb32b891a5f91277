package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pickem/api/auth"
	"github.com/pickem/api/demo"
	"github.com/pickem/api/internal/dynamotest"
	"github.com/pickem/api/internal/localdata"
	"github.com/pickem/api/internal/testlog"
)

// The package's tests share one DynamoDB Local (DYNAMODB_ENDPOINT, a table each), except
// those of the child engine, where run starts its own as `go run ./local` does.
func TestMain(m *testing.M) { dynamotest.Main(m) }

// shared returns the environment of a server on the package's engine, in a new table,
// with the variables in kv added (name, value, ...).
func shared(t *testing.T, kv ...string) map[string]string {
	t.Helper()
	env := map[string]string{"DYNAMODB_ENDPOINT": dynamotest.Endpoint(t), "TABLE_NAME": dynamotest.TableName()}
	for i := 0; i+1 < len(kv); i += 2 {
		env[kv[i]] = kv[i+1]
	}
	return env
}

// localServer is a running `run`, as `go run ./local` runs it.
type localServer struct {
	base, playerTok, adminTok string
	realtimeURL, realtimeAuth string // the banner's real-time endpoint and its authorization
	cancel                    context.CancelFunc
	done                      chan error
	log                       *testlog.Buffer
}

// startLocal runs the local server on a free port with state directory dir and
// environment env, and waits for its banner.
func startLocal(t *testing.T, dir string, env map[string]string, args ...string) *localServer {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	s := &localServer{cancel: cancel, done: make(chan error, 1), log: &testlog.Buffer{}}
	pr, pw := io.Pipe()
	go func() {
		err := run(ctx, append([]string{"-addr", "127.0.0.1:0", "-data", dir}, args...), func(k string) string { return env[k] }, pw, s.log)
		pw.Close()
		s.done <- err
	}()
	lines := make(chan string, 64)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	// Read the banner: the address, then the two tokens. A child engine starts a JVM first.
	timeout := time.After(2 * time.Minute)
	for s.adminTok == "" {
		select {
		case line, ok := <-lines:
			if !ok {
				t.Fatalf("run stopped printing before the tokens: %v\n%s", <-s.done, s.log)
			}
			switch {
			case strings.HasPrefix(line, "Pick'Em API listening on "):
				s.base = strings.TrimPrefix(line, "Pick'Em API listening on ")
			case strings.HasPrefix(line, "  Realtime:   "):
				s.realtimeURL, _, _ = strings.Cut(strings.TrimPrefix(line, "  Realtime:   "), " ")
			case strings.Contains(line, `"x-api-key"`):
				s.realtimeAuth = strings.TrimSpace(line)
			case strings.Contains(line, "player:"):
				s.playerTok = bearer(t, line)
			case strings.Contains(line, "admin:"):
				s.adminTok = bearer(t, line)
			}
		case <-timeout:
			t.Fatalf("no banner within 2 minutes\n%s", s.log)
		}
	}
	go func() {
		for range lines {
		}
	}()
	if !strings.HasPrefix(s.base, "http://127.0.0.1:") || strings.HasSuffix(s.base, ":0") || s.playerTok == "" {
		t.Fatalf("banner: base %q, player token %q", s.base, s.playerTok)
	}
	return s
}

// stop cancels the server's context and expects a clean shutdown.
func (s *localServer) stop(t *testing.T) {
	t.Helper()
	s.cancel()
	select {
	case err := <-s.done:
		if err != nil {
			t.Fatalf("run returned %v after cancel, want nil\n%s", err, s.log)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("run did not return within 30 s of cancel")
	}
}

var client = &http.Client{Timeout: 30 * time.Second}

// gql sends one GraphQL request and decodes its data into out; it fails the test on any
// error in the answer.
func gql(t *testing.T, base, token, query string, vars map[string]any, out any) map[string]json.RawMessage {
	t.Helper()
	ext, errs := gqlErrors(t, base, token, query, vars, out)
	if len(errs) > 0 {
		t.Fatalf("errors %s", errs)
	}
	return ext
}

// gqlErrors sends one GraphQL request and returns its extensions and errors.
func gqlErrors(t *testing.T, base, token, query string, vars map[string]any, out any) (map[string]json.RawMessage, []json.RawMessage) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, base+"/graphql", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("POST /graphql: %v", err)
	}
	defer resp.Body.Close()
	var r struct {
		Data       json.RawMessage
		Errors     []json.RawMessage
		Extensions map[string]json.RawMessage
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		t.Fatalf("decode: %v", err)
	}
	if resp.StatusCode != http.StatusOK && len(r.Errors) == 0 {
		t.Fatalf("status %d without errors", resp.StatusCode)
	}
	if len(r.Errors) == 0 && out != nil {
		if err := json.Unmarshal(r.Data, out); err != nil {
			t.Fatalf("data %s: %v", r.Data, err)
		}
	}
	return r.Extensions, r.Errors
}

// TestRunServesDemoData boots the local server with demo data and a new state directory on
// a free port, queries the demo data over HTTP with the printed tokens, then cancels its
// context and expects a clean shutdown.
func TestRunServesDemoData(t *testing.T) {
	s := startLocal(t, t.TempDir(), shared(t), "-seed")
	base, playerTok, adminTok := s.base, s.playerTok, s.adminTok
	gql := func(t *testing.T, token, query string, vars map[string]any, out any) map[string]json.RawMessage {
		t.Helper()
		return gql(t, base, token, query, vars, out)
	}
	get := func(t *testing.T, path string) (int, string) {
		t.Helper()
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, base+path, nil)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}

	type event struct {
		ID     string
		Name   string
		Season int
		State  string
	}
	var scored, upcoming event
	t.Run("HealthzAndPlayground", func(t *testing.T) {
		if code, body := get(t, "/healthz"); code != http.StatusOK || strings.TrimSpace(body) != "ok" {
			t.Fatalf("GET /healthz: %d %q", code, body)
		}
		// The vendored playground (internal/playground), not gqlgen's CDN page.
		code, body := get(t, "/")
		if code != http.StatusOK || !strings.Contains(body, `src="/playground/graphiql.min.js"`) || !strings.Contains(body, "admin token -sub") ||
			strings.Contains(body, "cdn.jsdelivr.net") {
			t.Fatalf("GET /: %d\n%s", code, body)
		}
		if code, body := get(t, "/playground/graphiql.min.js"); code != http.StatusOK || len(body) < 1<<20 {
			t.Fatalf("GET /playground/graphiql.min.js: %d, %d bytes", code, len(body))
		}
	})
	t.Run("EventsIncludeScoredAndUpcoming", func(t *testing.T) {
		var d struct {
			Events struct{ Edges []struct{ Node event } }
		}
		gql(t, "", `{ events { edges { node { id name season state } } } }`, nil, &d)
		for _, e := range d.Events.Edges {
			switch e.Node.State {
			case "SCORED":
				if scored.ID == "" {
					scored = e.Node
				}
			case "UPCOMING":
				upcoming = e.Node
			}
		}
		if scored.ID == "" || upcoming.ID == "" {
			t.Fatalf("events %+v: want a SCORED and an UPCOMING one", d.Events.Edges)
		}
	})
	if scored.ID == "" || upcoming.ID == "" {
		t.FailNow()
	}
	t.Run("ScoredEventHasLeaderboard", func(t *testing.T) {
		var d struct {
			Event struct {
				Matches     []struct{ ID string }
				Leaderboard struct {
					Edges []struct{ Node struct{ Rank *int } }
				}
			}
		}
		ext := gql(t, "", `query($id: ID!) { event(id: $id) { matches { id } leaderboard { edges { node { rank } } } } }`,
			map[string]any{"id": scored.ID}, &d)
		if len(d.Event.Matches) == 0 || len(d.Event.Leaderboard.Edges) == 0 || *d.Event.Leaderboard.Edges[0].Node.Rank != 1 {
			t.Fatalf("event %+v", d.Event)
		}
		// One Query (the demo's events have one shard: the card and the top of the
		// leaderboard), and the capacity DynamoDB Local reports for it.
		var cost struct {
			Calls             int
			ReadCapacityUnits *float64
		}
		if err := json.Unmarshal(ext["dynamodb"], &cost); err != nil || cost.Calls != 1 ||
			cost.ReadCapacityUnits == nil || *cost.ReadCapacityUnits <= 0 {
			t.Fatalf("extensions.dynamodb = %s", ext["dynamodb"])
		}
	})
	t.Run("StandingsOfTheScoredSeason", func(t *testing.T) {
		var d struct {
			Standings struct {
				Edges []struct{ Node struct{ Rank, Points int } }
			}
		}
		gql(t, "", `query($s: Int!) { standings(season: $s) { edges { node { rank points } } } }`, map[string]any{"s": scored.Season}, &d)
		if len(d.Standings.Edges) == 0 || d.Standings.Edges[0].Node.Rank != 1 {
			t.Fatalf("standings of %d: %+v", scored.Season, d.Standings.Edges)
		}
	})
	t.Run("PlayerTokenIsTheDemoPlayer", func(t *testing.T) {
		var d struct{ Me struct{ ID, Name string } }
		gql(t, playerTok, `{ me { id name } }`, nil, &d)
		if d.Me.ID != "demo-player" || d.Me.Name != "Demo Player" {
			t.Fatalf("me = %+v", d.Me)
		}
	})
	t.Run("AdminTokenScoresDryRun", func(t *testing.T) {
		var d struct {
			ScoreEvent struct {
				EventID           string
				DryRun            bool
				PredictionsScored int
			}
		}
		gql(t, adminTok, `mutation($e: ID!) { scoreEvent(eventId: $e, dryRun: true) { eventId dryRun predictionsScored } }`,
			map[string]any{"e": scored.ID}, &d)
		if d.ScoreEvent.EventID != scored.ID || !d.ScoreEvent.DryRun || d.ScoreEvent.PredictionsScored != 0 {
			t.Fatalf("scoreEvent = %+v", d.ScoreEvent)
		}
	})

	s.stop(t)
}

// bearer extracts the token from a banner line `  admin:  {"Authorization": "Bearer <tok>"}`.
func bearer(t *testing.T, line string) string {
	t.Helper()
	_, rest, ok := strings.Cut(line, "{")
	var h map[string]string
	if !ok || json.Unmarshal([]byte("{"+rest), &h) != nil || !strings.HasPrefix(h["Authorization"], "Bearer ") {
		t.Fatalf("banner line %q is not a pasteable header", line)
	}
	return strings.TrimPrefix(h["Authorization"], "Bearer ")
}

// TestRunRejectsBadConfiguration: configuration and flag errors come back from run before
// anything starts.
func TestRunRejectsBadConfiguration(t *testing.T) {
	endpoint := dynamotest.Endpoint(t) // were one of them to get that far, no JVM starts
	for name, c := range map[string]struct {
		args []string
		env  map[string]string
	}{
		"UnknownFlag":    {[]string{"-nope"}, nil},
		"BadBool":        {nil, map[string]string{"PICKEM_COST_EXTENSION": "maybe"}},
		"HalfCognito":    {nil, map[string]string{"COGNITO_USER_POOL_ID": "us-east-1_abc"}},
		"TooManyShards":  {nil, map[string]string{"PICKEM_SCORE_SHARDS": "17"}},
		"AddressInvalid": {[]string{"-addr", "256.0.0.1:http-nope", "-seed=false"}, nil},
	} {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			args := append([]string{"-data", t.TempDir()}, c.args...)
			getenv := func(k string) string {
				if k == "DYNAMODB_ENDPOINT" {
					return endpoint
				}
				return c.env[k]
			}
			if err := run(ctx, args, getenv, io.Discard, io.Discard); err == nil {
				t.Fatal("run returned nil")
			}
		})
	}
}

// TestRestartKeepsDataAndTokens restarts the local server, with the DynamoDB Local it
// starts, on the same -data: the events, a player's writes and a token printed before the
// restart are all still there; the demo data is not loaded a second time. While it runs,
// a second server on the same -data is refused; stopped, it leaves no JVM.
func TestRestartKeepsDataAndTokens(t *testing.T) {
	dir := t.TempDir()
	type events struct {
		Events struct {
			Edges []struct{ Node struct{ ID, State string } }
		}
	}
	var before events
	first := startLocal(t, dir, map[string]string{}) // no DYNAMODB_ENDPOINT: a child engine
	err := run(t.Context(), []string{"-addr", "127.0.0.1:0", "-data", dir}, func(string) string { return "" }, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "already runs on it") {
		t.Errorf("second run on the same -data = %v", err)
	}
	gql(t, first.base, "", `{ events(first: 50) { edges { node { id state } } } }`, nil, &before)
	var upcoming string
	for _, e := range before.Events.Edges {
		if e.Node.State == "UPCOMING" {
			upcoming = e.Node.ID
		}
	}
	var card struct {
		Event struct{ Matches []struct{ ID string } }
	}
	gql(t, first.base, "", `query($id: ID!) { event(id: $id) { matches { id } } }`, map[string]any{"id": upcoming}, &card)
	if len(before.Events.Edges) == 0 || upcoming == "" || len(card.Event.Matches) == 0 {
		t.Fatalf("demo data: events %+v, card %+v", before, card)
	}
	var page struct {
		Events struct{ PageInfo struct{ EndCursor string } }
	}
	gql(t, first.base, "", `{ events(first: 1) { pageInfo { endCursor } } }`, nil, &page)
	gql(t, first.base, first.playerTok, `mutation { register(name: "Player Before Restart") { id } }`, nil, nil)
	gql(t, first.base, first.playerTok, `mutation($e: ID!, $m: ID!) { submitPrediction(eventId: $e, picks: [{matchId: $m, team: 1}]) { updatedAt } }`,
		map[string]any{"e": upcoming, "m": card.Event.Matches[0].ID}, nil)
	firstEngine := enginePid(t, first.log)
	first.stop(t)
	if isChildJava(firstEngine, os.Getpid()) {
		t.Errorf("DynamoDB Local (pid %d) still runs after the server stopped", firstEngine)
	}

	if fi, err := os.Stat(filepath.Join(dir, "dev-secret")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("dev-secret: %v, %v (want mode 0600)", fi, err)
	}

	second := startLocal(t, dir, map[string]string{})
	defer second.stop(t)
	var after events
	gql(t, second.base, "", `{ events(first: 50) { edges { node { id state } } } }`, nil, &after)
	if b, a := fmt.Sprint(before.Events.Edges), fmt.Sprint(after.Events.Edges); a != b {
		t.Errorf("events after the restart %s, before %s", a, b)
	}
	// The token printed by the first run, sent to the second.
	var d struct {
		Me         struct{ ID, Name string }
		Prediction struct{ Picks []struct{ MatchID string } }
	}
	gql(t, second.base, first.playerTok, `query($e: ID!) { me { id name } prediction(eventId: $e) { picks { matchId } } }`, map[string]any{"e": upcoming}, &d)
	if d.Me.ID != "demo-player" || d.Me.Name != "Player Before Restart" || len(d.Prediction.Picks) != 1 {
		t.Errorf("after the restart, with the first run's token: %+v", d)
	}
	// A cursor from the first run still pages (the cursor key is kept in -data too).
	var next events
	gql(t, second.base, "", `query($c: String) { events(first: 50, after: $c) { edges { node { id state } } } }`,
		map[string]any{"c": page.Events.PageInfo.EndCursor}, &next)
	if len(next.Events.Edges) != len(before.Events.Edges)-1 {
		t.Errorf("after the restart, the first run's cursor gave %d events, want %d", len(next.Events.Edges), len(before.Events.Edges)-1)
	}
	if !strings.Contains(second.log.String(), "demo data not loaded") {
		t.Errorf("the second run did not say it left the demo data alone:\n%s", second.log)
	}
}

// TestFreshStartsOver: -fresh drops DynamoDB Local's saved data (a player's rename is gone,
// the demo data is back) but keeps the dev secret, so old tokens still work.
func TestFreshStartsOver(t *testing.T) {
	dir := t.TempDir()
	first := startLocal(t, dir, map[string]string{}) // no DYNAMODB_ENDPOINT: a child engine
	gql(t, first.base, first.playerTok, `mutation { register(name: "Renamed") { id } }`, nil, nil)
	first.stop(t)
	second := startLocal(t, dir, map[string]string{}, "-fresh")
	defer second.stop(t)
	var d struct{ Me struct{ Name string } }
	gql(t, second.base, first.playerTok, `{ me { name } }`, nil, &d)
	if d.Me.Name != "Demo Player" {
		t.Errorf("after -fresh me.name = %q, want the demo's", d.Me.Name)
	}
	if !strings.Contains(second.log.String(), "demo data loaded") {
		t.Errorf("the run with -fresh did not load the demo data:\n%s", second.log)
	}
}

// TestSecondServerOnTheSameDataIsRefused: two DynamoDB Locals must not open one database.
// The lock is held here as a running server holds it (TestRestartKeepsDataAndTokens checks
// that one does); run stops before it starts anything.
func TestSecondServerOnTheSameDataIsRefused(t *testing.T) {
	dir, err := localdata.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	release, err := dir.Lock()
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	err = run(t.Context(), []string{"-addr", "127.0.0.1:0", "-data", string(dir)}, func(string) string { return "" }, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "already runs on it") {
		t.Fatalf("second run on the same -data = %v", err)
	}
	if _, err := os.Stat(dir.Path(localdata.EngineDir)); !os.IsNotExist(err) {
		t.Errorf("DynamoDB Local's data directory was made: %v", err)
	}
}

// TestEnvSecretWinsAndWrongSecretSaysSo: PICKEM_DEV_SECRET is used over the file, and a
// token signed with another secret is refused with a message that says why.
func TestEnvSecretWinsAndWrongSecretSaysSo(t *testing.T) {
	dir := t.TempDir()
	s := startLocal(t, dir, shared(t, "PICKEM_DEV_SECRET", "0123456789abcdef0123456789abcdef"), "-seed")
	defer s.stop(t)
	if _, err := os.Stat(filepath.Join(dir, "dev-secret")); !os.IsNotExist(err) {
		t.Errorf("a dev-secret file was written although PICKEM_DEV_SECRET is set: %v", err)
	}
	other, _ := auth.MintHS256([]byte("another secret, another server"), demo.Player, time.Hour)
	_, errs := gqlErrors(t, s.base, other, `{ me { id } }`, nil, nil)
	var e []struct {
		Message    string
		Extensions struct{ Code string }
	}
	b, _ := json.Marshal(errs)
	_ = json.Unmarshal(b, &e)
	if len(e) != 1 || e[0].Extensions.Code != "UNAUTHENTICATED" || !strings.Contains(e[0].Message, "dev secret") {
		t.Fatalf("errors %s, want UNAUTHENTICATED saying the dev secret may have changed", errs)
	}
	var d struct{ Me struct{ ID string } }
	gql(t, s.base, s.playerTok, `{ me { id } }`, nil, &d)
	if d.Me.ID != "demo-player" {
		t.Errorf("me = %+v with the printed token", d.Me)
	}
}

// TestHelpPrintsNoSecret: -h returns flag.ErrHelp (main exits 0), also when the
// environment holds a setting run would refuse, and the help shows no secret from the
// environment.
func TestHelpPrintsNoSecret(t *testing.T) {
	const secret = "do-not-print-this-secret-0123456789"
	for name, env := range map[string]map[string]string{
		"Secrets":        {"PICKEM_DEV_SECRET": secret, "PICKEM_CURSOR_KEYS": "ZG8tbm90LXByaW50LXRoaXMta2V5LTAxMjM0NTY3ODk="},
		"InvalidSetting": {"PICKEM_DEV_SECRET": secret, "PICKEM_CURSOR_KEYS": "too-short", "PICKEM_COST_EXTENSION": "maybe"},
	} {
		t.Run(name, func(t *testing.T) {
			var out bytes.Buffer
			err := run(t.Context(), []string{"-h"}, func(k string) string { return env[k] }, &out, &out)
			if !errors.Is(err, flag.ErrHelp) {
				t.Fatalf("run -h = %v, want flag.ErrHelp", err)
			}
			for _, v := range env {
				if strings.Contains(out.String(), v) {
					t.Errorf("help shows %q from the environment", v)
				}
			}
			if !strings.Contains(out.String(), "-data") {
				t.Errorf("help:\n%s", out.String())
			}
		})
	}
}

// TestTakenAddressIsSaidFirst: a second server on a taken port (another -data directory)
// stops with a hint before it starts DynamoDB Local.
func TestTakenAddressIsSaidFirst(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	dir := t.TempDir()
	err = run(t.Context(), []string{"-addr", ln.Addr().String(), "-data", dir}, func(string) string { return "" }, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "-addr or PICKEM_ADDR") {
		t.Fatalf("run on a taken address = %v, want a hint naming -addr", err)
	}
	for _, name := range []string{localdata.EngineDir, localdata.EngineLogFile} {
		if _, err := os.Stat(filepath.Join(dir, name)); !os.IsNotExist(err) {
			t.Errorf("DynamoDB Local was started before the address was checked: %s: %v", name, err)
		}
	}
}

// TestWithAnEndpointOnlyKeysPersist: with DYNAMODB_ENDPOINT the data lives in that engine;
// -data keeps the keys only (no engine is started, no lock taken), and demo data is off
// unless asked for.
func TestWithAnEndpointOnlyKeysPersist(t *testing.T) {
	dir := t.TempDir()
	s := startLocal(t, dir, shared(t))
	var d struct {
		Events struct {
			Edges []struct{ Node struct{ ID string } }
		}
	}
	gql(t, s.base, "", `{ events { edges { node { id } } } }`, nil, &d)
	s.stop(t)
	if len(d.Events.Edges) != 0 {
		t.Errorf("demo data loaded into DYNAMODB_ENDPOINT without -seed: %v", d.Events.Edges)
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != "cursor-key dev-secret realtime-api-key" {
		t.Errorf("-data holds %v, want the keys only", names)
	}
}
