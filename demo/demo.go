// Package demo loads demo data for the local server: players, two scored events with
// leaderboards and season standings, one locked event awaiting results and one upcoming
// event open for picks, all in the season (UTC year) of the time it is loaded at, and a
// league of the demo player's with three others in it. The second scored event and the
// upcoming one play every game rule: method-of-victory picks, jokers, a perfect-card bonus
// and a tie-breaker question (answered before the scored one's final pass).
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
	name     string
	settings domain.EventSettings
	matches  []domain.MatchSpec
	results  []domain.MatchResult // nil: no results entered
	answer   *int                 // the tie-breaker's answer, set before the final pass
}

func win(i int) domain.MatchResult { return domain.MatchResult{Outcome: domain.OutcomeWin, Winner: &i} }

func winBy(i int, m domain.VictoryMethod) domain.MatchResult {
	r := win(i)
	r.Method = &m
	return r
}

func ptr[T any](v T) *T { return &v }

// allRules is the settings of the demo events that play every game rule.
var allRules = domain.EventSettings{Jokers: true, PerfectCardBonus: 25, Tiebreaker: ptr("How many minutes will the main event last?")}

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
		name:     "AEW All In",
		settings: allRules,
		matches: []domain.MatchSpec{
			{Name: "Casino Gauntlet", Points: 10, Preshow: true, Teams: []domain.Team{team("Christian Cage"), team("Kyle O'Reilly"), team("Powerhouse Hobbs"), team("Orange Cassidy")}},
			{Name: "Women's World Championship", Points: 15, MethodPoints: 5, Championships: []string{"AEW Women's World Championship"}, Teams: []domain.Team{{Members: []string{"Mariah May"}, Champion: true}, team("Toni Storm")}},
			{Name: "Trios Match", Points: 10, Teams: []domain.Team{named("The Elite", false, "Kazuchika Okada", "Matthew Jackson", "Nicholas Jackson"), named("", false, "Kenny Omega", "Will Ospreay", "Swerve Strickland")}},
			{Name: "Title vs. Career", Points: 25, MethodPoints: 10, Championships: []string{"AEW World Championship"}, Teams: []domain.Team{{Members: []string{"Swerve Strickland"}, Champion: true}, team("Bryan Danielson")}},
		},
		results: []domain.MatchResult{win(0), winBy(1, domain.MethodPinfall), {Outcome: domain.OutcomeNoContest}, winBy(1, domain.MethodSubmission)},
		answer:  ptr(26),
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
		name:     "AEW Worlds End",
		settings: allRules,
		matches: []domain.MatchSpec{
			{Name: "Continental Classic Final", Points: 15, MethodPoints: 5, Championships: []string{"AEW Continental Championship"}, Teams: []domain.Team{{Members: []string{"Kazuchika Okada"}, Champion: true}, team("Kyle Fletcher")}},
			{Name: "Tag Team Match", Points: 10, Teams: []domain.Team{named("FTR", false, "Dax Harwood", "Cash Wheeler"), named("The Hurt Syndicate", true, "Bobby Lashley", "Shelton Benjamin")}},
			{Name: "Four-Way Match", Points: 20, Championships: []string{"AEW Women's World Championship"}, Teams: []domain.Team{{Members: []string{"Toni Storm"}, Champion: true}, team("Mercedes Moné"), team("Athena"), team("Jamie Hayter")}},
			{Name: "Main Event", Points: 25, MethodPoints: 10, Championships: []string{"AEW World Championship"}, Teams: []domain.Team{{Members: []string{"Hangman Page"}, Champion: true}, team("Jon Moxley")}},
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
		ev, err := store.CreateEvent(ctx, domain.EventSpec{Name: c.name, StartsAt: start, Matches: clean(c.matches), Settings: c.settings})
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
			if _, err := before.SubmitPrediction(ctx, p, ev.ID, entry(ev, pi, ci)); err != nil {
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
		if c.answer != nil {
			if _, err := store.SetTiebreakerAnswer(ctx, ev.ID, c.answer); err != nil {
				return fmt.Errorf("demo: tie-breaker answer %s: %w", ev.ID, err)
			}
		}
		if _, err := store.ScoreEvent(ctx, ev.ID, false); err != nil {
			return fmt.Errorf("demo: score %s: %w", ev.ID, err)
		}
	}
	return loadLeague(ctx, store)
}

// entry is the demo prediction of player pi (of players) for event ev, the card ci of
// cards: a pick of every match, varied by player, with a method on the matches that take
// one, a joker and a tie-breaker guess where the event has them.
func entry(ev domain.Event, pi, ci int) domain.Entry {
	e := domain.Entry{Picks: make([]domain.Pick, len(ev.Matches))}
	methods := domain.VictoryMethods()
	for mi, m := range ev.Matches {
		e.Picks[mi] = domain.Pick{MatchID: m.ID, Team: (pi + mi + ci) % len(m.Teams)}
		if m.MethodPoints > 0 {
			e.Picks[mi].Method = &methods[(pi+mi)%2]
		}
	}
	if ev.Settings.Jokers {
		e.Joker = &ev.Matches[pi%len(ev.Matches)].ID
	}
	if ev.Settings.Tiebreaker != nil {
		e.Tiebreaker = ptr(18 + 4*pi)
	}
	return e
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
