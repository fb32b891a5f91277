package bench

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/pickem/api/internal/dynamotest"
)

func TestMain(m *testing.M) { dynamotest.Main(m) }

// TestSmallLeague runs the whole suite on a tiny league on the package's DynamoDB Local (a
// table of its own), so that `make test` catches a drift between the loader's and floors'
// copy of the table layout (keys.go) and the store's: every screen's answer and every
// floor's item count is checked by Run.
func TestSmallLeague(t *testing.T) {
	opts := DefaultOptions()
	opts.Scales[EngineDynamoDBLocal] = Scale{Players: 60, Sizes: []int{10, 20, 60}, Warmup: 1, Iterations: 2, LoadDuration: 200 * time.Millisecond}
	opts.LoadWorkers = 2
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var log strings.Builder
	res, err := Run(ctx, opts, &log)
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	if got, want := len(res.Screens), 1+3+3+2+1+1+1; got != want {
		t.Errorf("%d screen results, want %d", got, want)
	}
	if got, want := len(res.Scoring), 2; got != want {
		t.Errorf("%d scoring results, want %d", got, want)
	}
	if got, want := len(res.Load), 3; got != want {
		t.Errorf("%d load results, want %d", got, want)
	}
	for _, g := range res.Goals {
		if strings.HasPrefix(g.Goal, "DynamoDB calls") && !g.Met {
			t.Errorf("calls goal not met: %s", g.Detail)
		}
	}
	md := res.Markdown()
	for _, want := range []string{"## Goals", "## Screens 1–6 and 8 on DynamoDB Local", "## Screen 7", "## Throughput"} {
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
