// Command screens runs the Pick'Em benchmark suite (package bench) and writes its tables to
// results.md, results.json and latency.svg in -out, printing the markdown. `make bench`
// runs it after `go test -bench ./bench/gqlexec`, whose output it folds in with -gobench.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/pickem/api/bench"
	"github.com/pickem/api/bench/gqlexec"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := run(ctx, os.Args[1:])
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "screens:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string) error {
	opts := bench.DefaultOptions()
	sc := &opts.Scale
	fs := flag.NewFlagSet("screens", flag.ContinueOnError)
	out := fs.String("out", "bench/results", "directory for results.md, results.json and latency.svg (empty: print only)")
	goBench := fs.String("gobench", "", "file holding the output of go test -bench ./bench/gqlexec, to include")
	fs.IntVar(&sc.Players, "players", sc.Players, "players, each with a standing in every season")
	fs.Func("sizes", fmt.Sprintf("predictions per event measured, ascending (default %s)", ints(sc.Sizes)), func(v string) (err error) {
		sc.Sizes, err = parseInts(v)
		return err
	})
	fs.IntVar(&sc.Background, "background", sc.Background, "predictions of every event no screen measures (0: 50 past, 10 open)")
	fs.IntVar(&sc.PastFillers, "fillers", sc.PastFillers, "past events no screen measures, per shard count (0: 14 past events in all)")
	fs.IntVar(&sc.Warmup, "warmup", sc.Warmup, "warm-up iterations per screen, size and mode")
	fs.IntVar(&sc.Iterations, "n", sc.Iterations, "measured iterations per screen, size and mode")
	fs.DurationVar(&sc.LoadDuration, "load", sc.LoadDuration, "load test duration per screen, 0 to skip")
	fs.Func("leagues", "members of screen 8's leagues (default 10,100,1000, those the players allow)", func(v string) (err error) {
		sc.LeagueSizes, err = parseInts(v)
		return err
	})
	fs.Func("shards", fmt.Sprintf("shard counts measured, each with a season of its own (default %s)", ints(opts.Shards)), func(v string) (err error) {
		opts.Shards, err = parseInts(v)
		return err
	})
	fs.DurationVar(&opts.Latency, "latency", opts.Latency, "what latency mode adds to every DynamoDB call on each way")
	fs.IntVar(&opts.LoadWorkers, "workers", opts.LoadWorkers, "load test concurrency")
	fs.StringVar(&opts.Answers, "answers", "", "write the first answer of every screen to this directory (to compare two versions byte for byte)")
	fs.BoolVar(&opts.Game, "game", false, "screen 7 scores events using every game extra (jokers, perfect-card bonus, method picks, a tie-breaker answer)")
	fs.BoolVar(&opts.ScoringOnly, "scoring-only", false, "stop after screen 7: load the data, score, print its figures")
	gcSetting := fs.String("gc", "deployed", "Go GC settings of the run: deployed (GOGC and GOMEMLIMIT of deploy/template.yaml, as the Lambda function runs) or env (the environment's, Go's defaults if unset)")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the whole run (API and client) to this file")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	gcNote := "GOGC=" + envOr("GOGC", "100") + " GOMEMLIMIT=" + envOr("GOMEMLIMIT", "none") + " (environment)"
	switch *gcSetting {
	case "deployed":
		// The Lambda function's settings: the API runs as it does on AWS.
		gc, err := gqlexec.DeployedGC(filepath.Join("deploy", "template.yaml"))
		if err != nil {
			return fmt.Errorf("-gc deployed (run from the repository root): %w", err)
		}
		opts.GC = gc.Apply
		gcNote = gc.String() + " (deploy/template.yaml, as the Lambda function)"
	case "env":
	default:
		return fmt.Errorf("-gc %q: want deployed or env", *gcSetting)
	}

	res, err := bench.Run(ctx, opts, os.Stderr)
	if err != nil {
		return err
	}
	res.Machine.GC = gcNote
	if *goBench != "" {
		f, err := os.Open(*goBench)
		if err != nil {
			return err
		}
		res.GoBench, err = bench.ParseGoBench(f)
		f.Close()
		if err != nil {
			return err
		}
		if len(res.GoBench) == 0 {
			return errors.New("-gobench: no benchmark lines in " + *goBench)
		}
		res.RefreshGoals()
	}
	md := res.Markdown()
	fmt.Print(md)
	if *out == "" {
		return nil
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	js, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	files := map[string][]byte{"results.md": []byte(md), "results.json": append(js, '\n')}
	if svg := res.PlotSVG(); svg != "" {
		files["latency.svg"] = []byte(svg)
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(*out, name), b, 0o644); err != nil {
			return err
		}
	}
	fmt.Fprintf(os.Stderr, "wrote %s/{results.md,results.json,latency.svg} at %s\n", *out, time.Now().Format(time.TimeOnly))
	return nil
}

func parseInts(v string) ([]int, error) {
	var out []int
	for _, part := range strings.Split(v, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(part))
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, nil
}

func ints(ns []int) string {
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = strconv.Itoa(n)
	}
	return strings.Join(parts, ",")
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}
