package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/pickem/api/operations"
)

// auditCmd prints an event's audit log, newest first: who changed what, when.
func auditCmd(fs *flag.FlagSet) func(context.Context, *client, io.Writer) error {
	id := fs.String("event", "", `event id (or "moderation": league and player moderation)`)
	first := fs.Int("first", 50, "how many entries, newest first")
	return func(ctx context.Context, c *client, out io.Writer) error {
		if err := required("event", *id); err != nil {
			return err
		}
		if *first < 1 {
			return usagef("-first must be at least 1")
		}
		type entry struct {
			At      string
			Actor   struct{ ID, Name string }
			Action  string
			MatchID *string `json:"matchId"`
			Summary string
		}
		entries, err := fetchPages[entry](ctx, c, "auditLog", operations.Text("admin-audit-log"),
			map[string]any{"eventId": *id}, *first)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "Audit log of %s, newest first\n", *id)
		if len(entries) == 0 {
			fmt.Fprintln(out, "(no entries)")
			return nil
		}
		tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "AT\tBY\tACTION\tMATCH\tSUMMARY")
		for _, e := range entries {
			match := "-"
			if e.MatchID != nil {
				match = *e.MatchID
			}
			who := e.Actor.Name + " (" + e.Actor.ID + ")"
			if strings.HasPrefix(e.Actor.ID, "(") { // a change made without a caller: "(system)"
				who = e.Actor.ID
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", e.At, who, e.Action, match, strings.ReplaceAll(e.Summary, "\t", " "))
		}
		return tw.Flush()
	}
}
