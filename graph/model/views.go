package model

import (
	"time"

	"github.com/pickem/api/domain"
)

// Event is the GraphQL Event: a domain event as one response shows it. The resolvers build
// it; gqlgen binds the schema's fields to its plain fields, its methods and the embedded
// domain.Event, so that no field of a list row needs a resolver.
type Event struct {
	domain.Event
	// Season is domain.Event's Season(), a plain field so that a list row marshals it
	// without a field resolution of its own (it shadows the embedded method).
	Season int
	// state and locked are the event's state at the instant the resolver read it (one
	// instant for both).
	state  domain.EventState
	locked bool
	// Ref marks the event of a prediction's row (EventOf): it carries the id, name and
	// start the row copies, nothing else.
	Ref bool
	// Leaderboard is the leaderboard's first page when the resolver read it in the same
	// request as the event; nil otherwise.
	Leaderboard *FirstPage[domain.Prediction]
	// liveNamespace is the namespace of the live channels ("": push is off).
	liveNamespace string
}

// NewEvent is e as seen at now, its live messages published in the channel namespace
// liveNamespace ("": push is off).
func NewEvent(e domain.Event, now time.Time, liveNamespace string) Event {
	state := e.State(now)
	return Event{Event: e, Season: e.Season(), state: state, locked: state != domain.StateUpcoming, liveNamespace: liveNamespace}
}

// EventOf is the event of a prediction as its row carries it.
func EventOf(p domain.Prediction) Event {
	e := domain.Event{ID: p.Event.ID, Name: p.Event.Name, StartsAt: p.Event.StartsAt}
	return Event{Event: e, Season: e.Season(), Ref: true}
}

// NotOnRef is the refusal of an event field that a prediction's row does not carry.
func NotOnRef(field string) error {
	return domain.BadInput("%s is not part of a prediction's event (it carries id, name, startsAt and season): query event(id)", field)
}

// State is the event's state; BAD_USER_INPUT on a prediction's event.
func (e *Event) State() (domain.EventState, error) {
	if e.Ref {
		return "", NotOnRef("state")
	}
	return e.state, nil
}

// Locked reports whether picks are closed; BAD_USER_INPUT on a prediction's event.
func (e *Event) Locked() (bool, error) {
	if e.Ref {
		return false, NotOnRef("locked")
	}
	return e.locked, nil
}

// ScoredMatches is domain.Event's ScoredMatches; BAD_USER_INPUT on a prediction's event.
func (e *Event) ScoredMatches() (int, error) {
	if e.Ref {
		return 0, NotOnRef("scoredMatches")
	}
	return e.Event.ScoredMatches, nil
}

// Jokers reports whether players may mark a joker; BAD_USER_INPUT on a prediction's event.
func (e *Event) Jokers() (bool, error) {
	if e.Ref {
		return false, NotOnRef("jokers")
	}
	return e.Settings.Jokers, nil
}

// PerfectCardBonus is the event's perfect-card bonus; BAD_USER_INPUT on a prediction's
// event.
func (e *Event) PerfectCardBonus() (int, error) {
	if e.Ref {
		return 0, NotOnRef("perfectCardBonus")
	}
	return e.Settings.PerfectCardBonus, nil
}

// Tiebreaker is the event's question with its answer once it counts (nil: no question);
// BAD_USER_INPUT on a prediction's event.
func (e *Event) Tiebreaker() (*Tiebreaker, error) {
	if e.Ref {
		return nil, NotOnRef("tiebreaker")
	}
	if e.Settings.Tiebreaker == nil {
		return nil, nil
	}
	return &Tiebreaker{Question: *e.Settings.Tiebreaker, Answer: e.CountedAnswer()}, nil
}

// LiveChannel is the channel of the event's live messages (domain.LiveChannel); nil when
// push is off. BAD_USER_INPUT on a prediction's event.
func (e *Event) LiveChannel() (*string, error) {
	if e.Ref {
		return nil, NotOnRef("liveChannel")
	}
	if e.liveNamespace == "" {
		return nil, nil
	}
	ch, err := domain.LiveChannel(e.liveNamespace, e.ID)
	if err != nil {
		return nil, err
	}
	return &ch, nil
}

// LiveVersion is domain.Event's LiveVersion; BAD_USER_INPUT on a prediction's event.
func (e *Event) LiveVersion() (int, error) {
	if e.Ref {
		return 0, NotOnRef("liveVersion")
	}
	return e.Event.LiveVersion, nil
}

// Live reports whether the event is BROADCAST (results and live scoring passes coming).
func (e *Event) Live() bool { return !e.Ref && e.state == domain.StateBroadcast }

// User is the GraphQL User: a domain user with the first page of predictions the resolver
// read in the same request, if any.
type User struct {
	domain.User
	Predictions *FirstPage[domain.Prediction]
	// Row marks a player as a row carries them (UserOf): id and name, nothing else.
	Row bool
}

// UserOf is a player as a row (a prediction, a standing, a league) carries them.
func UserOf(u domain.UserRef) User {
	return User{User: domain.User{ID: u.ID, Name: u.Name}, Row: true}
}

// NotOnRow is the refusal of a player field that a row does not carry.
func NotOnRow(field string) error {
	return domain.BadInput("%s is not part of a player on a row (it carries id and name): query user(id)", field)
}

// Standings are the player's season standings, newest first; BAD_USER_INPUT on a row.
func (u *User) Standings() ([]Standing, error) {
	if u.Row {
		return nil, NotOnRow("standings")
	}
	out := make([]Standing, len(u.User.Standings))
	for i, s := range u.User.Standings {
		out[i] = Standing{s}
	}
	return out, nil
}

// Prediction is the GraphQL Prediction: a domain prediction whose event and player are the
// Event and User entities, as much of them as the prediction's row carries.
type Prediction struct {
	domain.Prediction
	// OnLeaderboard marks a row of Event.leaderboard, the one list that has places.
	OnLeaderboard bool
}

// Place is the row's place on the leaderboard; BAD_USER_INPUT on a prediction read
// anywhere else.
func (p *Prediction) Place() (*int, error) {
	if !p.OnLeaderboard {
		return nil, domain.BadInput("place is only on Event.leaderboard rows: query event(id) { leaderboard { … } }")
	}
	return p.Prediction.Place, nil
}

// Event is the prediction's event (EventOf).
func (p *Prediction) Event() Event { return EventOf(p.Prediction) }

// User is the prediction's player (UserOf).
func (p *Prediction) User() User { return UserOf(p.Prediction.User) }

// Standing is the GraphQL Standing: a domain standing whose player is the User entity.
type Standing struct {
	domain.Standing
}

// User is the standing's player (UserOf).
func (s *Standing) User() User { return UserOf(s.Standing.User) }

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
	Owner       User
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
	out := &League{ID: l.ID, Name: l.Name, Owner: UserOf(l.Owner), MemberCount: l.MemberCount, View: v, Members: l.Members}
	if v.ShowsMembersOnly() && l.InviteCode != "" {
		code := l.InviteCode
		out.InviteCode = &code
	}
	return out
}
