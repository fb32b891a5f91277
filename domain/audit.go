package domain

import (
	"context"
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
