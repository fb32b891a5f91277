package domain

import (
	"math"
	"strings"
	"testing"
	"time"
)

// TestInviteCodes: codes carry at least 60 random bits, use the documented alphabet only,
// and read back in either case.
func TestInviteCodes(t *testing.T) {
	if bits := float64(InviteCodeLen) * math.Log2(float64(len(inviteAlphabet))); bits < 60 {
		t.Fatalf("invite codes carry %.1f bits, want at least 60", bits)
	}
	if len(inviteAlphabet) != 32 || strings.ContainsAny(inviteAlphabet, "01IO") {
		t.Fatalf("alphabet %q", inviteAlphabet)
	}
	seen := map[string]bool{}
	counts := map[rune]int{}
	const n = 20000
	for range n {
		c := NewInviteCode()
		if seen[c] {
			t.Fatalf("code %s drawn twice", c)
		}
		seen[c] = true
		got, err := CleanInviteCode(" " + strings.ToLower(c) + " ")
		if err != nil || got != c {
			t.Fatalf("CleanInviteCode(%q) = %q, %v", c, got, err)
		}
		for _, r := range c {
			counts[r]++
		}
	}
	// Every character of the alphabet shows up about equally often (each 1/32 of the
	// 260,000 characters: 8,125; a bias of 10% would be far outside chance).
	for _, r := range inviteAlphabet {
		if c := counts[r]; c < 7300 || c > 8900 {
			t.Fatalf("character %c drawn %d times in %d codes", r, c, n)
		}
	}
	for _, bad := range []string{"", "ABC", "ABCDEFGHJKLM0", "ABCDEFGHJKLMNP", "ABCDEFGHJKL#M", "ABCDEFGHJKLMÑ"} {
		if _, err := CleanInviteCode(bad); ErrorCode(err) != CodeBadUserInput {
			t.Fatalf("CleanInviteCode(%q): %v", bad, err)
		}
	}
}

func TestLeagueIDs(t *testing.T) {
	if err := ValidateLeagueID(NewLeagueID()); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"", "x", "LEAGUE#1", strings.ToUpper(NewLeagueID())} {
		if ErrorCode(ValidateLeagueID(bad)) != CodeBadUserInput {
			t.Fatalf("ValidateLeagueID(%q) passed", bad)
		}
	}
}

func TestNextOwner(t *testing.T) {
	t0 := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	m := func(id string, minutes int) LeagueMember {
		return LeagueMember{User: UserRef{ID: id, Name: "n-" + id}, JoinedAt: t0.Add(time.Duration(minutes) * time.Minute)}
	}
	tests := []struct {
		name    string
		members []LeagueMember
		want    string // "" for none
	}{
		{"OnlyTheOwner", []LeagueMember{m("owner", 0)}, ""},
		{"Nobody", nil, ""},
		{"FirstToJoin", []LeagueMember{m("owner", 0), m("late", 9), m("early", 3), m("mid", 5)}, "early"},
		{"TieGoesToTheLowestID", []LeagueMember{m("owner", 0), m("zed", 3), m("amy", 3), m("kim", 3)}, "amy"},
		{"OwnerJoinedLaterStillSkipped", []LeagueMember{m("a", 4), m("owner", -5)}, "a"},
	}
	for _, tt := range tests {
		next, ok := NextOwner(tt.members, "owner")
		if got := map[bool]string{true: next.User.ID}[ok]; got != tt.want {
			t.Errorf("%s: NextOwner = %q (%v), want %q", tt.name, next.User.ID, ok, tt.want)
		}
	}
}

func TestLeagueViews(t *testing.T) {
	tests := []struct {
		name              string
		view              func(a, b bool) (LeagueView, error)
		first, admin      bool
		want              LeagueView
		wantMembersOnly   bool
		wantForbiddenCode bool
	}{
		{"MemberSeesAll", ViewLeague, true, false, LeagueAsMember, true, false},
		{"MemberWhoIsAdminIsAMember", ViewLeague, true, true, LeagueAsMember, true, false},
		{"AdminSeesAll", ViewLeague, false, true, LeagueAsAdmin, true, false},
		{"OtherIsRefused", ViewLeague, false, false, LeagueAsPreview, false, true},
		{"OwnLeagues", ViewPlayerLeagues, true, false, LeagueAsMember, true, false},
		{"AdminReadsAnyPlayersLeagues", ViewPlayerLeagues, false, true, LeagueAsAdmin, true, false},
		{"OtherPlayersLeaguesAreRefused", ViewPlayerLeagues, false, false, LeagueAsPreview, false, true},
	}
	for _, tt := range tests {
		v, err := tt.view(tt.first, tt.admin)
		if v != tt.want || v.ShowsMembersOnly() != tt.wantMembersOnly || (ErrorCode(err) == CodeForbidden) != tt.wantForbiddenCode {
			t.Errorf("%s: view %v (members only %v), error %v", tt.name, v, v.ShowsMembersOnly(), err)
		}
	}
	if LeagueAsPreview.ShowsMembersOnly() {
		t.Error("a preview shows the invite code or standings")
	}
}
