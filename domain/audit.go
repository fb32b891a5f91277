package domain

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// AuditEntry records one admin change. The store writes it in the same transaction as the
// change, so an entry exists exactly when its change committed.
type AuditEntry struct {
	// At is when the store wrote the change (its clock), UTC.
	At time.Time
	// Actor is who made the change: the signed-in caller (ActorFrom), or SystemActor for
	// writes made without one (demo data, tools calling the store directly).
	Actor UserRef
	// Action is the admin mutation's name, one of the Action constants.
	Action string
	// EventID is the event the change is about: the audit log it belongs to
	// (AuditLogModeration for changes that are about no event).
	EventID string
	// MatchID is the match the change is about; nil when it is about the event as a whole.
	MatchID *string
	// Summary says what changed, for a person: at most MaxAuditSummaryLen characters.
	Summary string
}

// Actions of audit entries: the names of the admin mutations that write them.
const (
	ActionCreateEvent    = "createEvent"
	ActionUpdateEvent    = "updateEvent"
	ActionAddMatch       = "addMatch"
	ActionUpdateMatch    = "updateMatch"
	ActionRemoveMatch    = "removeMatch"
	ActionReorderMatches = "reorderMatches"
	ActionSetResult      = "setResult"
	ActionScoreEvent     = "scoreEvent"
	// ActionSetTiebreakerAnswer is setTiebreakerAnswer's.
	ActionSetTiebreakerAnswer = "setTiebreakerAnswer"
	// Moderation (AuditLogModeration).
	ActionRenameLeague = "renameLeague"
	ActionDeleteLeague = "deleteLeague"
	ActionRenamePlayer = "renamePlayer"
)

// AuditLogModeration is the audit log of admin changes that are about no event (league and
// player moderation): auditLog(eventId: "moderation"). Event ids start with a date, so it
// is never an event's id.
const AuditLogModeration = "moderation"

// MaxAuditSummaryLen bounds an audit entry's summary, in characters; a longer one is cut
// and ends with "…".
const MaxAuditSummaryLen = 300

// SystemActor is the actor of changes made without a signed-in caller. Its id holds a
// character user ids never have, so it never names a player.
var SystemActor = UserRef{ID: "(system)", Name: "system"}

// ValidateAuditLogID checks the id of an audit log: an event id or AuditLogModeration.
func ValidateAuditLogID(id string) error {
	if id == AuditLogModeration {
		return nil
	}
	return ValidateEventID(id)
}

// ClipSummary cuts s to MaxAuditSummaryLen characters (the last one "…" when cut).
func ClipSummary(s string) string {
	if utf8.RuneCountInString(s) <= MaxAuditSummaryLen {
		return s
	}
	r := []rune(s)
	return string(r[:MaxAuditSummaryLen-1]) + "…"
}

type actorKey struct{}

// WithActor returns a copy of ctx naming the caller whose changes it carries: the store
// attributes the audit entries of the writes made with it to actor.
func WithActor(ctx context.Context, actor UserRef) context.Context {
	return context.WithValue(ctx, actorKey{}, actor)
}

// ActorFrom returns the actor WithActor put in ctx, or SystemActor.
func ActorFrom(ctx context.Context) UserRef {
	if a, ok := ctx.Value(actorKey{}).(UserRef); ok && a.ID != "" {
		return a
	}
	return SystemActor
}

// Audit summaries: what an admin change did, for a person reading the log.

// SummarizeCreateEvent says what createEvent wrote.
func SummarizeCreateEvent(ev Event) string {
	return fmt.Sprintf("created %q, starts %s, with %d matches", ev.Name, ev.StartsAt.UTC().Format(time.RFC3339), len(ev.Matches))
}

// SummarizeEventChange says what updateEvent changed on ev.
func SummarizeEventChange(ev Event, c EventChange) string {
	var parts []string
	if c.Name != nil {
		parts = append(parts, fmt.Sprintf("name %q → %q", ev.Name, *c.Name))
	}
	if c.StartsAt != nil {
		parts = append(parts, fmt.Sprintf("startsAt %s → %s", ev.StartsAt.UTC().Format(time.RFC3339), c.StartsAt.UTC().Format(time.RFC3339)))
	}
	if c.State != nil {
		parts = append(parts, fmt.Sprintf("state %s → %s", ev.Stored, *c.State))
	}
	if s := c.Settings; s != nil {
		if s.Jokers != ev.Settings.Jokers {
			parts = append(parts, fmt.Sprintf("jokers %t → %t", ev.Settings.Jokers, s.Jokers))
		}
		if s.PerfectCardBonus != ev.Settings.PerfectCardBonus {
			parts = append(parts, fmt.Sprintf("perfectCardBonus %d → %d", ev.Settings.PerfectCardBonus, s.PerfectCardBonus))
		}
		if !samePtr(s.Tiebreaker, ev.Settings.Tiebreaker) {
			parts = append(parts, fmt.Sprintf("tiebreaker %s → %s", questionLabel(ev.Settings.Tiebreaker), questionLabel(s.Tiebreaker)))
		}
	}
	return strings.Join(parts, "; ")
}

func questionLabel(q *string) string {
	if q == nil {
		return "none"
	}
	return fmt.Sprintf("%q", *q)
}

// SummarizeTiebreakerAnswer says what setTiebreakerAnswer did to ev's answer (next: the
// answer after; nil cleared).
func SummarizeTiebreakerAnswer(ev Event, next *TiebreakerAnswer) string {
	label := func(a *TiebreakerAnswer) string {
		if a == nil {
			return "none"
		}
		return fmt.Sprint(a.Value)
	}
	return fmt.Sprintf("tie-breaker answer %s → %s", label(ev.Answer), label(next))
}

// SummarizeMatch names a match: its position, name, points and teams.
func SummarizeMatch(verb string, m Match) string {
	teams := make([]string, len(m.Teams))
	for i, t := range m.Teams {
		teams[i] = TeamLabel(t)
	}
	points := fmt.Sprintf("%d points", m.Points)
	if m.MethodPoints > 0 {
		points += fmt.Sprintf(", %d for the method", m.MethodPoints)
	}
	return fmt.Sprintf("%s match %d %q (%s): %s", verb, m.Position, m.Name, points, strings.Join(teams, " vs "))
}

// SummarizeMatchUpdate says what updateMatch changed from old to m.
func SummarizeMatchUpdate(old, m Match) string {
	var parts []string
	if m.Name != old.Name {
		parts = append(parts, fmt.Sprintf("name %q → %q", old.Name, m.Name))
	}
	if m.Points != old.Points {
		parts = append(parts, fmt.Sprintf("points %d → %d", old.Points, m.Points))
	}
	if m.MethodPoints != old.MethodPoints {
		parts = append(parts, fmt.Sprintf("methodPoints %d → %d", old.MethodPoints, m.MethodPoints))
	}
	if m.Preshow != old.Preshow {
		parts = append(parts, fmt.Sprintf("preshow %t → %t", old.Preshow, m.Preshow))
	}
	if strings.Join(m.Championships, "\x00") != strings.Join(old.Championships, "\x00") {
		parts = append(parts, fmt.Sprintf("championships [%s] → [%s]", strings.Join(old.Championships, ", "), strings.Join(m.Championships, ", ")))
	}
	if m.ID != old.ID {
		parts = append(parts, fmt.Sprintf("new teams, so a new match id (was %s): %s", old.ID, SummarizeMatch("now", m)))
	}
	if len(parts) == 0 {
		return fmt.Sprintf("match %d %q rewritten unchanged", m.Position, m.Name)
	}
	return fmt.Sprintf("match %d %q: %s", old.Position, old.Name, strings.Join(parts, "; "))
}

// SummarizeOrder says the card order reorderMatches set.
func SummarizeOrder(card []Match) string {
	names := make([]string, len(card))
	for i, m := range card {
		names[i] = fmt.Sprintf("%d %q", m.Position, m.Name)
	}
	return "card order: " + strings.Join(names, ", ")
}

// SummarizeResult says what setResult did to m's result (old: the result before; nil none).
func SummarizeResult(m Match, old *MatchResult) string {
	s := fmt.Sprintf("match %d %q: %s", m.Position, m.Name, ResultLabel(m, m.Result))
	if m.Result == nil {
		s = fmt.Sprintf("match %d %q: result cleared", m.Position, m.Name)
	}
	if old != nil {
		s += " (was " + ResultLabel(m, old) + ")"
	}
	return s
}

// ResultLabel is a result as a person reads it: "WIN, team 1 (Becky Lynch & Lyra Valkyria)",
// "WIN by PINFALL, team 0 (Orange Cassidy)", "DRAW (void)", "no result".
func ResultLabel(m Match, r *MatchResult) string {
	switch {
	case r == nil:
		return "no result"
	case r.Outcome == OutcomeWin && r.Winner != nil && *r.Winner >= 0 && *r.Winner < len(m.Teams):
		by := ""
		if r.Method != nil {
			by = " by " + string(*r.Method)
		}
		return fmt.Sprintf("WIN%s, team %d (%s)", by, *r.Winner, TeamLabel(m.Teams[*r.Winner]))
	default:
		return string(r.Outcome) + " (void)"
	}
}

// TeamLabel is a team's name, or its members joined with " & ".
func TeamLabel(t Team) string {
	if t.Name != nil && *t.Name != "" {
		return *t.Name
	}
	return strings.Join(t.Members, " & ")
}

// SummarizeScoring says what one scoreEvent call wrote (rep) and how it ended: stopped is
// "" for a call that ran to its end, else why it stopped (an error code).
func SummarizeScoring(rep ScoreReport, cardVersion int, stopped string) string {
	s := fmt.Sprintf("card version %d: wrote %d predictions and %d standings in %d transactions", cardVersion,
		rep.PredictionsScored, rep.StandingsChanged, rep.Transactions)
	switch {
	case stopped != "":
		return s + "; stopped by " + stopped + ", call again"
	case rep.Complete && !rep.Final:
		return fmt.Sprintf("%s; live pass complete, %d matches scored, event BROADCAST", s, rep.ScoredMatches)
	case rep.Complete:
		return s + "; complete, event SCORED"
	default:
		return fmt.Sprintf("%s; %d remaining, call again", s, rep.Remaining)
	}
}
