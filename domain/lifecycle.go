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
//
// The store enforces each rule twice: in Go on what it read, and as a condition of the
// write on the values the decision used, so a rule cannot be broken by a change that
// lands between the read and the write.

// CardEdit is a kind of change to an event's card.
type CardEdit int

// Card edits.
const (
	EditAddMatch     CardEdit = iota // addMatch
	EditRemoveMatch                  // removeMatch
	EditReorder                      // reorderMatches
	EditMatchDetails                 // updateMatch without new teams
	EditMatchTeams                   // updateMatch with new teams (the match gets a new id)
	EditSetResult                    // setResult with a result
	EditClearResult                  // setResult(null)
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
	}
	return nil
}

// EventChange is what an allowed updateEvent will write, and what its write must find
// still true (the preconditions it was decided on).
type EventChange struct {
	Name     *string     // set the name
	StartsAt *time.Time  // set the start
	State    *EventState // set the stored state (BROADCAST only)
	// RequireOpen: the decision relied on the event being open at now (a start or state
	// change of an UPCOMING event); the write must fail if it has locked since.
	RequireOpen bool
}

// Empty reports whether the change writes nothing.
func (c EventChange) Empty() bool { return c.Name == nil && c.StartsAt == nil && c.State == nil }

// PlanEventUpdate checks u against the lifecycle rules for ev at now and returns what to
// write. The name is cleaned; the start must stay on the date of the event id. Returns
// BAD_USER_INPUT for a change the rules refuse: any change but the name of a SCORED event,
// SCORED set by hand, reopening (UPCOMING once locked), or a later start once locked.
func PlanEventUpdate(ev Event, u EventUpdate, now time.Time) (EventChange, error) {
	var c EventChange
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
			c.RequireOpen = !locked
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

// Apply returns ev with the change made.
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
	return ev
}

// ResultsVisible reports whether match results may be shown at now: only once the event
// has locked. Results cannot be entered earlier and a locked event never reopens, so this
// holds for every stored result; readers check it anyway.
func (e Event) ResultsVisible(now time.Time) bool { return e.Locked(now) }
