package record

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"golang.org/x/sync/errgroup"

	"github.com/pickem/api/auth"
	"github.com/pickem/api/bench/frontend"
	"github.com/pickem/api/domain"
	"github.com/pickem/api/dynamo"
	"github.com/pickem/api/dynamo/ddb"
	"github.com/pickem/api/internal/testclock"
	"github.com/pickem/api/server"
)

// RecordOptions configure a recording.
type RecordOptions struct {
	// Design names what is recorded ("after" for the current code).
	Design string
	// Players is the number of players (≤ 10,000: DynamoDB Local is slow).
	Players int
	// Viewers is how many players' views are recorded per view load (the card,
	// standings and leaderboard screens cost the same whoever opens them, which the
	// soundness check verifies); 0 means min(Players, 80).
	Viewers int
	// Workers is how many players send requests at once while recording (default 8).
	Workers int
	// PageSize is the `first` of the standings and leaderboard screens (0: 50, the
	// frontend's page). A sharded page reads up to PageSize entries of every shard: small
	// recordings (tests)
	// use a small page, so that every shard fills it at both sizes as at a million.
	PageSize int
	// Endpoint is a DynamoDB Local endpoint; Record makes its own table there.
	Endpoint string
	// Template is the path of deploy/template.yaml (the front door's settings).
	Template string
	// Commit is stored in the recording.
	Commit string
	// Shards is the shard count of the recorded events and season
	// (dynamo.WithScoreShards; 0: the store's default, 1).
	Shards int
	// Leagues puts every player in that many leagues (seedLeagues, at most
	// domain.MaxLeaguesPerPlayer) before the show is scored (0: none).
	Leagues int
	// NoProbes skips the fault probes (StoreRetries stays empty): the model only needs
	// them in the recording it replays.
	NoProbes bool
	// ScoringOnly records the scoring job alone: the submits are sent but not recorded,
	// and there are no views and no probes (the model replays their scoring alone).
	ScoringOnly bool
	// Game makes the show use every game extra (see gameSpec): its card, results and
	// tie-breaker answer (set before the final pass) are written through the store, and
	// its submits carry methods, a joker and a guess, sent to the store's SubmitPrediction
	// with the calls the API's submit makes (the frontend's document does not carry them).
	Game bool
	// Log receives progress lines (nil: none).
	Log io.Writer
}

// Times of the recorded season: a previous event (so that every player has a standing,
// as mid-season) and the show.
var (
	previousStart = time.Date(2030, 5, 2, 20, 0, 0, 0, time.UTC)
	showStart     = time.Date(2030, 6, 1, 20, 0, 0, 0, time.UTC)
	probeStart    = time.Date(2030, 6, 8, 20, 0, 0, 0, time.UTC)
	season        = 2030
)

// ShowID is the id of the recorded show: the event whose submits, card views, scoring and
// leaderboard a recording holds.
var ShowID = eventID(showStart, "scale-show")

// eventID is the id of the event created for slug at start.
func eventID(start time.Time, slug string) string { return start.Format("2006-01-02") + "-" + slug }

// harness drives the real API handler over one table of DynamoDB Local.
type harness struct {
	opts    RecordOptions
	db      *dynamodb.Client
	table   string
	clock   *testclock.Clock
	handler http.Handler  // over a store whose scoring budget is tinyBudget
	wide    http.Handler  // over a store whose scoring budget is wideBudget
	full    http.Handler  // over a store without a scoring budget
	store   *dynamo.Store // full's store: the game's setup and submits (Game)
	secret  []byte
	log     io.Writer

	once          sync.Once
	scoreMutation string
}

func newHarness(ctx context.Context, opts RecordOptions, api func(ddb.API) ddb.API) (*harness, error) {
	db, err := ddb.NewClient(ctx, opts.Endpoint)
	if err != nil {
		return nil, err
	}
	h := &harness{opts: opts, db: db, table: fmt.Sprintf("pickem_scale_%d_%d", opts.Players, time.Now().UnixNano()),
		clock: testclock.New(previousStart.Add(-24 * time.Hour)), secret: make([]byte, 32), log: opts.Log}
	if h.log == nil {
		h.log = io.Discard
	}
	_, _ = rand.Read(h.secret)
	var storeAPI ddb.API = db
	if api != nil {
		storeAPI = api(db)
	}
	newHandler := func(opts ...dynamo.Option) (http.Handler, error) {
		opts = append(opts, dynamo.WithClock(h.clock.Now), dynamo.WithScoreShards(h.opts.Shards))
		store := dynamo.New(storeAPI, h.table, opts...)
		if err := store.EnsureTable(ctx); err != nil {
			return nil, err
		}
		h.store = store
		return server.New(server.Config{Store: store, Verifier: auth.NewHS256(h.secret), Now: h.clock.Now,
			Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	}
	if h.handler, err = newHandler(dynamo.WithScoringBudget(tinyBudget)); err != nil {
		return nil, err
	}
	if h.wide, err = newHandler(dynamo.WithScoringBudget(wideBudget)); err != nil {
		return nil, err
	}
	h.full, err = newHandler()
	return h, err
}

// The scoring budgets of recordings: the smallest, so that a scoreEvent call does one unit
// of work (the code always does at least one), and one that lets a call do several on
// DynamoDB Local. Recorded calls alternate between them (JobTrace).
const (
	tinyBudget = time.Nanosecond
	wideBudget = 500 * time.Millisecond
)

// answer is what a GraphQL request returned.
type answer struct {
	status       int
	code         string // the first error's extensions.code, or the HTTP status
	data         map[string]json.RawMessage
	cacheControl string
}

// send sends one GraphQL request through the handler, recording its DynamoDB calls with
// rec (nil: not recorded).
func (h *harness) send(ctx context.Context, sc Screen, token string, vars map[string]any, rec *recorder) (answer, error) {
	return h.sendTo(ctx, h.handler, sc, token, vars, rec)
}

// sendTo is send through handler.
func (h *harness) sendTo(ctx context.Context, handler http.Handler, sc Screen, token string, vars map[string]any, rec *recorder) (answer, error) {
	body, err := json.Marshal(frontend.Request{Query: sc.Document, Variables: vars})
	if err != nil {
		return answer{}, err
	}
	if rec != nil {
		ctx = withRecorder(ctx, rec)
	}
	req := httptest.NewRequestWithContext(ctx, sc.Method, "/graphql", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	w := httptest.NewRecorder()
	handler.ServeHTTP(w, req)
	a := answer{status: w.Code, cacheControl: w.Header().Get("Cache-Control")}
	var out struct {
		Data   map[string]json.RawMessage `json:"data"`
		Errors []struct {
			Message    string         `json:"message"`
			Extensions map[string]any `json:"extensions"`
		} `json:"errors"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil {
		return a, fmt.Errorf("scale: answer %.200s: %w", w.Body.String(), err)
	}
	a.data = out.Data
	switch {
	case len(out.Errors) > 0:
		a.code = fmt.Sprint(out.Errors[0].Extensions["code"])
	case w.Code != http.StatusOK:
		a.code = fmt.Sprintf("HTTP %d", w.Code)
	}
	return a, nil
}

func (h *harness) token(id, name string, admin bool) string {
	ident := auth.Identity{ID: id, Name: name}
	if admin {
		ident.Groups = []string{auth.AdminGroup}
	}
	t, err := auth.MintHS256(h.secret, ident, 24*365*time.Hour)
	if err != nil {
		panic(err) // ids are made here and valid
	}
	return t
}

// admin sends an admin request (not recorded), again while it is answered UNAVAILABLE.
func (h *harness) admin(ctx context.Context, doc string, vars map[string]any) (answer, error) {
	return h.untraced(ctx, Screen{Method: "POST", Document: doc}, h.token("scale-admin", "Scale Admin", true), vars)
}

// untraced sends a request that is not recorded, again while it is answered UNAVAILABLE,
// and fails on any other error.
func (h *harness) untraced(ctx context.Context, sc Screen, token string, vars map[string]any) (answer, error) {
	retried := 0
	for {
		a, err := h.send(ctx, sc, token, vars, nil)
		if err != nil || unavailable(a, &retried) {
			if err != nil {
				return a, err
			}
			continue
		}
		if a.code != "" {
			return a, fmt.Errorf("scale: request failed: %s", a.code)
		}
		return a, nil
	}
}

func playerName(i int) string { return fmt.Sprintf("Player %07d", i) }

// card is the recorded event's card: nine matches, like a large show.
func card() []map[string]any {
	var ms []map[string]any
	for i := 1; i <= 9; i++ {
		teams := []map[string]any{
			{"members": []string{fmt.Sprintf("Wrestler %d Red", i)}},
			{"members": []string{fmt.Sprintf("Wrestler %d Blue", i)}, "champion": i%3 == 0},
		}
		if i%4 == 0 {
			teams = []map[string]any{
				{"name": fmt.Sprintf("Team %d Red", i), "members": []string{fmt.Sprintf("Tag %d A", i), fmt.Sprintf("Tag %d B", i)}},
				{"name": fmt.Sprintf("Team %d Blue", i), "members": []string{fmt.Sprintf("Tag %d C", i), fmt.Sprintf("Tag %d D", i)}},
			}
		}
		ms = append(ms, map[string]any{"name": fmt.Sprintf("Match %d", i), "points": 5 + i, "teams": teams})
	}
	return ms
}

const createEventDoc = `mutation($input: EventInput!) { createEvent(input: $input) { id matches { id } } }`
const setResultDoc = `mutation($e: ID!, $m: ID!, $w: Int) { setResult(eventId: $e, matchId: $m, result: {outcome: WIN, winner: $w}) { id } }`

// event is a created event and its match ids.
type event struct {
	id      string
	matches []string
	// game: the event uses every game extra (gameSpec); methods are its matches' method
	// points.
	game    bool
	methods []int
}

// gameAnswer is the tie-breaker answer of a game show.
const gameAnswer = 540

// gameSpec is the show of a Game recording as the store creates it: card()'s matches with
// method points on every other one, jokers, a perfect-card bonus and a tie-breaker question.
func gameSpec(id, name string, start time.Time) domain.EventSpec {
	q := "How many seconds will the main event last?"
	spec := domain.EventSpec{ID: &id, Name: name, StartsAt: start,
		Settings: domain.EventSettings{Jokers: true, PerfectCardBonus: 25, Tiebreaker: &q}}
	for i, m := range card() {
		ms := domain.MatchSpec{Name: m["name"].(string), Points: m["points"].(int)}
		if i%2 == 0 {
			ms.MethodPoints = 5
		}
		for _, t := range m["teams"].([]map[string]any) {
			team := domain.Team{Members: t["members"].([]string)}
			if n, ok := t["name"].(string); ok {
				team.Name = &n
			}
			team.Champion, _ = t["champion"].(bool)
			ms.Teams = append(ms.Teams, team)
		}
		spec.Matches = append(spec.Matches, ms)
	}
	return spec
}

// createGame creates the show of a Game recording through the store (not recorded).
func (h *harness) createGame(ctx context.Context, slug string, start time.Time) (event, error) {
	created, err := h.store.CreateEvent(ctx, gameSpec(eventID(start, slug), "Scale "+slug, start))
	if err != nil {
		return event{}, err
	}
	ev := event{id: created.ID, game: true}
	for _, m := range created.Matches {
		ev.matches, ev.methods = append(ev.matches, m.ID), append(ev.methods, m.MethodPoints)
	}
	return ev, nil
}

// entry is player p's entry on a game event: picks(p)'s teams, a method on every match
// offering one, a joker and, for nine players in ten, a guess.
func (ev event) entry(p int) domain.Entry {
	methods := domain.VictoryMethods()
	var en domain.Entry
	for i, pk := range ev.picks(p) {
		dp := domain.Pick{MatchID: pk.MatchID, Team: pk.Team}
		if ev.methods[i] > 0 {
			dp.Method = &methods[(p+i)%len(methods)]
		}
		en.Picks = append(en.Picks, dp)
	}
	en.Joker = &ev.matches[p%len(ev.matches)]
	if p%10 != 0 {
		guess := (p * 37) % 1200
		en.Tiebreaker = &guess
	}
	return en
}

// submitGame sends player p's game entry to the store's SubmitPrediction (what the API's
// submitPrediction calls), recording its DynamoDB calls with rec (nil: not recorded), again
// while it is UNAVAILABLE; the answer carries the error's code.
func (h *harness) submitGame(ctx context.Context, ev event, p int, rec *recorder) (answer, error) {
	if rec != nil {
		ctx = withRecorder(ctx, rec)
	}
	_, err := h.store.SubmitPrediction(ctx, domain.UserRef{ID: playerID(p), Name: playerName(p)}, ev.id, ev.entry(p))
	if err != nil {
		return answer{code: string(domain.ErrorCode(err))}, nil
	}
	return answer{}, nil
}

func (h *harness) createEvent(ctx context.Context, slug string, start time.Time) (event, error) {
	id := eventID(start, slug)
	a, err := h.admin(ctx, createEventDoc, map[string]any{"input": map[string]any{
		"id": id, "name": "Scale " + slug, "startsAt": start.Format(time.RFC3339), "matches": card()}})
	if err != nil {
		return event{}, err
	}
	var out struct {
		ID      string `json:"id"`
		Matches []struct {
			ID string `json:"id"`
		} `json:"matches"`
	}
	if err := json.Unmarshal(a.data["createEvent"], &out); err != nil {
		return event{}, err
	}
	ev := event{id: out.ID}
	for _, m := range out.Matches {
		ev.matches = append(ev.matches, m.ID)
	}
	return ev, nil
}

// picks are player p's picks: a fixed pseudo-random team per match.
func (ev event) picks(p int) []frontend.Pick {
	var out []frontend.Pick
	for i, m := range ev.matches {
		out = append(out, frontend.Pick{MatchID: m, Team: (p*7 + i*3 + p/5) % 2})
	}
	return out
}

// results enters a winner for every match (the event must have locked); on a game event,
// with a method where the match offers a method pick, then the tie-breaker answer, through
// the store (not recorded).
func (h *harness) results(ctx context.Context, ev event) error {
	if ev.game {
		for i, m := range ev.matches {
			w := i % 2
			r := domain.MatchResult{Outcome: domain.OutcomeWin, Winner: &w}
			if ev.methods[i] > 0 {
				r.Method = &domain.VictoryMethods()[i%len(domain.VictoryMethods())]
			}
			if _, err := h.store.SetResult(ctx, ev.id, m, &r); err != nil {
				return err
			}
		}
		answer := gameAnswer
		_, err := h.store.SetTiebreakerAnswer(ctx, ev.id, &answer)
		return err
	}
	for i, m := range ev.matches {
		if _, err := h.admin(ctx, setResultDoc, map[string]any{"e": ev.id, "m": m, "w": i % 2}); err != nil {
			return err
		}
	}
	return nil
}

// scoreDoc is the admin's scoreEvent mutation: it asks for the report's "complete" when
// the schema has it (budgeted scoring), else for a field every version has.
func (h *harness) scoreDoc(ctx context.Context) string {
	h.once.Do(func() {
		h.scoreMutation = `mutation($e: ID!) { scoreEvent(eventId: $e) { complete } }`
		a, err := h.send(ctx, Screen{Method: "POST", Document: `mutation { scoreEvent(eventId: "2000-01-01-none", dryRun: true) { complete } }`},
			h.token("scale-admin", "Scale Admin", true), nil, nil)
		if err != nil || a.code == "GRAPHQL_VALIDATION_FAILED" {
			h.scoreMutation = `mutation($e: ID!) { scoreEvent(eventId: $e) { predictionsScored } }`
		}
	})
	return h.scoreMutation
}

// score runs the admin's scoring loop: scoreEvent until the report says complete (a report
// without "complete" is complete), the calls going through handlers in turn. With rec, it
// returns every invocation's calls.
func (h *harness) score(ctx context.Context, handlers []http.Handler, ev event, rec *recorder) (invocations [][]tracedCall, retried int, err error) {
	doc := h.scoreDoc(ctx)
	for len(invocations) < 100_000 {
		handler := handlers[len(invocations)%len(handlers)]
		a, err := h.sendTo(ctx, handler, Screen{Method: "POST", Document: doc}, h.token("scale-admin", "Scale Admin", true), map[string]any{"e": ev.id}, rec)
		if err != nil {
			return invocations, retried, err
		}
		var calls []tracedCall
		if rec != nil {
			calls = rec.take()
		}
		if unavailable(a, &retried) {
			continue // as the admin command does; the calls of the failed try are dropped
		}
		invocations = append(invocations, calls)
		if a.code != "" {
			return invocations, retried, fmt.Errorf("scale: scoreEvent %s: %s", ev.id, a.code)
		}
		var r struct {
			Complete *bool `json:"complete"`
		}
		if err := json.Unmarshal(a.data["scoreEvent"], &r); err != nil {
			return invocations, retried, err
		}
		if r.Complete == nil || *r.Complete {
			return invocations, retried, nil
		}
	}
	return invocations, retried, fmt.Errorf("scale: scoreEvent %s never completed", ev.id)
}

// maxRecordingRetries bounds the tries of one request answered UNAVAILABLE while
// recording.
const maxRecordingRetries = 5

// unavailable reports whether a request should be sent again: it was answered
// UNAVAILABLE (DynamoDB Local on a loaded machine can be slower than the client's
// per-attempt timeout) and has been retried fewer than maxRecordingRetries times. The
// failed try is not recorded: it shows the engine's slowness, not the code.
func unavailable(a answer, retried *int) bool {
	if a.code != "UNAVAILABLE" || *retried >= maxRecordingRetries {
		return false
	}
	*retried++
	return true
}

// each runs fn for players 1..n, opts.Workers at a time.
func (h *harness) each(ctx context.Context, players []int, fn func(ctx context.Context, p int) error) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(1, h.opts.Workers))
	for _, p := range players {
		g.Go(func() error { return fn(gctx, p) })
	}
	return g.Wait()
}

func allPlayers(n int) []int {
	ps := make([]int, n)
	for i := range ps {
		ps[i] = i + 1
	}
	return ps
}

// viewers spreads v viewers over n players.
func viewers(n, v int) []int {
	ps := make([]int, v)
	for i := range ps {
		ps[i] = 1 + i*n/v
	}
	return ps
}

// sender sends load's screen for player p (signed in as p if the screen is) with vars(p).
func (h *harness) sender(load string, vars func(p int) map[string]any) func(ctx context.Context, p int, rec *recorder) (answer, error) {
	sc := Screens[load]
	return func(ctx context.Context, p int, rec *recorder) (answer, error) {
		token := ""
		if sc.SignedIn {
			token = h.token(playerID(p), playerName(p), false)
		}
		return h.send(ctx, sc, token, vars(p), rec)
	}
}

// perPlayer records one request per player of a per-player load, each sent by send.
func (h *harness) perPlayer(ctx context.Context, load string, players []int, send func(ctx context.Context, p int, rec *recorder) (answer, error), calls *callTable, units *UnitCheck) (*LoadTrace, error) {
	lt := &LoadTrace{Errors: map[string]int{}}
	var mu sync.Mutex
	err := h.each(ctx, players, func(ctx context.Context, p int) error {
		rec := newRecorder(h.db, h.table)
		var a answer
		var traced []tracedCall
		retried := 0
		for {
			var err error
			if a, err = send(ctx, p, rec); err != nil {
				return err
			}
			traced = rec.take()
			if !unavailable(a, &retried) {
				break
			}
		}
		mu.Lock()
		defer mu.Unlock()
		lt.RetriedWhileRecording += retried
		units.add(traced)
		lt.Requests++
		if a.code != "" {
			lt.Errors[a.code]++
		}
		lt.CacheControl = a.cacheControl
		lt.Templates = addTemplate(lt.Templates, calls.templateOf(traced))
		return nil
	})
	sort.SliceStable(lt.Templates, func(i, j int) bool { return lt.Templates[i].Count > lt.Templates[j].Count })
	return lt, err
}

// Record runs every load at opts.Players players through the real handler on DynamoDB
// Local and returns what the code did. It takes about a minute per 2,000 players on the
// shared 2-core machine.
func Record(ctx context.Context, opts RecordOptions) (*Recording, error) {
	if opts.Workers == 0 {
		opts.Workers = 8
	}
	if opts.PageSize == 0 {
		opts.PageSize = pageSize
	}
	if opts.Viewers == 0 || opts.Viewers > opts.Players {
		opts.Viewers = min(opts.Players, 80)
	}
	if opts.Shards == 0 {
		opts.Shards = 1
	}
	h, err := newHarness(ctx, opts, nil)
	if err != nil {
		return nil, err
	}
	began := time.Now()
	logf := func(format string, args ...any) {
		fmt.Fprintf(h.log, "scale: %s %6.1fs %s\n", opts.Design, time.Since(began).Seconds(), fmt.Sprintf(format, args...))
	}
	rec := &Recording{Design: opts.Design, Commit: opts.Commit, Players: opts.Players, Shards: opts.Shards, Game: opts.Game, Pace: codePace(),
		Loads: map[string]*LoadTrace{}}
	calls := newCallTable(opts.Shards)
	n := opts.Players

	// The previous event of the season: every player gets a standing (not recorded).
	prev, err := h.createEvent(ctx, "scale-previous", previousStart)
	if err != nil {
		return nil, err
	}
	create := h.createEvent
	if opts.Game {
		create = h.createGame
	}
	show, err := create(ctx, "scale-show", showStart)
	if err != nil {
		return nil, err
	}
	h.clock.Set(previousStart.Add(-time.Hour))
	err = h.each(ctx, allPlayers(n), func(ctx context.Context, p int) error {
		_, err := h.untraced(ctx, Screens[LoadSubmit], h.token(playerID(p), playerName(p), false),
			map[string]any{"eventId": prev.id, "picks": prev.picks(p + 1)})
		return err
	})
	if err != nil {
		return nil, err
	}
	h.clock.Set(previousStart.Add(3 * time.Hour))
	if err := h.results(ctx, prev); err != nil {
		return nil, err
	}
	if err := h.seedLeagues(ctx, n, opts.Leagues); err != nil {
		return nil, err
	}
	// Scored without a budget: how many work units the code runs at once.
	prevJob := newRecorder(nil, h.table) // times only
	prevCalls, _, err := h.score(ctx, []http.Handler{h.full}, prev, prevJob)
	if err != nil {
		return nil, err
	}
	workers := workOverlap(slices.Concat(prevCalls...))
	logf("previous event scored (%d players, %d work units at once)", n, workers)

	// The show: submits in the hour before it, card views, then scoring and the rushes.
	h.clock.Set(showStart.Add(-30 * time.Minute))
	submit := func(ctx context.Context, p int, rec *recorder) (answer, error) {
		if show.game {
			return h.submitGame(ctx, show, p, rec)
		}
		return h.send(ctx, Screens[LoadSubmit], h.token(playerID(p), playerName(p), false), map[string]any{"eventId": show.id, "picks": show.picks(p)}, rec)
	}
	if opts.ScoringOnly {
		err = h.each(ctx, allPlayers(n), func(ctx context.Context, p int) error {
			for retried := 0; ; {
				a, err := submit(ctx, p, nil)
				if err != nil || unavailable(a, &retried) {
					if err != nil {
						return err
					}
					continue
				}
				if a.code != "" {
					return fmt.Errorf("scale: submit failed: %s", a.code)
				}
				return nil
			}
		})
		if err != nil {
			return nil, err
		}
	} else {
		rec.Loads[LoadSubmit], err = h.perPlayer(ctx, LoadSubmit, allPlayers(n), submit, calls, &rec.Units)
		if err != nil {
			return nil, err
		}
		logf("%s: %d requests", LoadSubmit, rec.Loads[LoadSubmit].Requests)
		rec.Loads[LoadCard], err = h.perPlayer(ctx, LoadCard, viewers(n, opts.Viewers), h.sender(LoadCard, func(int) map[string]any {
			return map[string]any{"id": show.id}
		}), calls, &rec.Units)
		if err != nil {
			return nil, err
		}
		logf("%s: %d requests", LoadCard, rec.Loads[LoadCard].Requests)
	}

	h.clock.Set(showStart.Add(3 * time.Hour))
	if err := h.results(ctx, show); err != nil {
		return nil, err
	}
	invocations, retried, err := h.score(ctx, []http.Handler{h.handler, h.wide}, show, newRecorder(h.db, h.table))
	if err != nil {
		return nil, err
	}
	jt := &JobTrace{Workers: workers}
	for i, inv := range invocations {
		rec.Units.add(inv)
		budget := tinyBudget
		if i%2 == 1 {
			budget = wideBudget
		}
		jt.Invocations = append(jt.Invocations, calls.invocationOf(inv, budget))
	}
	rec.Loads[LoadScore] = &LoadTrace{Requests: len(invocations), Job: jt, RetriedWhileRecording: retried}
	logf("%s: %d invocations", LoadScore, len(invocations))

	if !opts.ScoringOnly {
		rec.Loads[LoadStandings], err = h.perPlayer(ctx, LoadStandings, viewers(n, opts.Viewers), h.sender(LoadStandings, func(int) map[string]any {
			return map[string]any{"season": season, "first": opts.PageSize}
		}), calls, &rec.Units)
		if err != nil {
			return nil, err
		}
		rec.Loads[LoadLeaderboard], err = h.perPlayer(ctx, LoadLeaderboard, viewers(n, opts.Viewers), h.sender(LoadLeaderboard, func(int) map[string]any {
			return map[string]any{"id": show.id, "first": opts.PageSize}
		}), calls, &rec.Units)
		if err != nil {
			return nil, err
		}
		logf("views recorded")
	}
	rec.Calls = calls.calls

	if !opts.NoProbes && !opts.ScoringOnly {
		if rec.StoreRetries, err = probe(ctx, opts, rec); err != nil {
			return nil, err
		}
		logf("probes done")
	}
	if rec.SDK, err = sdkRetry(ctx, h.db); err != nil {
		return nil, err
	}
	if opts.Template != "" {
		if rec.FrontDoor, err = readFrontDoor(opts.Template); err != nil {
			return nil, err
		}
	}
	return rec, nil
}
