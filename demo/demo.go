// Package demo loads demo data for the local server: players, two scored events with
// leaderboards and season standings, one locked event awaiting results and one upcoming
// event open for picks, all in the season (UTC year) of the time it is loaded at, and a
// league of the demo player's with three others in it.
package demo

import (
	"context"
	"fmt"
	"time"

	"github.com/pickem/api/auth"
	"github.com/pickem/api/domain"
	"github.com/pickem/api/dynamo"
	"github.com/pickem/api/dynamo/ddb"
)

// Demo identities printed with ready-to-use tokens by the local server.
var (
	Player = auth.Identity{ID: "demo-player", Name: "Demo Player"}
	Admin  = auth.Identity{ID: "demo-admin", Name: "Demo Admin", Groups: []string{auth.AdminGroup}}
)

var players = []domain.UserRef{
	{ID: Player.ID, Name: Player.Name},
	{ID: "sam", Name: "Sam Hogarth"},
	{ID: "alex", Name: "Alex Rivera"},
	{ID: "jo", Name: "Jo Nakamura"},
	{ID: "priya", Name: "Priya Shah"},
}

func team(members ...string) domain.Team { return domain.Team{Members: members} }

func named(name string, champion bool, members ...string) domain.Team {
	return domain.Team{Name: &name, Members: members, Champion: champion}
}

type card struct {
	name    string
	matches []domain.MatchSpec
	results []domain.MatchResult // nil: no results entered
}

func win(i int) domain.MatchResult { return domain.MatchResult{Outcome: domain.OutcomeWin, Winner: &i} }

var cards = []card{
	{
		name: "AEW Revolution",
		matches: []domain.MatchSpec{
			{Name: "Tag Team Match", Points: 5, Preshow: true, Teams: []domain.Team{named("Private Party", false, "Marq Quen", "Isiah Kassidy"), named("The Acclaimed", false, "Anthony Bowens", "Max Caster")}},
			{Name: "Singles Match", Points: 10, Teams: []domain.Team{team("Will Ospreay"), team("Konosuke Takeshita")}},
			{Name: "Tornado Tag Team Match", Points: 25, Championships: []string{"AEW World Tag Team Championship"},
				Teams: []domain.Team{named("", true, "Sting", "Darby Allin"), named("The Young Bucks", false, "Matthew Jackson", "Nicholas Jackson")}},
			{Name: "Singles Match", Points: 20, Championships: []string{"AEW World Championship"}, Teams: []domain.Team{{Members: []string{"Samoa Joe"}, Champion: true}, team("Swerve Strickland"), team("Hangman Page")}},
		},
		results: []domain.MatchResult{win(1), win(0), win(0), win(0)},
	},
	{
		name: "AEW All In",
		matches: []domain.MatchSpec{
			{Name: "Casino Gauntlet", Points: 10, Preshow: true, Teams: []domain.Team{team("Christian Cage"), team("Kyle O'Reilly"), team("Powerhouse Hobbs"), team("Orange Cassidy")}},
			{Name: "Women's World Championship", Points: 15, Championships: []string{"AEW Women's World Championship"}, Teams: []domain.Team{{Members: []string{"Mariah May"}, Champion: true}, team("Toni Storm")}},
			{Name: "Trios Match", Points: 10, Teams: []domain.Team{named("The Elite", false, "Kazuchika Okada", "Matthew Jackson", "Nicholas Jackson"), named("", false, "Kenny Omega", "Will Ospreay", "Swerve Strickland")}},
			{Name: "Title vs. Career", Points: 25, Championships: []string{"AEW World Championship"}, Teams: []domain.Team{{Members: []string{"Swerve Strickland"}, Champion: true}, team("Bryan Danielson")}},
		},
		results: []domain.MatchResult{win(0), win(1), {Outcome: domain.OutcomeNoContest}, win(1)},
	},
	{
		name: "AEW Full Gear",
		matches: []domain.MatchSpec{
			{Name: "Singles Match", Points: 10, Teams: []domain.Team{team("Jon Moxley"), team("Orange Cassidy")}},
			{Name: "Women's Match", Points: 10, Teams: []domain.Team{team("Mercedes Moné"), team("Kris Statlander")}},
			{Name: "Main Event", Points: 20, Championships: []string{"AEW World Championship"}, Teams: []domain.Team{{Members: []string{"Hangman Page"}, Champion: true}, team("Samoa Joe")}},
		},
	},
	{
		name: "AEW Worlds End",
		matches: []domain.MatchSpec{
			{Name: "Continental Classic Final", Points: 15, Championships: []string{"AEW Continental Championship"}, Teams: []domain.Team{{Members: []string{"Kazuchika Okada"}, Champion: true}, team("Kyle Fletcher")}},
			{Name: "Tag Team Match", Points: 10, Teams: []domain.Team{named("FTR", false, "Dax Harwood", "Cash Wheeler"), named("The Hurt Syndicate", true, "Bobby Lashley", "Shelton Benjamin")}},
			{Name: "Four-Way Match", Points: 20, Championships: []string{"AEW Women's World Championship"}, Teams: []domain.Team{{Members: []string{"Toni Storm"}, Champion: true}, team("Mercedes Moné"), team("Athena"), team("Jamie Hayter")}},
			{Name: "Main Event", Points: 25, Championships: []string{"AEW World Championship"}, Teams: []domain.Team{{Members: []string{"Hangman Page"}, Champion: true}, team("Jon Moxley")}},
		},
	},
}

// Schedule returns the start of each demo event (in the order of the cards: two scored,
// one locked, one upcoming) for data loaded at now. All four are in now's season (UTC
// year): 70, 30 and 1 day(s) before now and 14 days after it when the season leaves room,
// spread over the part of the season before (after) now when it does not (early January,
// late December).
func Schedule(now time.Time) []time.Time {
	now = now.UTC()
	season := time.Date(now.Year(), 1, 1, 0, 0, 0, 0, time.UTC)
	before, after := now.Sub(season), season.AddDate(1, 0, 0).Sub(now)
	const day = 24 * time.Hour
	past := func(d time.Duration, share float64) time.Time {
		if before > 71*day {
			return now.Add(-d).Truncate(time.Hour)
		}
		return season.Add(time.Duration(share * float64(before)))
	}
	next := now.Add(after / 2)
	if after > 15*day {
		next = now.Add(14 * day).Truncate(time.Hour)
	}
	return []time.Time{past(70*day, 0.1), past(30*day, 0.5), past(day, 0.9), next}
}

// Load writes the demo data through store's client and table, laid out around now
// (Schedule), its events and season of shards shards. It is safe to run on a table that
// already has it: an existing event is left alone.
func Load(ctx context.Context, db ddb.API, table string, now time.Time, shards int) error {
	store := dynamo.New(db, table, dynamo.WithClock(func() time.Time { return now }), dynamo.WithScoreShards(shards))
	for _, p := range players {
		if _, err := store.Register(ctx, p.ID, p.Name); err != nil {
			return fmt.Errorf("demo: register %s: %w", p.ID, err)
		}
	}
	starts := Schedule(now)
	for ci, c := range cards {
		start := starts[ci]
		ev, err := store.CreateEvent(ctx, domain.EventSpec{Name: c.name, StartsAt: start, Matches: clean(c.matches)})
		if domain.ErrorCode(err) == domain.CodeConflict {
			continue
		}
		if err != nil {
			return fmt.Errorf("demo: create %s: %w", c.name, err)
		}
		before := dynamo.New(db, table, dynamo.WithClock(func() time.Time { return start.Add(-time.Hour) }))
		for pi, p := range players {
			if start.After(now) && p.ID == Player.ID {
				continue // the demo player still has to pick the upcoming event
			}
			picks := make([]domain.Pick, len(ev.Matches))
			for mi, m := range ev.Matches {
				picks[mi] = domain.Pick{MatchID: m.ID, Team: (pi + mi + ci) % len(m.Teams)}
			}
			if _, err := before.SubmitPrediction(ctx, p, ev.ID, domain.Entry{Picks: picks}); err != nil {
				return fmt.Errorf("demo: picks of %s for %s: %w", p.ID, ev.ID, err)
			}
		}
		if c.results == nil {
			continue
		}
		for mi, m := range ev.Matches {
			r := c.results[mi]
			if _, err := store.SetResult(ctx, ev.ID, m.ID, &r); err != nil {
				return fmt.Errorf("demo: result %s: %w", ev.ID, err)
			}
		}
		if _, err := store.ScoreEvent(ctx, ev.ID, false); err != nil {
			return fmt.Errorf("demo: score %s: %w", ev.ID, err)
		}
	}
	return loadLeague(ctx, store)
}

// loadLeague creates the demo player's league, joined by three of the other players,
// unless the demo player is in a league already.
func loadLeague(ctx context.Context, store *dynamo.Store) error {
	mine, err := store.UserLeagues(ctx, Player.ID)
	if err != nil || len(mine) > 0 {
		return err
	}
	l, err := store.CreateLeague(ctx, players[0], "Demo League")
	if err != nil {
		return fmt.Errorf("demo: create league: %w", err)
	}
	for _, p := range players[1:4] {
		if _, err := store.JoinLeague(ctx, p, l.InviteCode); err != nil {
			return fmt.Errorf("demo: %s joins the league: %w", p.ID, err)
		}
	}
	return nil
}

// clean drops empty team names (used above for unnamed champion teams).
func clean(ms []domain.MatchSpec) []domain.MatchSpec {
	out := make([]domain.MatchSpec, len(ms))
	for i, m := range ms {
		teams := make([]domain.Team, len(m.Teams))
		for j, t := range m.Teams {
			if t.Name != nil && *t.Name == "" {
				t.Name = nil
			}
			teams[j] = t
		}
		m.Teams = teams
		out[i] = m
	}
	return out
}
