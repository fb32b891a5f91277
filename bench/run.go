// Package bench measures what each frontend screen of the Pick'Em API costs in DynamoDB
// calls and capacity, and how close its latency through the real stack (HTTP, auth,
// gqlgen, resolvers, store, SDK) comes to the floor: the bare DynamoDB call(s) the screen
// cannot avoid, timed in the same loop. It runs against DynamoDB Local, on a league loaded
// directly with BatchWriteItem. See `make bench` and
// bench/results/results.md; GraphQL execution alone is benchmarked in bench/gqlexec.
package bench

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"strings"
	"time"
)

// Scale sizes the league and the measurements on one engine.
type Scale struct {
	Players int   `json:"players"`
	Sizes   []int `json:"predictionsPerEvent"` // ascending; the largest ≤ Players
	// Background, if not 0, is the number of predictions of every event no screen measures
	// (past fillers, open events); 0 keeps 50 per past filler and 10 per open event.
	Background int `json:"backgroundPredictions,omitempty"`
	Warmup     int `json:"warmup"`
	Iterations int `json:"iterations"`
	// LoadDuration drives the vegeta load test of screens 1–3 (0: skip).
	LoadDuration time.Duration `json:"loadDuration"`
	// LeagueSizes are the members of screen 8's leagues (nil: 100 and 1,000, those the
	// players allow, or one league of every player when they allow neither).
	LeagueSizes []int `json:"leagueSizes,omitempty"`
}

func (s Scale) maxSize() int { return s.Sizes[len(s.Sizes)-1] }

func (s Scale) sizesText() string {
	parts := make([]string, len(s.Sizes))
	for i, n := range s.Sizes {
		parts[i] = fmt.Sprint(n)
	}
	return strings.Join(parts, " / ")
}

func (s Scale) check() error {
	if len(s.Sizes) < 2 || len(s.Sizes) > 4 || s.Players < s.maxSize() || s.Players < max(fillerSize, s.Background) || s.Background < 0 || s.Iterations < 1 || s.Warmup < 0 {
		return fmt.Errorf("bench: want 2 to 4 ascending sizes, players ≥ the largest, ≥ %d and ≥ the background, iterations ≥ 1: %+v", fillerSize, s)
	}
	for i := 1; i < len(s.Sizes); i++ {
		if s.Sizes[i] <= s.Sizes[i-1] {
			return fmt.Errorf("bench: sizes must ascend: %v", s.Sizes)
		}
	}
	return nil
}

// Options configure a run.
type Options struct {
	Engines []string         `json:"engines"`
	Scales  map[string]Scale `json:"scales"` // by engine key
	// LoadWorkers is the load test's concurrency.
	LoadWorkers int `json:"loadWorkers"`
	// Now is the clock of the store and the server; the league is laid out around it.
	Now time.Time `json:"now"`
	// Answers, when set, is a directory where the first answer of every screen is written
	// (<engine>-screen<N>-<size>.json), to compare two versions of the API byte for byte.
	Answers string `json:"-"`
	// GC, by engine key, sets the process's GC for that engine's run and returns what
	// restores it (none: the process's settings as they are).
	GC map[string]func() (restore func()) `json:"-"`
}

// DefaultOptions is the full run of `make bench`: issue 5's league on DynamoDB Local
// (10,000 players; events with 10 / 1,000 / 10,000 predictions).
func DefaultOptions() Options {
	return Options{
		Engines: []string{EngineDynamoDBLocal},
		Scales: map[string]Scale{
			EngineDynamoDBLocal: {Players: 10_000, Sizes: []int{10, 1_000, 10_000}, Warmup: 20, Iterations: 200, LoadDuration: 5 * time.Second},
		},
		LoadWorkers: 8,
		Now:         time.Date(2025, 7, 1, 12, 0, 0, 0, time.UTC),
	}
}

func numCPU() int       { return runtime.NumCPU() }
func goVersion() string { return runtime.Version() }

// Run loads the league on each engine and measures every screen; log receives progress.
func Run(ctx context.Context, opts Options, log io.Writer) (*Results, error) {
	for _, key := range opts.Engines {
		if key != EngineDynamoDBLocal {
			return nil, fmt.Errorf("bench: unknown engine %q (want %s)", key, EngineDynamoDBLocal)
		}
		if err := opts.Scales[key].check(); err != nil {
			return nil, fmt.Errorf("%s: %w", key, err)
		}
	}
	began := time.Now()
	logf := func(format string, a ...any) { fmt.Fprintf(log, format+"\n", a...) }
	res := &Results{Generated: time.Now(), Machine: machine(), Options: opts}
	for _, key := range opts.Engines {
		if err := runEngine(ctx, key, opts, res, logf); err != nil {
			return res, err
		}
	}
	res.Machine.LoadAvgAfter = LoadAverage()
	res.Seconds = time.Since(began).Seconds()
	res.Goals = res.goals()
	return res, nil
}

func runEngine(ctx context.Context, key string, opts Options, res *Results, logf func(string, ...any)) error {
	if apply := opts.GC[key]; apply != nil {
		defer apply()()
	}
	t := time.Now()
	eng, err := startEngine(key)
	if err != nil {
		return err
	}
	defer eng.stop()
	logf("%s: started in %.1fs at %s", eng.name, time.Since(t).Seconds(), eng.endpoint)
	if eng.javaOpts != "" {
		res.Machine.DynamoDBLocalJavaOpts = eng.javaOpts
	}
	e, err := newEnv(ctx, eng, opts.Now)
	if err != nil {
		return err
	}
	defer e.close()

	sc := opts.Scales[key]
	l := newLeague(opts.Now, sc.Players, sc.Sizes, sc.Background)
	st, err := l.load(ctx, e)
	if err != nil {
		return fmt.Errorf("%s: %w", eng.name, err)
	}
	res.Loads = append(res.Loads, LoadInfo{Engine: eng.name, EngineKey: key, loadStats: st, Events: len(l.events), Players: l.players, Predictions: l.predictions()})
	logf("%s: loaded %d items in %d BatchWriteItem calls; %.1fs in all (scoring small events %.1fs)", eng.name, st.Items, st.BatchWrites, st.Seconds, st.ScoreSeconds)

	// Screen 7 first: scoring needs fresh data, and screen 3 then reads the events it scored.
	scores, err := e.scoring(ctx, l, logf)
	res.Scoring = append(res.Scoring, scores...)
	if err != nil {
		return fmt.Errorf("%s: %w", eng.name, err)
	}

	probes, err := e.probes(ctx, l)
	if err != nil {
		return fmt.Errorf("%s: %w", eng.name, err)
	}
	leagues, err := e.loadLeagues(ctx, l, sc.LeagueSizes)
	if err != nil {
		return fmt.Errorf("%s: screen 8: %w", eng.name, err)
	}
	probes = append(probes, e.leagueProbes(leagues, l.season)...)
	for _, p := range probes {
		r, err := e.measure(ctx, p, sc.Warmup, sc.Iterations, opts.Answers)
		if err != nil {
			return err
		}
		res.Screens = append(res.Screens, r)
		logf("  screen %d %-22s %-26s calls %d RCU %s WCU %s | p50 %6.2f floor %6.2f ×%.2f | p99 %6.2f floor %6.2f ×%.2f",
			r.Screen, r.Name, r.Size, r.Calls, cu(r.RCU), cu(r.WCU), r.Stack.P50, r.Floor.P50, r.RatioP50, r.Stack.P99, r.Floor.P99, r.RatioP99)
	}

	if sc.LoadDuration > 0 {
		// Screens 1–3, the largest event for 2 and 3.
		for _, p := range probes {
			if p.screen > 3 || p.predictions != 0 && p.predictions != sc.maxSize() {
				continue
			}
			r, err := e.loadTest(p, opts.LoadWorkers, sc.LoadDuration)
			if err != nil {
				return err
			}
			res.Load = append(res.Load, r)
			logf("  load screen %d %-22s %d workers: %.0f req/s, p50 %.2f ms, p99 %.2f ms (%d requests)",
				r.Screen, r.Name, r.Workers, r.Throughput, r.P50, r.P99, r.Requests)
		}
	}
	return nil
}
