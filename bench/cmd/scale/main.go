// Command scale runs the partition-throughput model (package bench/scale): it records what
// the current code does on DynamoDB Local at two small numbers of players, extrapolates
// it and the committed "before" recordings to a million players in virtual time, and
// writes bench/results/scale.{md,json,svg}. `make scale` runs it; -h lists the flags.
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

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("scale", flag.ContinueOnError)
	out := fs.String("out", "bench/results", "directory for scale.md, scale.json and scale.svg (empty: print the markdown only)")
	before := fs.String("before", beforeDir+"/before-1000.json,"+beforeDir+"/before-10000.json", "the committed recordings of the design before the redesign (smaller, larger)")
	after := fs.String("after", "", "recordings to use as \"after\" instead of recording the current code (smaller,larger)")
	sizes := fs.String("sizes", "2000,4000", "numbers of players to record the current code at (two, ≤ 10,000)")
	recordTo := fs.String("record", "", "record the current code at -sizes into these files (comma-separated, one per size) and stop; e.g. the \"before\" recordings")
	design := fs.String("design", "after", "the name stored in recordings made with -record")
	save := fs.String("save", "", "also write the recordings of the current code to these files (comma-separated, one per size) and go on; -after replays them")
	players := fs.Int("players", 1_000_000, "players to extrapolate to")
	leagues := fs.Int("leagues", 0, "leagues per player (0–20) in the recordings of the current code: scoring then writes their copies")
	load := fs.String("load", "", "run only this load ("+strings.Join(scale.Loads, ", ")+") of the \"after\" design at -players and print its results as JSON")
	endpoint := fs.String("endpoint", "", "a running DynamoDB Local (default: start one from node_modules)")
	template := fs.String("template", "deploy/template.yaml", "the SAM template (front door settings)")
	seed := fs.Uint64("seed", 1, "random seed of the simulation")
	accountRate := fs.Float64("account-api-rate", 0, "the account's API Gateway throttle, requests/s (default: AWS's default, 10,000): what a quota raise buys")
	accountBurst := fs.Int("account-api-burst", 0, "the account's API Gateway burst (default: AWS's default, 5,000)")
	lat := scale.DefaultLatency
	fs.Float64Var(&lat.ItemMs, "item-ms", lat.ItemMs, "assumed latency of GetItem/PutItem/UpdateItem/DeleteItem")
	fs.Float64Var(&lat.ReadMs, "read-ms", lat.ReadMs, "assumed latency of Query/BatchGetItem, plus -per-mb-ms per MB")
	fs.Float64Var(&lat.PerMBMs, "per-mb-ms", lat.PerMBMs, "assumed read latency per MB returned")
	fs.Float64Var(&lat.TxMs, "tx-ms", lat.TxMs, "assumed latency of TransactWriteItems, plus -tx-item-ms per item")
	fs.Float64Var(&lat.TxItemMs, "tx-item-ms", lat.TxItemMs, "assumed transaction latency per item")
	fs.Float64Var(&lat.HandlerMs, "handler-ms", lat.HandlerMs, "assumed work of the function itself per request")
	if err := fs.Parse(args); err != nil {
		return err
	}
	params := scale.Params{Latency: lat, Seed: *seed, AccountAPIRate: *accountRate, AccountAPIBurst: *accountBurst}
	began := time.Now()

	var afterRecs []*scale.Recording
	var err error
	switch {
	case *after != "":
		if afterRecs, err = readPair(*after); err != nil {
			return err
		}
	default:
		ns, err := parseSizes(*sizes)
		if err != nil {
			return err
		}
		ep, stopEngine, err := engine(*endpoint)
		if err != nil {
			return err
		}
		defer stopEngine()
		for i, n := range ns {
			// The model replays the larger recording; the smaller one only checks that it
			// extrapolates, so it needs no fault probes.
			rec, err := scale.Record(ctx, scale.RecordOptions{Design: *design, Players: n, Endpoint: ep, Template: *template, Commit: commit(), Log: stderr, Leagues: *leagues,
				NoProbes: i == 0 && len(ns) == 2})
			if err != nil {
				return err
			}
			afterRecs = append(afterRecs, rec)
		}
		if *save != "" {
			if err := writeRecordings(*save, afterRecs, stderr); err != nil {
				return err
			}
		}
		if *recordTo != "" {
			return writeRecordings(*recordTo, afterRecs, stderr)
		}
	}
	afterDesign := scale.Design{Name: "after", Small: afterRecs[0], Large: afterRecs[1]}
	if *load != "" {
		w, _, err := afterDesign.At(*players)
		if err != nil {
			return err
		}
		res := map[string]*scale.LoadResult{}
		for _, limits := range []bool{false, true} {
			p := params
			p.Limits = limits
			key := "demand"
			if limits {
				key = "limited"
			}
			res[key] = scale.Run(w, *load, p)
		}
		b, err := json.MarshalIndent(res, "", "  ")
		if err != nil {
			return err
		}
		_, err = stdout.Write(append(b, '\n'))
		return err
	}

	var beforeDesign scale.Design
	note := ""
	if beforeRecs, err := readPair(*before); err == nil {
		beforeDesign = scale.Design{Name: "before", Small: beforeRecs[0], Large: beforeRecs[1]}
	} else if errors.Is(err, os.ErrNotExist) {
		fmt.Fprintf(stderr, "scale: no \"before\" recordings (%v): before = the current code\n", err)
		beforeDesign = scale.Design{Name: "before", Small: afterRecs[0], Large: afterRecs[1]}
		note = "No \"before\" recording is committed yet: before is the current code."
	} else {
		return err
	}
	rep := &scale.Report{Generated: time.Now(), LoadAverage: bench.LoadAverage(), Players: *players, Sizes: scale.Sizes, Params: params}
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

// writeRecordings writes recs to the comma-separated paths, one each.
func writeRecordings(list string, recs []*scale.Recording, log io.Writer) error {
	paths := strings.Split(list, ",")
	if len(paths) != len(recs) {
		return fmt.Errorf("%d files for %d recordings", len(paths), len(recs))
	}
	for i, p := range paths {
		if err := recs[i].WriteFile(p); err != nil {
			return err
		}
		fmt.Fprintf(log, "scale: wrote %s\n", p)
	}
	return nil
}

func readPair(list string) ([]*scale.Recording, error) {
	paths := strings.Split(list, ",")
	if len(paths) != 2 {
		return nil, fmt.Errorf("want two recordings (smaller,larger), got %q", list)
	}
	var out []*scale.Recording
	for _, p := range paths {
		r, err := scale.ReadRecording(p)
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
			return nil, fmt.Errorf("-sizes: %q: want numbers of players from 10 to 10,000", f)
		}
		ns = append(ns, n)
	}
	if len(ns) < 1 || len(ns) > 2 || (len(ns) == 2 && ns[0] >= ns[1]) {
		return nil, fmt.Errorf("-sizes: want two ascending sizes (or one with -record), got %q", s)
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
