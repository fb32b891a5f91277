package model

import (
	"time"

	"github.com/pickem/api/domain"
)

// Event is the GraphQL Event: a domain event as one response shows it. The resolvers build
// it; gqlgen binds the schema's fields to its plain fields and to the embedded
// domain.Event, so that no field of a list row needs a resolver.
type Event struct {
	domain.Event
	// Season is domain.Event's Season(), a plain field so that a list row marshals it
	// without a field resolution of its own (it shadows the embedded method).
	Season int
	// State and Locked are the event's state at the instant the resolver read it (one
	// instant for both).
	State  domain.EventState
	Locked bool
	// Leaderboard is the leaderboard's first page when the resolver read it in the same
	// request as the event; nil otherwise.
	Leaderboard *FirstPage[domain.Prediction]
}

// NewEvent is e as seen at now.
func NewEvent(e domain.Event, now time.Time) Event {
	state := e.State(now)
	return Event{Event: e, Season: e.Season(), State: state, Locked: state != domain.StateUpcoming}
}

// User is the GraphQL User: a domain user with the first page of predictions the resolver
// read in the same request, if any.
type User struct {
	domain.User
	Predictions *FirstPage[domain.Prediction]
}

// FirstPage is the first page of a nested list, read together with its parent so that the
// list's field resolver needs no second read. The field resolver uses it when the field's
// arguments ask for the same page: no `after`, and `first` equal to First — or any `first`
// when Whole is set.
type FirstPage[T any] struct {
	Page domain.Page[T]
	// First is the page size the page was read for.
	First int
	// Whole reports that Page is the whole list whatever the page size asked (a player
	// without a profile item, whose list is empty): no other page exists, so a cursor is
	// never valid for it.
	Whole bool
	// Lean reports that the rows were read without their heavy parts (a leaderboard's
	// picks): it serves only a selection that does not ask for them.
	Lean bool
}

// Serves reports whether p answers a request for the first page of first rows.
func (p *FirstPage[T]) Serves(first int) bool {
	return p != nil && (p.Whole || p.First == first)
}

// League is the GraphQL League: a league as one caller may see it. The resolvers build it
// with NewLeague, so that inviteCode is null for a caller who is not a member or an admin.
type League struct {
	ID          string
	Name        string
	Owner       domain.UserRef
	MemberCount int
	InviteCode  *string
	// View is how the caller may see the league (standings need a member or an admin).
	View domain.LeagueView
	// ListRow marks a league that is a row of a list (User.leagues): its standings are
	// refused (they would be a read per row).
	ListRow bool
	// Members are the league's members when the resolver read them with the league (nil:
	// standings read them).
	Members []domain.LeagueMember
}

// NewLeague is l as a caller with view v sees it.
func NewLeague(l domain.League, v domain.LeagueView) *League {
	out := &League{ID: l.ID, Name: l.Name, Owner: l.Owner, MemberCount: l.MemberCount, View: v, Members: l.Members}
	if v.ShowsMembersOnly() && l.InviteCode != "" {
		code := l.InviteCode
		out.InviteCode = &code
	}
	return out
}
