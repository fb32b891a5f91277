package bench

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/pickem/api/internal/dynamotest"
)

func TestMain(m *testing.M) { dynamotest.Main(m) }

// TestSmallLeague runs the whole suite on a tiny data set on the package's DynamoDB Local (a
// table of its own), at 1 shard and at 16, on the direct path and in latency mode, so that
// `make test` catches a drift between the store's layout and what the loader and the floors
// make of it: Run checks every screen's answer and the items every floor reads.
func TestSmallLeague(t *testing.T) {
	opts := DefaultOptions()
	opts.Scale = Scale{Players: 60, Sizes: []int{10, 20}, Background: 12, PastFillers: 1, Warmup: 1, Iterations: 1, LoadDuration: 100 * time.Millisecond, LeagueSizes: []int{10, 60}}
	opts.LoadWorkers = 2
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var log strings.Builder
	res, err := Run(ctx, opts, &log)
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	// Per shard count: the list, the card UPCOMING ×2, BROADCAST, SCORED ×2, the scored
	// event ×2, the game's card (UPCOMING, SCORED) and scored event, standings ×2, the
	// profile, the submit, two leagues.
	perShards := 1 + 2 + 1 + 2 + 2 + 3 + 2 + 1 + 1 + 2
	for _, k := range opts.Shards {
		rows := res.screens(k, 0)
		if len(rows) != perShards {
			t.Errorf("%d shards: %d screen results, want %d", k, len(rows), perShards)
		}
		for _, s := range rows {
			if s.StackLatency.P50 <= 0 || s.FloorLatency.P50 < opts.Latency.Seconds()*2e3 {
				t.Errorf("%d shards, screen %d (%s): latency mode p50 %.2f ms, floor %.2f ms; want the floor at least 2 × %v", k, s.Screen, s.Size, s.StackLatency.P50, s.FloorLatency.P50, opts.Latency)
			}
		}
	}
	if got, want := len(res.Scoring), len(opts.Shards); got != want {
		t.Errorf("%d scoring results, want %d", got, want)
	}
	if got, want := len(res.Load), 3*len(opts.Shards); got != want {
		t.Errorf("%d load results, want %d", got, want)
	}
	for _, g := range res.Goals {
		// Calls are not timing: their goals hold on any machine, but for the card of a
		// scored event, whose rank costs a call more (the goal reports it).
		if strings.Contains(g.Goal, "ONE Query") || strings.Contains(g.Goal, "league page") {
			if !g.Met {
				t.Errorf("%s: %s", g.Goal, g.Detail)
			}
		}
	}
	md := res.Markdown()
	for _, want := range []string{"## Goals", "## Screens 1–6 and 8 at 1 shard", "## Screens 1–6 and 8 at 16 shards", "## Screen 7", "## Throughput"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
	if res.PlotSVG() == "" {
		t.Error("no plot")
	}
}

func TestParseGoBench(t *testing.T) {
	out := `goos: linux
BenchmarkGraphQL/Screen4Standings100-2   	     340	   3552861 ns/op	   6152206 cpu-ns/op	  745480 B/op	   14365 allocs/op
PASS`
	bs, err := ParseGoBench(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	want := GoBench{Name: "BenchmarkGraphQL/Screen4Standings100-2", NsPerOp: 3552861, CPUNsPerOp: 6152206, BytesPerOp: 745480, AllocsPerOp: 14365}
	if len(bs) != 1 || bs[0] != want {
		t.Fatalf("got %+v, want %+v", bs, want)
	}
}
