package domain

import "time"

// Card lifecycle. An event moves UPCOMING → BROADCAST → SCORED and never back: once it has
// locked (stored BROADCAST, or now ≥ startsAt) it never reopens, so results — which are
// accepted only once an event is locked — are never visible while picks are open. What
// may change in each state:
//
//	change                              UPCOMING   locked (BROADCAST)   SCORED
//	event name                          yes        yes                  yes
//	start (within the id's date)        yes        earlier only         no
//	state → BROADCAST                   yes        yes (no-op)          no
//	state → UPCOMING                    no-op      no: never reopens    no
//	add / remove / reorder matches      yes        yes                  no
//	match details (name, points, …)     yes        yes                  yes (then re-score)
//	match teams (new match id)          yes        yes                  no
//	set or correct a result             no         yes                  yes (then re-score)
//	clear a result                      no         yes                  no
//	game settings (jokers, perfect-     yes        no                   no
//	  card bonus, tie-breaker question)
//	set, correct or clear the           no         yes                  yes (then re-score)
//	  tie-breaker answer
//
// Every change to the card is a card edit: it moves the card version, so a submit checked
// against the card before it fails (CONFLICT) and the next scoring pass rewrites every
// prediction. The card edits are the rows above from "add / remove / reorder matches" on,
// the game settings and the tie-breaker answer included (they decide what a submit may
// hold and what a prediction scores); the name, start and state are not.
//
// The store enforces each rule twice: in Go on what it read, and as a condition of the
// write on the values the decision used, so a rule cannot be broken by a change that
// lands between the read and the write.

// CardEdit is a kind of change to an event's card.
type CardEdit int

// Card edits.
const (
	EditAddMatch         CardEdit = iota // addMatch
	EditRemoveMatch                      // removeMatch
	EditReorder                          // reorderMatches
	EditMatchDetails                     // updateMatch without new teams
	EditMatchTeams                       // updateMatch with new teams (the match gets a new id)
	EditSetResult                        // setResult with a result
	EditClearResult                      // setResult(null)
	EditSettings                         // updateEvent changing jokers, perfectCardBonus or tiebreaker
	EditTiebreakerAnswer                 // setTiebreakerAnswer, with an answer or null
)

// CheckCardEdit returns BAD_USER_INPUT if edit is not allowed on ev at now.
func CheckCardEdit(ev Event, edit CardEdit, now time.Time) error {
	state := ev.State(now)
	switch edit {
	case EditAddMatch, EditRemoveMatch, EditReorder:
		if state == StateScored {
			return BadInput("event %q is scored: its card cannot change", ev.ID)
		}
	case EditMatchTeams:
		if state == StateScored {
			return BadInput("event %q is scored: the teams of its matches cannot change", ev.ID)
		}
	case EditSetResult, EditClearResult:
		if state == StateUpcoming {
			return BadInput("event %q is still open for picks: lock it (updateEvent state BROADCAST) before entering results", ev.ID)
		}
		if edit == EditClearResult && state == StateScored {
			return BadInput("event %q is scored: a result can be corrected but not cleared", ev.ID)
		}
	case EditSettings:
		if state != StateUpcoming {
			return BadInput("event %q has locked: its jokers, perfectCardBonus and tiebreaker change only while it is UPCOMING", ev.ID)
		}
	case EditTiebreakerAnswer:
		if state == StateUpcoming {
			return BadInput("event %q is still open for picks: lock it (updateEvent state BROADCAST) before setting the tie-breaker answer", ev.ID)
		}
	}
	return nil
}

// EventChange is what an allowed updateEvent will write, and what its write must find
// still true (the preconditions it was decided on).
type EventChange struct {
	Name     *string     // set the name
	StartsAt *time.Time  // set the start
	State    *EventState // set the stored state (BROADCAST only)
	// Settings: set the game settings (all of them, cleaned); a card edit (MovesCard).
	Settings *EventSettings
	// RequireOpen: the decision relied on the event being open at now (a start or state
	// change of an UPCOMING event, a settings change); the write must fail if it has
	// locked since.
	RequireOpen bool
}

// Empty reports whether the change writes nothing.
func (c EventChange) Empty() bool {
	return c.Name == nil && c.StartsAt == nil && c.State == nil && c.Settings == nil
}

// MovesCard reports whether the change is a card edit (a settings change): its write moves
// the card version by one, as every card edit does, in the same transaction.
func (c EventChange) MovesCard() bool { return c.Settings != nil }

// PlanEventUpdate checks u against the lifecycle rules for ev at now and returns what to
// write. The name is cleaned; the start must stay on the date of the event id; the game
// settings are cleaned (CleanSettings). Returns BAD_USER_INPUT, for the whole update, for a
// change the rules refuse: any change but the name of a SCORED event, SCORED set by hand,
// reopening (UPCOMING once locked), a later start once locked, or a change of the game
// settings once locked (settings given as they already are change nothing and pass).
func PlanEventUpdate(ev Event, u EventUpdate, now time.Time) (EventChange, error) {
	var c EventChange
	if err := planSettings(ev, u, now, &c); err != nil {
		return EventChange{}, err
	}
	if u.Name != nil {
		name, err := CleanText("event name", *u.Name, MaxTextLen)
		if err != nil {
			return c, err
		}
		if name != ev.Name {
			c.Name = &name
		}
	}
	if u.State != nil && *u.State != StateUpcoming && *u.State != StateBroadcast {
		return c, BadInput("state can be set to UPCOMING or BROADCAST only; scoreEvent sets SCORED")
	}
	if (u.StartsAt != nil || u.State != nil) && ev.Stored == StateScored {
		return c, BadInput("event %q is scored: only its name can change", ev.ID)
	}
	locked := ev.Locked(now)
	if u.StartsAt != nil {
		start, err := ValidateStart(*u.StartsAt)
		if err != nil {
			return c, err
		}
		if err := ValidateEventIDForStart(ev.ID, start); err != nil {
			return c, BadInput("startsAt must stay on %s, the date in the event id", ev.ID[:10])
		}
		if locked && start.After(ev.StartsAt) {
			return c, BadInput("event %q has locked: its start can move earlier but not later (a locked event never reopens)", ev.ID)
		}
		if !start.Equal(ev.StartsAt) {
			c.StartsAt = &start
			c.RequireOpen = c.RequireOpen || !locked
		}
	}
	if u.State != nil {
		switch {
		case *u.State == StateUpcoming && locked:
			return c, BadInput("event %q has locked and never reopens: picks may have been compared with results", ev.ID)
		case *u.State == StateBroadcast && ev.Stored != StateBroadcast:
			st := StateBroadcast
			c.State = &st
		}
	}
	return c, nil
}

// planSettings sets c.Settings (and c.RequireOpen) when u changes ev's game settings.
func planSettings(ev Event, u EventUpdate, now time.Time, c *EventChange) error {
	if u.Tiebreaker != nil && u.ClearTiebreaker {
		return BadInput("tiebreaker: give a question or clear it, not both")
	}
	next := ev.Settings
	if u.Jokers != nil {
		next.Jokers = *u.Jokers
	}
	if u.PerfectCardBonus != nil {
		next.PerfectCardBonus = *u.PerfectCardBonus
	}
	if u.Tiebreaker != nil {
		next.Tiebreaker = u.Tiebreaker
	}
	if u.ClearTiebreaker {
		next.Tiebreaker = nil
	}
	next, err := CleanSettings(next)
	if err != nil {
		return err
	}
	if next.Equal(ev.Settings) {
		return nil
	}
	if err := CheckCardEdit(ev, EditSettings, now); err != nil {
		return err
	}
	c.Settings, c.RequireOpen = &next, true
	return nil
}

// Apply returns ev with the change made (a card edit moves its card version by one).
func (c EventChange) Apply(ev Event) Event {
	if c.Name != nil {
		ev.Name = *c.Name
	}
	if c.StartsAt != nil {
		ev.StartsAt = *c.StartsAt
	}
	if c.State != nil {
		ev.Stored = *c.State
	}
	if c.Settings != nil {
		ev.Settings = *c.Settings
	}
	if c.MovesCard() {
		ev.CardVersion++
	}
	return ev
}

// ResultsVisible reports whether match results may be shown at now: only once the event
// has locked. Results cannot be entered earlier and a locked event never reopens, so this
// holds for every stored result; readers check it anyway.
func (e Event) ResultsVisible(now time.Time) bool { return e.Locked(now) }
