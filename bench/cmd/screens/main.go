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
	fs := flag.NewFlagSet("screens", flag.ContinueOnError)
	out := fs.String("out", "bench/results", "directory for results.md, results.json and latency.svg (empty: print only)")
	goBench := fs.String("gobench", "", "file holding the output of go test -bench ./bench/gqlexec, to include")
	engines := fs.String("engines", strings.Join(opts.Engines, ","), "engines: dynamodb-local (the only one)")
	scaleFlags(fs, "", "DynamoDB Local", opts.Scales, bench.EngineDynamoDBLocal)
	fs.IntVar(&opts.LoadWorkers, "workers", opts.LoadWorkers, "load test concurrency")
	fs.StringVar(&opts.Answers, "answers", "", "write the first answer of every screen to this directory (to compare two versions byte for byte)")
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
	opts.Engines = strings.Split(*engines, ",")
	envGC := "GOGC=" + envOr("GOGC", "100") + " GOMEMLIMIT=" + envOr("GOMEMLIMIT", "none") + " (environment)"
	gcNote := envGC
	switch *gcSetting {
	case "deployed":
		// The Lambda function's settings: the API runs as it does on AWS.
		gc, err := gqlexec.DeployedGC(filepath.Join("deploy", "template.yaml"))
		if err != nil {
			return fmt.Errorf("-gc deployed (run from the repository root): %w", err)
		}
		opts.GC = map[string]func() func(){bench.EngineDynamoDBLocal: gc.Apply}
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

// scaleFlags registers prefix-named flags that change scales[key].
func scaleFlags(fs *flag.FlagSet, prefix, what string, scales map[string]bench.Scale, key string) {
	update := func(f func(*bench.Scale, string) error) func(string) error {
		return func(v string) error {
			sc := scales[key]
			if err := f(&sc, v); err != nil {
				return err
			}
			scales[key] = sc
			return nil
		}
	}
	sc := scales[key]
	intFlag := func(name string, def int, usage string, field func(*bench.Scale) *int) {
		fs.Func(prefix+name, fmt.Sprintf("%s for %s (default %d)", usage, what, def), update(func(s *bench.Scale, v string) error {
			n, err := strconv.Atoi(v)
			*field(s) = n
			return err
		}))
	}
	intFlag("players", sc.Players, "players, each with a season standing,", func(s *bench.Scale) *int { return &s.Players })
	intFlag("n", sc.Iterations, "measured iterations per screen and size", func(s *bench.Scale) *int { return &s.Iterations })
	intFlag("background", sc.Background, "predictions of every event no screen measures (0: 50 past, 10 open)", func(s *bench.Scale) *int { return &s.Background })
	intFlag("warmup", sc.Warmup, "warm-up iterations per screen and size", func(s *bench.Scale) *int { return &s.Warmup })
	fs.Func(prefix+"sizes", fmt.Sprintf("predictions per event, ascending, for %s (default %v)", what, sc.Sizes), update(func(s *bench.Scale, v string) error {
		s.Sizes = nil
		for _, part := range strings.Split(v, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(part))
			if err != nil {
				return err
			}
			s.Sizes = append(s.Sizes, n)
		}
		return nil
	}))
	fs.Func(prefix+"load", fmt.Sprintf("load test duration per screen, 0 to skip, for %s (default %v)", what, sc.LoadDuration), update(func(s *bench.Scale, v string) error {
		d, err := time.ParseDuration(v)
		s.LoadDuration = d
		return err
	}))
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}
