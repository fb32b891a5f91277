package domain

import (
	"testing"
	"time"
)

func ptr[T any](v T) *T { return &v }

func TestEventState(t *testing.T) {
	start := time.Date(2026, 3, 1, 23, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		stored EventState
		now    time.Time
		want   EventState
	}{
		{"UpcomingBeforeStart", StateUpcoming, start.Add(-time.Second), StateUpcoming},
		{"BroadcastAtStart", StateUpcoming, start, StateBroadcast},
		{"BroadcastAfterStart", StateUpcoming, start.Add(time.Hour), StateBroadcast},
		{"StoredBroadcastBeforeStart", StateBroadcast, start.Add(-time.Hour), StateBroadcast},
		{"ScoredStaysScored", StateScored, start.Add(-time.Hour), StateScored},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := Event{StartsAt: start, Stored: tt.stored}
			if got := e.State(tt.now); got != tt.want {
				t.Fatalf("State = %s, want %s", got, tt.want)
			}
			if got, want := e.Locked(tt.now), tt.want != StateUpcoming; got != want {
				t.Fatalf("Locked = %v, want %v", got, want)
			}
		})
	}
}

func TestValidateEventID(t *testing.T) {
	tests := []struct {
		id string
		ok bool
	}{
		{"2024-03-03-aew-revolution", true},
		{"2024-03-03-a", true},
		{"2024-02-30-bad-date", false},
		{"2024-03-03-UPPER", false},
		{"2024-03-03-has#hash", false},
		{"2024-03-03-", false},
		{"24-03-03-short", false},
		{"", false},
		{"2024-03-03-" + string(make([]byte, 100)), false},
	}
	for _, tt := range tests {
		err := ValidateEventID(tt.id)
		if (err == nil) != tt.ok {
			t.Errorf("ValidateEventID(%q) = %v, want ok=%v", tt.id, err, tt.ok)
		}
		if err != nil && ErrorCode(err) != CodeBadUserInput {
			t.Errorf("ValidateEventID(%q) code = %s", tt.id, ErrorCode(err))
		}
	}
}

func TestValidateUserID(t *testing.T) {
	for id, ok := range map[string]bool{
		"sam": true, "4c1c2c2e-1e49-e9ee-0000-000000000000": true, "a.b@c:d_e": true,
		"": false, "a#b": false, "ünï": false, "a b": false,
	} {
		if err := ValidateUserID(id); (err == nil) != ok {
			t.Errorf("ValidateUserID(%q) = %v, want ok=%v", id, err, ok)
		}
	}
}

func TestNewEventID(t *testing.T) {
	start := time.Date(2026, 4, 18, 23, 0, 0, 0, time.FixedZone("EDT", -4*3600))
	id, err := NewEventID("WrestleMania 42: Night #1", start)
	if err != nil {
		t.Fatal(err)
	}
	if id != "2026-04-19-wrestlemania-42-night-1" {
		t.Fatalf("id = %q (date must be the UTC date)", id)
	}
	if err := ValidateEventID(id); err != nil {
		t.Fatal(err)
	}
	if _, err := NewEventID("!!!", start); ErrorCode(err) != CodeBadUserInput {
		t.Fatalf("NewEventID(!!!) err = %v", err)
	}
}

func TestPageSize(t *testing.T) {
	if n, err := PageSize(nil, 20); n != 20 || err != nil {
		t.Fatalf("default: %d %v", n, err)
	}
	for _, bad := range []int{0, -1, 101} {
		if _, err := PageSize(ptr(bad), 20); ErrorCode(err) != CodeBadUserInput {
			t.Errorf("PageSize(%d) err = %v", bad, err)
		}
	}
	if n, _ := PageSize(ptr(100), 20); n != 100 {
		t.Fatalf("PageSize(100) = %d", n)
	}
}

func twoTeams() []Team { return []Team{{Members: []string{"A"}}, {Members: []string{"B"}}} }

func TestCleanMatch(t *testing.T) {
	good := MatchSpec{Name: "  Main Event ", Points: 10, Teams: twoTeams(), Championships: []string{" Title "}}
	m, err := CleanMatch(good)
	if err != nil {
		t.Fatal(err)
	}
	if m.Name != "Main Event" || m.Championships[0] != "Title" {
		t.Fatalf("not trimmed: %+v", m)
	}
	bad := map[string]MatchSpec{
		"NoName":      {Name: " ", Points: 1, Teams: twoTeams()},
		"ZeroPoints":  {Name: "x", Points: 0, Teams: twoTeams()},
		"OneTeam":     {Name: "x", Points: 1, Teams: twoTeams()[:1]},
		"EmptyTeam":   {Name: "x", Points: 1, Teams: []Team{{Members: []string{"A"}}, {}}},
		"BlankMember": {Name: "x", Points: 1, Teams: []Team{{Members: []string{"A"}}, {Members: []string{""}}}},
	}
	for name, spec := range bad {
		t.Run(name, func(t *testing.T) {
			if _, err := CleanMatch(spec); ErrorCode(err) != CodeBadUserInput {
				t.Fatalf("err = %v", err)
			}
		})
	}
}

func TestValidateResult(t *testing.T) {
	tests := []struct {
		name string
		r    MatchResult
		ok   bool
	}{
		{"WinInRange", MatchResult{Outcome: OutcomeWin, Winner: ptr(1)}, true},
		{"WinOutOfRange", MatchResult{Outcome: OutcomeWin, Winner: ptr(2)}, false},
		{"WinNegative", MatchResult{Outcome: OutcomeWin, Winner: ptr(-1)}, false},
		{"WinWithoutWinner", MatchResult{Outcome: OutcomeWin, Winner: nil}, false},
		{"Draw", MatchResult{Outcome: OutcomeDraw, Winner: nil}, true},
		{"DrawWithWinner", MatchResult{Outcome: OutcomeDraw, Winner: ptr(0)}, false},
		{"NoContest", MatchResult{Outcome: OutcomeNoContest, Winner: nil}, true},
		{"Unknown", MatchResult{Outcome: "FORFEIT", Winner: nil}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := ValidateResult(tt.r, 2); (err == nil) != tt.ok {
				t.Fatalf("err = %v, want ok=%v", err, tt.ok)
			}
		})
	}
}

func card() []Match {
	return []Match{
		{ID: "m1", Name: "Opener", Points: 5, Teams: twoTeams()},
		{ID: "m2", Name: "Main", Points: 20, Teams: []Team{{Members: []string{"A"}}, {Members: []string{"B"}}, {Members: []string{"C"}}}},
	}
}

func TestValidatePicks(t *testing.T) {
	got, err := ValidatePicks(card(), []Pick{{MatchID: "m2", Team: 2}, {MatchID: "m1", Team: 0}})
	if err != nil {
		t.Fatal(err)
	}
	if got[0].MatchID != "m1" || got[1].MatchID != "m2" {
		t.Fatalf("picks not in card order: %+v", got)
	}
	if _, err := ValidatePicks(card(), []Pick{{MatchID: "m1", Team: 1}}); err != nil {
		t.Fatalf("partial card refused: %v", err)
	}
	bad := map[string][]Pick{
		"None":         nil,
		"Duplicate":    {{MatchID: "m1", Team: 0}, {MatchID: "m1", Team: 1}},
		"UnknownMatch": {{MatchID: "zz", Team: 0}},
		"TeamTooHigh":  {{MatchID: "m1", Team: 2}},
		"TeamNegative": {{MatchID: "m2", Team: -1}},
	}
	for name, picks := range bad {
		t.Run(name, func(t *testing.T) {
			if _, err := ValidatePicks(card(), picks); ErrorCode(err) != CodeBadUserInput {
				t.Fatalf("err = %v", err)
			}
		})
	}
}

func TestScorePicks(t *testing.T) {
	c := card()
	c[0].Result = &MatchResult{Outcome: OutcomeWin, Winner: ptr(1)}
	c[1].Result = &MatchResult{Outcome: OutcomeDraw}
	s := ScorePicks(c, []Pick{{MatchID: "m1", Team: 1}, {MatchID: "m2", Team: 0}, {MatchID: "gone", Team: 0}})
	if s.Points != 5 || s.Correct != 1 {
		t.Fatalf("score = %d points %d correct, want 5 and 1", s.Points, s.Correct)
	}
	want := []bool{true, false, false} // correct, voided, removed match
	for i, p := range s.Picks {
		if p.Correct == nil || *p.Correct != want[i] {
			t.Fatalf("pick %d correct = %v, want %v", i, p.Correct, want[i])
		}
	}
	c[1].Result = &MatchResult{Outcome: OutcomeWin, Winner: ptr(0)}
	if s := ScorePicks(c, []Pick{{MatchID: "m1", Team: 1}, {MatchID: "m2", Team: 0}}); s.Points != 25 || s.Correct != 2 {
		t.Fatalf("all correct = %+v", s)
	}
}

func TestMissingResults(t *testing.T) {
	c := card()
	c[0].Result = &MatchResult{Outcome: OutcomeNoContest}
	if got := MissingResults(c); len(got) != 1 || got[0] != "Main" {
		t.Fatalf("MissingResults = %v", got)
	}
}

func TestRankerTiesShareRank(t *testing.T) {
	var r Ranker
	var got []int
	for _, p := range []int{90, 80, 80, 70, 70, 70, 10} {
		got = append(got, r.Next(p))
	}
	want := []int{1, 2, 2, 4, 4, 4, 7}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("ranks = %v, want %v", got, want)
		}
	}
	// A ranker restored from a cursor continues the same sequence.
	cont := Ranker{Index: 2, Rank: 2, Points: 80}
	if r := cont.Next(80); r != 2 {
		t.Fatalf("continued tie rank = %d, want 2", r)
	}
	if r := cont.Next(70); r != 4 {
		t.Fatalf("continued rank = %d, want 4", r)
	}
}

// TestRankTableGivesTheRankersRanks: the ranks a table gives from counts are those a Ranker
// gives down the same players' list, ties included; totals it does not hold rank among the
// totals it does; entries out of order or empty are refused.
func TestRankTableGivesTheRankersRanks(t *testing.T) {
	points := []int{90, 80, 80, 70, 70, 70, 10, 0}
	var tbl RankTable
	for i := 0; i < len(points); {
		j := i
		for j < len(points) && points[j] == points[i] {
			j++
		}
		if !tbl.Add(points[i], j-i) {
			t.Fatalf("Add(%d, %d) refused", points[i], j-i)
		}
		i = j
	}
	var r Ranker
	for _, p := range points {
		if want, got := r.Next(p), tbl.Rank(p); got != want {
			t.Errorf("Rank(%d) = %d, Ranker gives %d", p, got, want)
		}
	}
	for p, want := range map[int]int{100: 1, 85: 2, 75: 4, 50: 7, 5: 8} {
		if got := tbl.Rank(p); got != want {
			t.Errorf("Rank(%d) of a total the table does not hold = %d, want %d", p, got, want)
		}
	}
	if tbl.Add(0, 1) || tbl.Add(5, 1) || tbl.Add(-1, 0) {
		t.Error("Add took an entry out of order or empty")
	}
	var empty RankTable
	if empty.Rank(3) != 1 {
		t.Error("the only player of an empty table is not first")
	}
}

func TestCompareStandings(t *testing.T) {
	for _, c := range []struct {
		ap   int
		au   string
		bp   int
		bu   string
		want int // sign
	}{
		{90, "zed", 80, "amy", -1}, // more points first
		{80, "amy", 90, "zed", 1},
		{80, "amy", 80, "bob", -1}, // a tie by user id
		{80, "bob", 80, "amy", 1},
		{80, "amy", 80, "amy", 0},
		{0, "amy", 0, "amy2", -1},
	} {
		got := CompareStandings(c.ap, c.au, c.bp, c.bu)
		if (got < 0) != (c.want < 0) || (got > 0) != (c.want > 0) {
			t.Errorf("CompareStandings(%d %s, %d %s) = %d, want sign %d", c.ap, c.au, c.bp, c.bu, got, c.want)
		}
	}
}
