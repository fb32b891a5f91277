// Package bench measures what each frontend screen of the Pick'Em API costs in DynamoDB
// calls and capacity, and how close its latency through the real stack (HTTP, auth,
// gqlgen, resolvers, store, SDK) comes to its floor: the bare DynamoDB call(s) the screen
// cannot avoid, timed in the same loop. It runs on DynamoDB Local, with events and a
// season at each shard count of Options.Shards in one table, each screen measured twice:
// with the engine as it is and with every call delayed both ways (latency mode, about an
// in-region call on AWS). See `make bench` and bench/README.md; GraphQL execution alone is
// benchmarked in bench/gqlexec.
package bench

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"time"
)

// Scale sizes the league and the measurements.
type Scale struct {
	Players int   `json:"players"`
	Sizes   []int `json:"predictionsPerEvent"` // ascending; the largest ≤ Players
	// Background, if not 0, is the number of predictions of every event no screen measures
	// (past fillers, open events); 0 keeps 50 per past filler and 10 per open event.
	Background int `json:"backgroundPredictions,omitempty"`
	// PastFillers, if not 0, is the number of past events no screen measures in each
	// league; 0 makes 14 past events in all.
	PastFillers int `json:"pastFillers,omitempty"`
	Warmup      int `json:"warmup"`
	Iterations  int `json:"iterations"` // per mode
	// LoadDuration drives the vegeta load test of screens 1–3 (0: skip).
	LoadDuration time.Duration `json:"loadDuration"`
	// LeagueSizes are the members of screen 8's leagues (nil: 10, 100 and 1,000, those the
	// players allow).
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
	if len(s.Sizes) < 2 || len(s.Sizes) > 4 || s.Players < s.maxSize() || s.Players < max(fillerSize, s.Background) || s.Background < 0 || s.PastFillers < 0 || s.Iterations < 1 || s.Warmup < 0 {
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
	Scale Scale `json:"scale"`
	// Shards are the shard counts measured (dynamo.WithScoreShards), each with a season of
	// its own: the first in the season of Now, the next in the season before, and so on.
	Shards []int `json:"shards"`
	// Latency is what latency mode adds to every DynamoDB call on each way (the request's
	// and the answer's).
	Latency time.Duration `json:"latencyEachWayNs"`
	// LoadWorkers is the load test's concurrency.
	LoadWorkers int `json:"loadWorkers"`
	// Now is the clock of the store and the server; the league is laid out around it.
	Now time.Time `json:"now"`
	// Answers, when set, is a directory where the first answer of every screen is written
	// (screen<N>-shards<K>-<size>.json), to compare two versions of the API byte for byte.
	Answers string `json:"-"`
	// GC, if set, sets the process's GC for the run and returns what restores it.
	GC func() (restore func()) `json:"-"`
	// Game makes the events screen 7 scores use every game extra: jokers, a perfect-card
	// bonus, method points and result methods, a tie-breaker answer set before the pass;
	// entries with methods, a joker and a guess.
	Game bool `json:"game"`
	// ScoringOnly stops after screen 7 (loading, then scoring): its figures alone.
	ScoringOnly bool `json:"scoringOnly"`
}

// DefaultOptions is the full run of `make bench`: 10,000 players; events with 10 / 1,000 /
// 10,000 predictions at 1 shard and at 16; calls delayed 2 ms each way in latency mode.
func DefaultOptions() Options {
	return Options{
		Scale:       Scale{Players: 10_000, Sizes: []int{10, 1_000, 10_000}, Warmup: 10, Iterations: 100, LoadDuration: 5 * time.Second},
		Shards:      []int{1, 16},
		Latency:     2 * time.Millisecond,
		LoadWorkers: 8,
		Now:         time.Date(2025, 7, 1, 12, 0, 0, 0, time.UTC),
	}
}

func (o Options) check() error {
	if err := o.Scale.check(); err != nil {
		return err
	}
	if len(o.Shards) == 0 || o.Latency <= 0 {
		return fmt.Errorf("bench: want shard counts and a latency: %v, %v", o.Shards, o.Latency)
	}
	for i, k := range o.Shards {
		if k < 1 || slices.Index(o.Shards, k) != i {
			return fmt.Errorf("bench: shard counts must be distinct and ≥ 1: %v", o.Shards)
		}
	}
	return nil
}

func numCPU() int       { return runtime.NumCPU() }
func goVersion() string { return runtime.Version() }

// Run loads the leagues on DynamoDB Local and measures every screen; log receives progress.
func Run(ctx context.Context, opts Options, log io.Writer) (*Results, error) {
	if err := opts.check(); err != nil {
		return nil, err
	}
	if opts.GC != nil {
		defer opts.GC()()
	}
	began := time.Now()
	logf := func(format string, a ...any) {
		fmt.Fprintf(log, "%6.1fs "+format+"\n", append([]any{time.Since(began).Seconds()}, a...)...)
	}
	res := &Results{Generated: time.Now(), Machine: machine(), Options: opts}
	if err := run(ctx, opts, res, logf); err != nil {
		return res, err
	}
	res.Machine.LoadAvgAfter = LoadAverage()
	res.Seconds = time.Since(began).Seconds()
	res.Goals = res.goals()
	return res, nil
}

func run(ctx context.Context, opts Options, res *Results, logf func(string, ...any)) error {
	t := time.Now()
	eng, err := startEngine()
	if err != nil {
		return err
	}
	defer eng.stop()
	logf("%s: started in %.1fs at %s", engineName, time.Since(t).Seconds(), eng.endpoint)
	res.Machine.DynamoDBLocalJavaOpts = eng.javaOpts
	e, err := newEnv(ctx, eng, opts.Now, opts.Latency)
	if err != nil {
		return err
	}
	defer e.close()

	sc := opts.Scale
	var leagues []*league
	for i, k := range opts.Shards {
		leagues = append(leagues, newLeague(opts.Now, opts.Now.Year()-i, k, sc, opts.Game))
	}
	st, err := load(ctx, e, leagues)
	if err != nil {
		return err
	}
	res.Loading = st
	logf("loaded %d items in %d BatchWriteItem calls; %.1fs in all (scoring small events %.1fs)", st.Items, st.BatchWrites, st.Seconds, st.ScoreSeconds)

	// Screen 7 first: scoring needs fresh data, and the other screens then read the events
	// it scored.
	for _, l := range leagues {
		scores, err := e.scoring(ctx, l, logf)
		res.Scoring = append(res.Scoring, scores...)
		if err != nil {
			return err
		}
	}
	if opts.ScoringOnly {
		return nil
	}
	groups, err := e.loadLeagues(ctx, sc.Players, sc.LeagueSizes)
	if err != nil {
		return fmt.Errorf("screen 8: %w", err)
	}
	for _, l := range leagues {
		probes := append(e.probes(l, leagues), e.leagueProbes(l, groups)...)
		for _, p := range probes {
			r, err := e.measure(ctx, p, sc.Warmup, sc.Iterations, opts.Answers)
			if err != nil {
				return err
			}
			res.Screens = append(res.Screens, r)
			logf("  %2d shards screen %d %-22s %-32s calls %d RCU %s | p50 %6.2f floor %6.2f ×%.2f | latency mode p50 %6.2f floor %6.2f ×%.2f",
				r.Shards, r.Screen, r.Name, r.Size, r.Calls, cu(r.RCU), r.Stack.P50, r.Floor.P50, r.RatioP50,
				r.StackLatency.P50, r.FloorLatency.P50, r.RatioP50Latency)
		}
		if sc.LoadDuration <= 0 {
			continue
		}
		// Screens 1–3, the largest event for 2 (UPCOMING) and 3, with the engine as it is.
		for _, p := range probes {
			if p.screen > 3 || p.predictions != 0 && p.predictions != sc.maxSize() || p.screen == 2 && !strings.HasPrefix(p.size, "UPCOMING") {
				continue
			}
			r, err := e.loadTest(p, opts.LoadWorkers, sc.LoadDuration)
			if err != nil {
				return err
			}
			res.Load = append(res.Load, r)
			logf("  %2d shards load screen %d %-22s %d workers: %.0f req/s, p50 %.2f ms, p99 %.2f ms (%d requests)",
				r.Shards, r.Screen, r.Name, r.Workers, r.Throughput, r.P50, r.P99, r.Requests)
		}
	}
	return nil
}
