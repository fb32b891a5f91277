package domain

import "time"

// The lock: picks for an event are open while it is stored UPCOMING and its start is after
// now (Event.Locked is the opposite). The store writes a prediction only under a condition
// that holds exactly when the event, as the table holds it, is open at the write's clock.

// CheckSubmit returns LOCKED unless a player may submit picks for ev at now: ev is open and
// the player's prediction is not scored (scored says whether it has points).
func CheckSubmit(ev Event, scored bool, now time.Time) error {
	if ev.Locked(now) {
		return Errorf(CodeLocked, "event %q is locked: picks closed at %s", ev.ID, ev.StartsAt.UTC().Format(time.RFC3339))
	}
	if scored {
		return Errorf(CodeLocked, "your prediction for event %q is already scored", ev.ID)
	}
	return nil
}

// RefusedSubmit decides a submit the table refused because the event it read is no longer
// the table's: read is the event as the submit read it, current as the table holds it.
// LOCKED once current has locked at now; CONFLICT when its card changed since read (the
// picks were made against another card); nil when only its name or start moved, and the
// submit may be written again against current.
func RefusedSubmit(read, current Event, now time.Time) error {
	if current.Locked(now) {
		return Errorf(CodeLocked, "event %q is locked: picks are closed", read.ID)
	}
	if current.CardVersion != read.CardVersion {
		return Errorf(CodeConflict, "the card of event %q changed while you picked; reload it", read.ID)
	}
	return nil
}
