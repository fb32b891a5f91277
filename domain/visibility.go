package domain

import "time"

// Who may see a player's picks. A player always sees their own prediction. Anyone else
// sees it once its event has locked — picks can no longer change, and a locked event never
// reopens (lifecycle.go) — whether the lock came from the start time or from the stored
// state (BROADCAST, SCORED); not only once it is scored. A scored prediction is always of
// a locked event.

// PicksVisible reports whether ev's predictions may be shown to players other than their
// owners at now: once ev has locked.
func (e Event) PicksVisible(now time.Time) bool { return e.Locked(now) }

// PredictionVisible reports whether viewer ("" when signed out) may see owner's
// prediction for ev at now.
func PredictionVisible(ev Event, owner, viewer string, now time.Time) bool {
	return (viewer != "" && viewer == owner) || ev.PicksVisible(now)
}

// PredictionVisibleWithoutEvent reports whether a prediction of eventID is surely visible
// to its viewer at now without reading the event: it is the viewer's own, it is scored (a
// scored prediction is of a locked event), or the event is LockedByDate. false means
// "unknown": the event decides (PredictionVisible).
func PredictionVisibleWithoutEvent(eventID string, own, scored bool, now time.Time) bool {
	return own || scored || LockedByDate(eventID, now)
}

// LockedByDate reports whether an event is surely locked at now from its id alone: an id
// starts with the UTC date of the event's start (ValidateEventIDForStart) and the start
// never leaves that date, so an event dated before now's UTC date has started. false
// means "unknown": the event's row decides.
func LockedByDate(eventID string, now time.Time) bool {
	return len(eventID) >= 10 && eventID[:10] < EventDate(now)
}

// PredictionHidden is the error for a viewer who may not see another player's prediction
// yet (FORBIDDEN).
func PredictionHidden() error {
	return Errorf(CodeForbidden, "another player's prediction is visible once its event has locked (it has started or is BROADCAST)")
}
