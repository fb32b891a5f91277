package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/pickem/api/operations"
)

// scoreReport is the API's ScoreReport.
type scoreReport struct {
	EventID           string `json:"eventId"`
	DryRun            bool   `json:"dryRun"`
	PredictionsScored int    `json:"predictionsScored"`
	StandingsChanged  int    `json:"standingsChanged"`
	Transactions      int    `json:"transactions"`
	Complete          bool   `json:"complete"`
	Remaining         int    `json:"remaining"`
	ScoredMatches     int    `json:"scoredMatches"`
	Final             bool   `json:"final"`
}

// Limits of the score loop. A call that writes nothing yet is not complete is waiting for
// the index to show predictions it has not seen yet (typically well under a second on
// AWS); CONFLICT (the card changed meanwhile) and UNAVAILABLE (contention) are worth
// another call too.
const (
	maxIdleCalls   = 30
	maxFailedCalls = 5
)

// scoreIdleWait is the pause before calling again after a call that wrote nothing or
// failed with CONFLICT or UNAVAILABLE (tests shorten it).
var scoreIdleWait = time.Second

func scoreCmd(fs *flag.FlagSet) func(context.Context, *client, io.Writer) error {
	id := fs.String("event", "", "event id")
	dryRun := fs.Bool("dry-run", false, "report what scoring would change, without writing")
	return func(ctx context.Context, c *client, out io.Writer) error {
		if err := required("event", *id); err != nil {
			return err
		}
		if *dryRun {
			r, err := scoreOnce(ctx, c, *id, true)
			if err != nil {
				return err
			}
			fmt.Fprintf(out, "dry run of %s: nothing written\n", r.EventID)
			fmt.Fprintf(out, "  predictions to score  %d\n  standings to change   %d\n  transactions needed   %d\n  complete              %v\n  matches counted       %d (%s)\n",
				r.PredictionsScored, r.StandingsChanged, r.Transactions, r.Complete, r.ScoredMatches, dryPassKind(r.Final))
			return nil
		}
		return scoreUntilComplete(ctx, c, *id, out, isTerminal(out))
	}
}

func scoreOnce(ctx context.Context, c *client, id string, dryRun bool) (scoreReport, error) {
	var data struct{ ScoreEvent scoreReport }
	err := c.do(ctx, operations.ScoreEvent, map[string]any{"eventId": id, "dryRun": dryRun}, &data)
	return data.ScoreEvent, err
}

// scoreUntilComplete calls scoreEvent until it reports complete: each call works within
// the API's time budget and continues where the last one stopped. It shows a progress bar
// on a terminal and one line per call otherwise, then the totals.
func scoreUntilComplete(ctx context.Context, c *client, id string, out io.Writer, tty bool) error {
	var total scoreReport
	calls, idle, failed := 0, 0, 0
	for {
		r, err := scoreOnce(ctx, c, id, false)
		calls++
		if err != nil {
			var ge gqlErrors
			if errors.As(err, &ge) && (ge.has("CONFLICT") || ge.has("UNAVAILABLE")) && failed < maxFailedCalls {
				failed++
				progressLine(out, tty, fmt.Sprintf("call %d: %s: calling again", calls, ge.Error()))
				if err := wait(ctx, scoreIdleWait); err != nil {
					return err
				}
				continue
			}
			if tty {
				fmt.Fprintln(out)
			}
			return err
		}
		failed = 0
		total.EventID, total.ScoredMatches, total.Final = r.EventID, r.ScoredMatches, r.Final
		total.PredictionsScored += r.PredictionsScored
		total.StandingsChanged += r.StandingsChanged
		total.Transactions += r.Transactions
		done := total.PredictionsScored
		if tty {
			fmt.Fprintf(out, "\r%s %d/%d predictions (call %d)", bar(done, done+r.Remaining, 30), done, done+r.Remaining, calls)
		} else {
			fmt.Fprintf(out, "call %d: wrote %d predictions and %d standings in %d transactions; %d remaining\n",
				calls, r.PredictionsScored, r.StandingsChanged, r.Transactions, r.Remaining)
		}
		if r.Complete {
			break
		}
		if r.PredictionsScored > 0 {
			idle = 0
			continue
		}
		if idle++; idle > maxIdleCalls {
			if tty {
				fmt.Fprintln(out)
			}
			return fmt.Errorf("scoring %s made no progress in %d calls with %d predictions remaining: the index has not shown them yet; run `admin score` again later", id, idle, r.Remaining)
		}
		if err := wait(ctx, scoreIdleWait); err != nil {
			return err
		}
	}
	if tty {
		fmt.Fprintln(out)
	}
	fmt.Fprintf(out, "scored %s\n", total.EventID)
	fmt.Fprintf(out, "  predictions scored  %d\n  standings changed   %d\n  transactions        %d\n  calls               %d\n  matches counted     %d (%s)\n",
		total.PredictionsScored, total.StandingsChanged, total.Transactions, calls, total.ScoredMatches, passKind(total.Final))
	if total.PredictionsScored == 0 {
		fmt.Fprintln(out, "  (nothing changed: already up to date)")
	}
	return nil
}

// passKind says what a pass counting every match with a result means for the event.
func passKind(final bool) string {
	if final {
		return "final: every match has a result, the event is SCORED"
	}
	return "provisional: matches without a result remain, the event stays BROADCAST"
}

// dryPassKind is passKind for a dry run, which changes nothing.
func dryPassKind(final bool) string {
	if final {
		return "final: every match has a result, scoring makes the event SCORED"
	}
	return "provisional: matches without a result remain, the event would stay BROADCAST"
}

// progressLine prints msg on its own line (on a terminal, clearing the bar first).
func progressLine(out io.Writer, tty bool, msg string) {
	if tty {
		fmt.Fprintf(out, "\r\033[K%s\n", msg)
		return
	}
	fmt.Fprintln(out, msg)
}

// bar is a progress bar of width characters, done of total.
func bar(done, total, width int) string {
	filled := width
	if total > 0 {
		filled = done * width / total
	}
	return "[" + strings.Repeat("#", filled) + strings.Repeat(".", width-filled) + "]"
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

func wait(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
