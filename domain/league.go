package domain

import (
	"crypto/rand"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Limits of leagues.
const (
	// MaxLeaguesPerPlayer is how many leagues one player may be a member of (owned ones
	// included). Creating or joining one more is CONFLICT.
	MaxLeaguesPerPlayer = 20
	// MaxLeagueMembers is how many members a league may have. Joining a full league is
	// CONFLICT.
	MaxLeagueMembers = 1000
	// MaxLeagueNameLen is the longest league name (characters).
	MaxLeagueNameLen = 60
)

// League is a private group of players who compare their season standings.
type League struct {
	ID          string
	Name        string
	Owner       UserRef
	MemberCount int
	// InviteCode is the code others join with. Only members and admins may see it: the
	// resolvers clear it for anybody else.
	InviteCode string
	// Members, in no particular order; nil when the league was read without them.
	Members []LeagueMember
}

// LeagueMember is one member of a league.
type LeagueMember struct {
	User     UserRef // the name as of joining, kept current by renames
	JoinedAt time.Time
}

// NextOwner is who takes a league over when its owner, leaving, leaves members behind:
// the member who joined first, other than leaving (ties: the lowest id). false when
// nobody else is a member.
func NextOwner(members []LeagueMember, leaving string) (LeagueMember, bool) {
	var next LeagueMember
	found := false
	for _, m := range members {
		if m.User.ID == leaving {
			continue
		}
		if !found || m.JoinedAt.Before(next.JoinedAt) || (m.JoinedAt.Equal(next.JoinedAt) && m.User.ID < next.User.ID) {
			next, found = m, true
		}
	}
	return next, found
}

// LeagueView says how the caller may see a league.
type LeagueView int

// League views, from the least to the most the caller may see.
const (
	// LeagueAsPreview: not a member; name, owner and member count only (leagueByInvite).
	LeagueAsPreview LeagueView = iota
	// LeagueAsMember: a member; everything.
	LeagueAsMember
	// LeagueAsAdmin: an admin who is not a member; everything (moderation).
	LeagueAsAdmin
)

// ViewLeague is how a caller may see a league (league(id)): everything as a member (member)
// or as an admin who is not one (admin); FORBIDDEN for anybody else.
func ViewLeague(member, admin bool) (LeagueView, error) {
	switch {
	case member:
		return LeagueAsMember, nil
	case admin:
		return LeagueAsAdmin, nil
	}
	return LeagueAsPreview, NotALeagueMember()
}

// ViewPlayerLeagues is how a caller may see a player's leagues (User.leagues): as a member
// when they are the player's own (own), as an admin otherwise; FORBIDDEN for anybody else.
func ViewPlayerLeagues(own, admin bool) (LeagueView, error) {
	switch {
	case own:
		return LeagueAsMember, nil
	case admin:
		return LeagueAsAdmin, nil
	}
	return LeagueAsPreview, Errorf(CodeForbidden, "a player's leagues are visible to that player only")
}

// ShowsMembersOnly reports whether v shows what only members see: the invite code and the
// league's standings.
func (v LeagueView) ShowsMembersOnly() bool { return v != LeagueAsPreview }

// NotALeagueMember is the error for a caller who is neither a member of a league nor an
// admin, asking for what only members see (FORBIDDEN).
func NotALeagueMember() error {
	return Errorf(CodeForbidden, "a league is visible to its members only: join it with its invite code")
}

// Invite codes: InviteCodeLen characters of inviteAlphabet, 5 random bits each from
// crypto/rand (65 bits: guessing one among a billion live codes takes about 2^35 tries).
// The alphabet is digits and upper-case letters without 0, 1, I and O, which read like
// each other; input is taken in either case.
const (
	inviteAlphabet = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ"
	// InviteCodeLen is the length of an invite code.
	InviteCodeLen = 13
)

// NewInviteCode returns a fresh random invite code.
func NewInviteCode() string {
	var b [InviteCodeLen]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand panics rather than return an error)
	for i := range b {
		b[i] = inviteAlphabet[b[i]&31] // 32 divides 256: every character equally likely
	}
	return string(b[:])
}

// CleanInviteCode returns code in its canonical (upper-case) form, or BAD_USER_INPUT
// unless it is InviteCodeLen characters of the invite alphabet.
func CleanInviteCode(code string) (string, error) {
	c := strings.ToUpper(strings.TrimSpace(code))
	if len(c) != InviteCodeLen || strings.Trim(c, inviteAlphabet) != "" {
		return "", BadInput("invalid invite code %q: want %d letters and digits", truncate(code, 20), InviteCodeLen)
	}
	return c, nil
}

// NewLeagueID returns a fresh league id (a random UUID).
func NewLeagueID() string { return uuid.NewString() }

// ValidateLeagueID returns BAD_USER_INPUT unless id is a canonical lowercase UUID.
func ValidateLeagueID(id string) error {
	u, err := uuid.Parse(id)
	if err != nil || u.String() != id {
		return BadInput("invalid league id %q", truncate(id, 40))
	}
	return nil
}

// CleanLeagueName trims and checks a league name (see CleanText).
func CleanLeagueName(name string) (string, error) {
	return CleanText("league name", name, MaxLeagueNameLen)
}
