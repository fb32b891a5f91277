// Command push runs the push benchmark (bench.RunPush): WebSocket subscribers of the local
// server's real-time endpoint, the admin mutations that publish, and the screens with and
// without the sockets open. It writes push.md and push.json in -out and prints the
// markdown. `make bench` runs it after the screens.
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
	"syscall"

	"github.com/pickem/api/bench"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := run(ctx, os.Args[1:])
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "push:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string) error {
	opts := bench.DefaultPushOptions()
	fs := flag.NewFlagSet("push", flag.ContinueOnError)
	out := fs.String("out", "bench/results", "directory for push.md and push.json (empty: print only)")
	fs.IntVar(&opts.Subscribers, "subscribers", opts.Subscribers, "WebSockets subscribed to the pushed event's channel")
	fs.IntVar(&opts.Cycles, "cycles", opts.Cycles, "cycles of (sockets open: screens, pushes) then (no socket: the same)")
	fs.IntVar(&opts.ResultsPerCycle, "results", opts.ResultsPerCycle, "setResult calls per cycle and mode, before a tie-breaker answer and a scoring pass")
	fs.IntVar(&opts.Scale.Iterations, "n", opts.Scale.Iterations, "requests per screen per cycle and mode")
	fs.IntVar(&opts.Scale.Warmup, "warmup", opts.Scale.Warmup, "warm-up requests per screen")
	fs.IntVar(&opts.Scale.Players, "players", opts.Scale.Players, "players of the league the screens read")
	fs.IntVar(&opts.Predictions, "predictions", opts.Predictions, "predictions of the pushed event")
	fs.DurationVar(&opts.Wait, "wait", opts.Wait, "most a message may take to reach every subscriber before the run fails")
	if err := fs.Parse(args); err != nil {
		return err
	}
	res, err := bench.RunPush(ctx, opts, os.Stderr)
	if err != nil {
		return err
	}
	md := res.Markdown()
	fmt.Print(md)
	if *out == "" {
		return nil
	}
	js, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	for name, b := range map[string][]byte{"push.md": []byte(md), "push.json": append(js, '\n')} {
		if err := os.WriteFile(filepath.Join(*out, name), b, 0o644); err != nil {
			return err
		}
	}
	fmt.Fprintf(os.Stderr, "wrote %s/{push.md,push.json}\n", *out)
	return nil
}
