package scale

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/pickem/api/bench/scale/record"
	"github.com/pickem/api/bench/scale/sim"
	"github.com/pickem/api/dynamo/scoring"
	"github.com/pickem/api/dynamo/table"
	"github.com/pickem/api/internal/dynamotest"
)

func TestMain(m *testing.M) { dynamotest.Main(m) }

// probes also runs the fault probes in TestRecordingMatchesTheModel (about 25 s more: they
// wait out the SDK's and the store's real backoffs). make scale sets it; make test does not.
var probes = flag.Bool("probes", false, "also record and check the fault probes (slow; make scale)")

// TestRecordingMatchesTheModel records the current code at two small sizes and testShards
// shards on DynamoDB Local and checks what the model relies on: the per-player pattern is the same
// at both sizes (so it extrapolates), the units computed from item sizes are DynamoDB
// Local's, every partition is known, the shard numbers are marked with the recording's
// shard count, the scoring pace is there to model, the fault probes reached every
// operation, and the model runs. A change of the table layout or of the calls that breaks
// one of these fails here. (Pages of 2: every index shard holds a page at both sizes, as at
// a million players.) The fault probes run only with -probes (make scale): make test keeps
// to the recordings.
func TestRecordingMatchesTheModel(t *testing.T) {
	const testShards = 2 // more than one (make scale records 16 and 1), cheap to record
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	// The two sizes at once, each on a table of its own.
	recs := make([]*record.Recording, 2)
	g, gctx := errgroup.WithContext(ctx)
	for i, n := range []int{64, 96} {
		g.Go(func() (err error) {
			recs[i], err = record.Record(gctx, record.RecordOptions{Design: "test", Players: n, Shards: testShards, Endpoint: dynamotest.Endpoint(t), Template: "../../deploy/template.yaml",
				Log: testLog{t}, Viewers: 10, PageSize: 2, NoProbes: i == 0 || !*probes})
			return err
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	d := Design{Name: "test", Small: recs[0], Large: recs[1]}
	// At these sizes scoring takes too few calls to fit its reads (make scale's sizes do);
	// everything else must extrapolate.
	var problems []string
	for _, p := range d.check().Problems {
		if !strings.HasPrefix(p, tooFewCalls) {
			problems = append(problems, p)
		}
	}
	if len(problems) > 0 {
		t.Fatalf("the recordings do not extrapolate:\n%s", strings.Join(problems, "\n"))
	}
	for _, rec := range recs {
		for _, inv := range rec.Loads[record.LoadScore].Job.Invocations {
			for _, st := range append(append(inv.Pre.Stages, inv.Work.Stages...), inv.Post.Stages...) {
				for _, id := range st {
					if c := rec.Calls[id]; c.ReadGroup() == "" && !strings.Contains(fmt.Sprint(c.Accesses), "{p") && !slices.ContainsFunc(c.Accesses, record.Access.IsWrite) {
						t.Errorf("scoring call %s %+v is neither a read of shared partitions nor work on players' nor a closing write", c.Op, c.Accesses)
					}
				}
			}
		}
	}
	for _, rec := range recs {
		// The index shards of events and seasons, 16 lock copies per shard.
		fs := strings.Join(rec.ShardFamilies(), " ")
		shards, copies := fmt.Sprintf("{%%%d}", testShards), fmt.Sprintf("{%%%d}", 16*testShards)
		if rec.Shards != testShards || !strings.Contains(fs, shards) || !strings.Contains(fs, copies) || strings.Contains(fs, "{%1}") {
			t.Errorf("%d players: recorded at %d shards, sharded partitions %s: want %d shards, %s and %s (lock copies)", rec.Players, rec.Shards, fs, testShards, shards, copies)
		}
		if rec.Pace == nil || rec.Pace.WriteUnits != scoring.PartitionWriteUnits {
			t.Errorf("%d players: pace %+v, want the code's", rec.Players, rec.Pace)
		}
		if rec.Units.Compared < 50 || rec.Units.Mismatched > 0 {
			t.Errorf("%d players: %d of %d calls' units differ from DynamoDB Local's: %v", rec.Players, rec.Units.Mismatched, rec.Units.Compared, rec.Units.Mismatches)
		}
		for _, c := range rec.Calls {
			for _, a := range c.Accesses {
				if a.PK == "?" || a.PK == "" {
					t.Errorf("%s: an access in an unknown partition: %+v", c.Op, a)
				}
			}
		}
		if rec == recs[1] && *probes && len(rec.StoreRetries) == 0 {
			t.Error("no fault probes in the recording the model replays")
		}
		for _, sr := range rec.StoreRetries {
			if sr.Attempts == 0 {
				t.Errorf("the %s probe of %s %s never reached the call (answer %q; probes %+v)", sr.Error, sr.Load, sr.Op, sr.Outcome, rec.StoreRetries)
			}
		}
		if rec.SDK.MaxAttempts < 1 || rec.FrontDoor.TimeoutSeconds < 1 {
			t.Errorf("SDK %+v, front door %+v", rec.SDK, rec.FrontDoor)
		}
	}
	w := extrapolate(d, d.Large, 10_000)
	// Scoring's transactions ask the pace of the event's and the season's index shards.
	paced := map[string]bool{}
	for _, c := range sim.PaceChecks(w) {
		paced[c.Family] = c.Estimated > 0
	}
	if !paced["GSI "+record.Family(record.MarkShard(table.EventShardPartitions(record.ShowID, testShards)[0], testShards))] {
		t.Errorf("no pace estimate on the event's index shards: %+v", sim.PaceChecks(w))
	}
	f := evaluate(w, sim.Params{Latency: sim.DefaultLatency, Seed: 1}).Figures
	if f.ScoreSeconds <= 0 || f.CardCalls < 1 || f.StandingsPageCalls < 1 || f.LeaderboardPageCalls < 1 || f.MaxPartitionRCUPerS <= 0 || f.MaxPartitionWCUPerS <= 0 {
		t.Errorf("figures at 10,000 players: %+v", f)
	}
}

// TestCommittedBeforeRecordingsExtrapolate keeps `make scale` able to reproduce "before".
func TestCommittedBeforeRecordingsExtrapolate(t *testing.T) {
	paths, _ := filepath.Glob("testdata/before-*.json")
	if len(paths) == 0 {
		t.Log("no committed before recordings yet")
		return
	}
	if len(paths) != 2 {
		t.Fatalf("want two before recordings, found %v", paths)
	}
	var recs []*record.Recording
	for _, p := range paths {
		r, err := record.ReadRecording(p)
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, r)
	}
	if recs[0].Players > recs[1].Players {
		recs[0], recs[1] = recs[1], recs[0]
	}
	if s := (Design{Name: "before", Small: recs[0], Large: recs[1]}).check(); len(s.Problems) > 0 {
		t.Fatalf("the before recordings do not extrapolate:\n%s", strings.Join(s.Problems, "\n"))
	}
	if _, err := os.Stat("testdata/README.md"); err != nil {
		t.Errorf("testdata/README.md should say where the before recordings come from: %v", err)
	}
}

// testLog writes progress lines to the test's log.
type testLog struct{ t *testing.T }

func (l testLog) Write(b []byte) (int, error) {
	l.t.Log(strings.TrimSpace(string(b)))
	return len(b), nil
}
