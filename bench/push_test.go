package bench

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

// TestPushSmall runs the push benchmark with a few subscribers on the package's DynamoDB
// Local, so that `make test` catches a drift between the local server, its protocol and
// the benchmark: every message must reach every subscriber as the kind and version it
// expects (RunPush fails otherwise), and the results must hold every kind, every delivery,
// the server's CPU and every screen in both modes.
func TestPushSmall(t *testing.T) {
	opts := DefaultPushOptions()
	opts.Subscribers, opts.Cycles, opts.ResultsPerCycle, opts.Predictions = 12, 2, 2, 12
	opts.Scale = Scale{Players: 60, Sizes: []int{10, 20}, Background: 12, PastFillers: 1, Warmup: 1, Iterations: 2}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var log strings.Builder
	res, err := RunPush(ctx, opts, &log)
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	// The lock, then per mode with sockets: 2 results, a tie-breaker answer, a scoring pass.
	want := map[string]int{"STATE": 1, "RESULT": 2 * opts.Cycles, "TIEBREAKER": opts.Cycles, "SCORING": opts.Cycles, "all": 1 + 4*opts.Cycles}
	if len(res.Delays) != len(want) {
		t.Fatalf("delays %+v: want one row per kind and one for all", res.Delays)
	}
	for _, d := range res.Delays {
		if d.Pushes != want[d.Kind] || d.Deliveries != d.Pushes*opts.Subscribers || d.P99 < d.P50 || d.Max < d.P99 {
			t.Errorf("%s: %+v; want %d pushes of %d deliveries, p50 ≤ p99 ≤ max", d.Kind, d, want[d.Kind], opts.Subscribers)
		}
	}
	if c := res.CPU; c.Pushes != 4*opts.Cycles || c.WithSubscribersMs <= 0 || c.WithoutSocketsMs <= 0 {
		t.Errorf("CPU %+v: want the server's CPU over %d mutations in each mode", c, 4*opts.Cycles)
	}
	// Screens 1–6 at the smallest size: the list, 5 cards, 2 scored events, 2 standings
	// pages, the profile, the submit.
	if len(res.Screens) != 12 {
		t.Errorf("%d screens, want 12: %+v", len(res.Screens), res.Screens)
	}
	for _, s := range res.Screens {
		if s.N != opts.Cycles*opts.Scale.Iterations || s.WithP50 <= 0 || s.WithoutP50 <= 0 {
			t.Errorf("screen %d (%s): %+v; want %d requests and a p50 in each mode", s.Screen, s.Size, s, opts.Cycles*opts.Scale.Iterations)
		}
	}
	if len(res.Goals) != 2 {
		t.Errorf("goals %+v: want the delay's and the screens'", res.Goals)
	}
	md := res.Markdown()
	for _, w := range []string{"## Goals", "## Delay from the mutation's answer", "## The publisher's CPU per push", "## The screens with and without the sockets open"} {
		if !strings.Contains(md, w) {
			t.Errorf("markdown lacks %q", w)
		}
	}
}

func TestRaiseOpenFilesRefusesBeyondTheHardLimit(t *testing.T) {
	limit, err := raiseOpenFiles(1)
	if err != nil || limit < 1 {
		t.Fatalf("raiseOpenFiles(1) = %d, %v; want the current limit", limit, err)
	}
	if _, err := raiseOpenFiles(1 << 62); err == nil || !strings.Contains(err.Error(), "open-file limit") {
		t.Fatalf("raiseOpenFiles(2^62) = %v; want an error naming the open-file limit", err)
	}
}

// TestProcessCPUCounts: this process's CPU time, read as the benchmark reads the server's,
// grows while it works.
func TestProcessCPUCounts(t *testing.T) {
	before, err := processCPU(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for x := 0; time.Now().Before(deadline); x++ {
		if x%1_000_000 != 0 {
			continue
		}
		now, err := processCPU(os.Getpid())
		if err != nil {
			t.Fatal(err)
		}
		if now >= before+2*time.Second/clockTicks {
			return
		}
	}
	t.Fatalf("process CPU stayed at %v while spinning for 10 s", before)
}
