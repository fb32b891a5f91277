package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/pickem/api/operations"
)

// Moderation commands: each is one admin mutation, written to the moderation audit log
// (admin audit -event moderation).

func renameLeagueCmd(fs *flag.FlagSet) func(context.Context, *client, io.Writer) error {
	id := fs.String("league", "", "league id")
	name := fs.String("name", "", "the league's new name")
	return func(ctx context.Context, c *client, out io.Writer) error {
		if err := required("league", *id); err != nil {
			return err
		}
		if err := required("name", *name); err != nil {
			return err
		}
		var data struct{ RenameLeague struct{ ID, Name string } }
		err := c.do(ctx, operations.Text("admin-rename-league"),
			map[string]any{"id": *id, "name": *name}, &data)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "league %s is now %q\n", data.RenameLeague.ID, data.RenameLeague.Name)
		return nil
	}
}

func deleteLeagueCmd(fs *flag.FlagSet) func(context.Context, *client, io.Writer) error {
	id := fs.String("league", "", "league id")
	return func(ctx context.Context, c *client, out io.Writer) error {
		if err := required("league", *id); err != nil {
			return err
		}
		var data struct{ DeleteLeague bool }
		err := c.do(ctx, operations.Text("admin-delete-league"), map[string]any{"id": *id}, &data)
		if err != nil {
			return err // a deletion cut off is finished by running the command again
		}
		fmt.Fprintf(out, "league %s deleted: its members left it, its invite code no longer works\n", *id)
		return nil
	}
}

func renamePlayerCmd(fs *flag.FlagSet) func(context.Context, *client, io.Writer) error {
	id := fs.String("player", "", "player (user) id")
	name := fs.String("name", "", "the player's new profile name")
	return func(ctx context.Context, c *client, out io.Writer) error {
		if err := required("player", *id); err != nil {
			return err
		}
		if err := required("name", *name); err != nil {
			return err
		}
		var data struct{ RenamePlayer struct{ ID, Name string } }
		err := c.do(ctx, operations.Text("admin-rename-player"),
			map[string]any{"id": *id, "name": *name}, &data)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "player %s is now %q\n", data.RenamePlayer.ID, data.RenamePlayer.Name)
		return nil
	}
}

// leaguesCmd prints a player's leagues (admins may read any player's): the ids the other
// moderation commands take.
func leaguesCmd(fs *flag.FlagSet) func(context.Context, *client, io.Writer) error {
	id := fs.String("player", "", "player (user) id")
	return func(ctx context.Context, c *client, out io.Writer) error {
		if err := required("player", *id); err != nil {
			return err
		}
		var data struct {
			User *struct {
				Leagues []struct {
					ID, Name    string
					MemberCount int
					Owner       struct{ ID string }
				}
			}
		}
		err := c.do(ctx, operations.Text("admin-player-leagues"),
			map[string]any{"id": *id}, &data)
		if err != nil {
			return err
		}
		if data.User == nil || len(data.User.Leagues) == 0 {
			fmt.Fprintf(out, "%s is in no league\n", *id)
			return nil
		}
		tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tNAME\tMEMBERS\tOWNER")
		for _, l := range data.User.Leagues {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%s\n", l.ID, l.Name, l.MemberCount, l.Owner.ID)
		}
		return tw.Flush()
	}
}
