// Command scale runs the partition-throughput model (package bench/scale): it records what
// the current code does on DynamoDB Local at two small numbers of players — at -shards,
// the same with every player in 20 leagues, and at one shard — extrapolates it and the
// committed "before" recordings to a million players in virtual time, finds the largest
// event one shard scores within 5 minutes, and writes bench/results/scale.{md,json,svg}.
// `make scale` runs it; -h lists the flags.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/pickem/api/bench"
	"github.com/pickem/api/bench/scale"
	"github.com/pickem/api/bench/scale/record"
	"github.com/pickem/api/bench/scale/sim"
	"github.com/pickem/api/bench/scale/watchers"
	"github.com/pickem/api/domain"
	"github.com/pickem/api/dynamo/table"
	"github.com/pickem/api/internal/dynamotest"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "scale:", err)
		os.Exit(1)
	}
}

const beforeDir = "bench/scale/testdata"

// The recording sets of a run, named <set>-<players>.json in -save and -replay directories.
const (
	setAfter    = "after"           // the current code at -shards
	setLeagues  = "after-leagues"   // the same with every player in leagues
	setOneShard = "after-one-shard" // the current code at one shard
)

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("scale", flag.ContinueOnError)
	out := fs.String("out", "bench/results", "directory for scale.md, scale.json and scale.svg (empty: print the markdown only)")
	before := fs.String("before", beforeDir+"/before-1000.json,"+beforeDir+"/before-10000.json", "the committed recordings of the design before the redesign (smaller, larger)")
	sizes := fs.String("sizes", "2000,4000", "numbers of players to record the current code at (two, ≤ 10,000)")
	shards := fs.Int("shards", 16, "shard count (PICKEM_SCORE_SHARDS) of the recordings of the current code, but for the one-shard figure")
	leagueSizes := fs.String("league-sizes", "1000,2000", "numbers of players to record the scoring of the current code at with every player in 20 leagues (two)")
	oneShardSizes := fs.String("one-shard-sizes", "1000,2000", "numbers of players to record the current code at one shard at (two)")
	save := fs.String("save", "", "also write the recordings of the current code into this directory (<set>-<players>.json); -replay reads them")
	replay := fs.String("replay", "", "replay the recordings a -save wrote into this directory instead of recording the current code")
	players := fs.Int("players", 1_000_000, "players to extrapolate to")
	load := fs.String("load", "", "run only this load ("+strings.Join(record.Loads, ", ")+") of the current code at -players and -shards and print its results as JSON")
	endpoint := fs.String("endpoint", "", "a running DynamoDB Local (default: start one from node_modules)")
	template := fs.String("template", "deploy/template.yaml", "the SAM template (front door settings)")
	seed := fs.Uint64("seed", 1, "random seed of the simulation")
	game := fs.Bool("game", false, "record the show using every game extra (jokers, a perfect-card bonus, method picks, the tie-breaker answer set before the final pass)")
	accountRate := fs.Float64("account-api-rate", 0, "the account's API Gateway throttle, requests/s (default: AWS's default, 10,000): what a quota raise buys")
	accountBurst := fs.Int("account-api-burst", 0, "the account's API Gateway burst (default: AWS's default, 5,000)")
	lat := sim.DefaultLatency
	fs.Float64Var(&lat.ItemMs, "item-ms", lat.ItemMs, "assumed latency of GetItem/PutItem/UpdateItem/DeleteItem")
	fs.Float64Var(&lat.ReadMs, "read-ms", lat.ReadMs, "assumed latency of Query/BatchGetItem, plus -per-mb-ms per MB")
	fs.Float64Var(&lat.PerMBMs, "per-mb-ms", lat.PerMBMs, "assumed read latency per MB returned")
	fs.Float64Var(&lat.TxMs, "tx-ms", lat.TxMs, "assumed latency of TransactWriteItems, plus -tx-item-ms per item")
	fs.Float64Var(&lat.TxItemMs, "tx-item-ms", lat.TxItemMs, "assumed transaction latency per item")
	fs.Float64Var(&lat.HandlerMs, "handler-ms", lat.HandlerMs, "assumed work of the function itself per request")
	wp := watchers.DefaultParams()
	wp.Flags(fs)
	watchersOnly := fs.Bool("watchers-only", false, "run only the watchers model (push's audience on AppSync Events: seconds, no recording) and write its section into -out's scale.md and scale.json, leaving the rest as it is")
	pollAnswer := fs.String("poll-answer", pollAnswerFile, "a pinned answer of bench/gqlexec (status, headers, a blank line, the body): its body's bytes are -watch-poll-bytes' default")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *shards < 1 || *shards > table.MaxShards {
		return fmt.Errorf("-shards %d: want 1 to %d", *shards, table.MaxShards)
	}
	if *watchersOnly && *load != "" {
		return errors.New("-watchers-only and -load: choose one")
	}
	if wp.PollBytes.Value == 0 {
		var err error
		if wp.PollBytes, err = pollBytes(*pollAnswer); err != nil {
			return err
		}
	}
	// The watchers model (seconds) runs unless only one load is asked for.
	var watched *watchers.Result
	if *load == "" {
		var err error
		if watched, err = watchers.Run(wp); err != nil {
			return err
		}
	}
	if *watchersOnly {
		return writeWatchers(*out, watched, stdout)
	}
	params := sim.Params{Latency: lat, Seed: *seed, AccountAPIRate: *accountRate, AccountAPIBurst: *accountBurst}
	began := time.Now()

	// What to record: the current code at -shards; unless only one load is asked for, also
	// with every player in leagues, and at one shard.
	type set struct {
		name    string
		sizes   string
		opts    record.RecordOptions
		designs []*record.Recording
	}
	sets := []*set{{name: setAfter, sizes: *sizes, opts: record.RecordOptions{Shards: *shards}}}
	if *load == "" {
		sets = append(sets,
			&set{name: setLeagues, sizes: *leagueSizes, opts: record.RecordOptions{Shards: *shards, Leagues: domain.MaxLeaguesPerPlayer, ScoringOnly: true}},
			&set{name: setOneShard, sizes: *oneShardSizes, opts: record.RecordOptions{Shards: 1}})
	}
	if *replay != "" {
		for _, st := range sets {
			var err error
			if st.designs, err = readSet(*replay, st.name); err != nil {
				return err
			}
		}
	} else {
		ep, stopEngine, err := engine(*endpoint)
		if err != nil {
			return err
		}
		defer stopEngine()
		for _, st := range sets {
			ns, err := parseSizes(st.sizes)
			if err != nil {
				return err
			}
			for i, n := range ns {
				o := st.opts
				o.Design, o.Players, o.Endpoint, o.Template, o.Commit, o.Log = st.name, n, ep, *template, commit(), stderr
				o.Game = *game
				// The model replays the larger recording of the current code; the smaller
				// one only checks that it extrapolates, and the other sets take the fault
				// probes from it (the same code): only that one needs them.
				o.NoProbes = st.name != setAfter || i == 0
				rec, err := record.Record(ctx, o)
				if err != nil {
					return err
				}
				st.designs = append(st.designs, rec)
			}
			if *save != "" {
				if err := writeSet(*save, st.name, st.designs, stderr); err != nil {
					return err
				}
			}
		}
	}
	afterDesign := scale.Design{Name: setAfter, Small: sets[0].designs[0], Large: sets[0].designs[1]}
	if *load != "" {
		w, _, err := afterDesign.At(*players)
		if err != nil {
			return err
		}
		res := map[string]*sim.LoadResult{}
		for _, limits := range []bool{false, true} {
			p := params
			p.Limits = limits
			key := "demand"
			if limits {
				key = "limited"
			}
			res[key] = sim.Run(w, *load, p)
		}
		b, err := json.MarshalIndent(res, "", "  ")
		if err != nil {
			return err
		}
		_, err = stdout.Write(append(b, '\n'))
		return err
	}
	// The fault probes of the current code, for the sets recorded without them.
	for _, st := range sets[1:] {
		if len(st.designs[1].StoreRetries) == 0 {
			st.designs[1].StoreRetries = afterDesign.Large.StoreRetries
		}
	}
	leaguesDesign := scale.Design{Name: setLeagues, Small: sets[1].designs[0], Large: sets[1].designs[1]}
	oneShardDesign := scale.Design{Name: setOneShard, Small: sets[2].designs[0], Large: sets[2].designs[1]}

	var beforeDesign scale.Design
	note := ""
	if beforeRecs, err := readPair(*before); err == nil {
		beforeDesign = scale.Design{Name: "before", Small: beforeRecs[0], Large: beforeRecs[1]}
	} else if errors.Is(err, os.ErrNotExist) {
		fmt.Fprintf(stderr, "scale: no \"before\" recordings (%v): before = the current code\n", err)
		beforeDesign = scale.Design{Name: "before", Small: afterDesign.Small, Large: afterDesign.Large}
		note = "No \"before\" recording is committed yet: before is the current code."
	} else {
		return err
	}
	rep := &scale.Report{Generated: time.Now(), LoadAverage: bench.LoadAverage(), Players: *players, Sizes: scale.Sizes, Params: params, Watchers: watched}
	var err error
	if rep.Before, err = scale.EvaluateDesign("before", beforeDesign, *players, scale.Sizes, params); err != nil {
		return err
	}
	rep.Before.Note = note
	if rep.After, err = scale.EvaluateDesign("after", afterDesign, *players, scale.Sizes, params); err != nil {
		return err
	}
	if beforeDesign.Large.Fingerprint() == afterDesign.Large.Fingerprint() {
		rep.After.Note = "After = before: the current code makes the same calls as the \"before\" recordings (the redesign has not landed)."
	}
	fmt.Fprintf(stderr, "scale: before and after evaluated (%v)\n", time.Since(began).Round(time.Second))
	if rep.Leagues, err = scale.EvaluateLeagues(leaguesDesign, domain.MaxLeaguesPerPlayer, *players, params); err != nil {
		return err
	}
	if rep.OneShard, err = scale.SearchOneShard(oneShardDesign, 10_000, *players, 1_000, scale.Sizes, params); err != nil {
		return err
	}
	if rep.AfterScoring, err = scale.SearchAfterScoring(afterDesign, *players, params); err != nil {
		return err
	}
	md := rep.Markdown()
	fmt.Fprintf(stderr, "scale: done in %v\n", time.Since(began).Round(time.Second))
	if *out == "" {
		_, err := io.WriteString(stdout, md)
		return err
	}
	js, err := rep.JSON()
	if err != nil {
		return err
	}
	for name, body := range map[string]string{"scale.md": md, "scale.json": string(js), "scale.svg": rep.SVG()} {
		if err := os.WriteFile(filepath.Join(*out, name), []byte(body), 0o644); err != nil {
			return err
		}
	}
	_, err = io.WriteString(stdout, md)
	return err
}

// pollAnswerFile is the pinned answer of the event card, what a watcher who polls fetches.
const pollAnswerFile = "bench/gqlexec/testdata/answers/Screen2EventCardMyPicks.txt"

// pollBytes is the watchers model's poll answer: the body's bytes of the pinned answer at
// path (bench/gqlexec's format: status, headers, a blank line, the body).
func pollBytes(path string) (watchers.Figure, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return watchers.Figure{}, fmt.Errorf("-poll-answer: %w (run from the repository root, or set -watch-poll-bytes)", err)
	}
	_, body, ok := strings.Cut(string(b), "\n\n")
	if !ok || body == "" {
		return watchers.Figure{}, fmt.Errorf("-poll-answer %s: no body after a blank line", path)
	}
	return watchers.Figure{Value: float64(len(body)), Unit: "bytes", Source: path,
		Assumed: "the event card's answer over bench/gqlexec's canned card, uncompressed; it carries the caller's picks, which a signed-out poll's lacks"}, nil
}

// writeWatchers writes the watchers model's section into dir's scale.md and its
// "watchers" member into dir's scale.json, the rest of both as they were (dir "": print the
// section).
func writeWatchers(dir string, w *watchers.Result, stdout io.Writer) error {
	if dir == "" {
		_, err := io.WriteString(stdout, w.Markdown())
		return err
	}
	mdPath, jsPath := filepath.Join(dir, "scale.md"), filepath.Join(dir, "scale.json")
	md, err := os.ReadFile(mdPath)
	if err != nil {
		return fmt.Errorf("-watchers-only updates a scale.md that make scale wrote: %w", err)
	}
	js, err := os.ReadFile(jsPath)
	if err != nil {
		return fmt.Errorf("-watchers-only updates a scale.json that make scale wrote: %w", err)
	}
	if js, err = w.SpliceJSON(js); err != nil {
		return err
	}
	if err := os.WriteFile(mdPath, []byte(w.Splice(string(md))), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(jsPath, js, 0o644); err != nil {
		return err
	}
	_, err = io.WriteString(stdout, w.Markdown())
	return err
}

// writeSet writes a set's recordings into dir as <set>-<players>.json.
func writeSet(dir, name string, recs []*record.Recording, log io.Writer) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, r := range recs {
		p := filepath.Join(dir, fmt.Sprintf("%s-%d.json", name, r.Players))
		if err := r.WriteFile(p); err != nil {
			return err
		}
		fmt.Fprintf(log, "scale: wrote %s\n", p)
	}
	return nil
}

// readSet reads the two recordings of a set from dir, the smaller first.
func readSet(dir, name string) ([]*record.Recording, error) {
	paths, err := filepath.Glob(filepath.Join(dir, name+"-*.json"))
	if err != nil {
		return nil, err
	}
	var recs []*record.Recording
	for _, p := range paths {
		// after-<n>.json, not after-leagues-<n>.json
		if _, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(filepath.Base(p), name+"-"), ".json")); err != nil {
			continue
		}
		r, err := record.ReadRecording(p)
		if err != nil {
			return nil, err
		}
		recs = append(recs, r)
	}
	if len(recs) != 2 {
		return nil, fmt.Errorf("%s: want two recordings %s-<players>.json, found %d", dir, name, len(recs))
	}
	if recs[0].Players > recs[1].Players {
		recs[0], recs[1] = recs[1], recs[0]
	}
	return recs, nil
}

func readPair(list string) ([]*record.Recording, error) {
	paths := strings.Split(list, ",")
	if len(paths) != 2 {
		return nil, fmt.Errorf("want two recordings (smaller,larger), got %q", list)
	}
	var out []*record.Recording
	for _, p := range paths {
		r, err := record.ReadRecording(p)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

func parseSizes(s string) ([]int, error) {
	var ns []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 10 || n > 10_000 {
			return nil, fmt.Errorf("sizes %q: want numbers of players from 10 to 10,000", f)
		}
		ns = append(ns, n)
	}
	if len(ns) != 2 || ns[0] >= ns[1] {
		return nil, fmt.Errorf("sizes: want two ascending sizes, got %q", s)
	}
	return ns, nil
}

// engine returns a DynamoDB Local endpoint: the given one, or one started here with the
// benchmark's JVM flags.
func engine(endpoint string) (string, func(), error) {
	if endpoint != "" {
		return endpoint, func() {}, nil
	}
	if _, ok := os.LookupEnv(dynamotest.EnvJavaOpts); !ok {
		os.Setenv(dynamotest.EnvJavaOpts, "-Xms1g -Xmx2g -XX:+UseParallelGC")
	}
	e, err := dynamotest.Start()
	if err != nil {
		return "", nil, err
	}
	return e.Endpoint, e.Stop, nil
}

// commit is the short git commit of the work tree, with "+dirty" for local changes.
func commit() string {
	out, err := exec.Command("git", "rev-parse", "--short=12", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	c := strings.TrimSpace(string(out))
	if st, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(strings.TrimSpace(string(st))) > 0 {
		c += "+dirty"
	}
	return c
}
