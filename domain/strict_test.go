package domain

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

func TestParseTimeOffsets(t *testing.T) {
	for s, ok := range map[string]bool{
		"2026-12-21T10:00:00Z":                            true,
		"2026-12-21T10:00:00+23:59":                       true,
		"2026-12-21T10:00:00-23:59":                       true,
		"2026-12-21T10:00:00+00:00":                       true,
		"2026-12-21T10:00:00.123+05:30":                   true,
		"2026-12-21T10:00:00+24:00":                       false, // an offset is under 24 hours
		"2026-12-21T10:00:00-24:00":                       false,
		"2026-12-21T10:00:00+99:00":                       false,
		"2026-12-21T10:00:00+05:60":                       false,
		"2026-12-21T10:00:00+05:99":                       false,
		"2026-12-21T10:00:00":                             false, // no offset
		"2026-12-21 10:00:00Z":                            false,
		"2026-12-21":                                      false,
		"":                                                false,
		"2026-12-21T10:00:00+0530":                        false,
		"2026-12-21T10:00:00Z" + strings.Repeat(" ", 100): false,
	} {
		_, err := ParseTime(s)
		if (err == nil) != ok {
			t.Errorf("ParseTime(%q): err %v, want ok=%v", s, err, ok)
		}
		if err != nil && ErrorCode(err) != CodeBadUserInput {
			t.Errorf("ParseTime(%q): code %s", s, ErrorCode(err))
		}
	}
	got, err := ParseTime("2026-12-21T10:00:00-23:59")
	if err != nil || !got.Equal(time.Date(2026, 12, 22, 9, 59, 0, 0, time.UTC)) {
		t.Errorf("-23:59: %v %v", got.UTC(), err)
	}
}

func TestCleanTextRefusesInvisibleCharacters(t *testing.T) {
	for name, s := range map[string]string{
		"RightToLeftOverride": "Evil\u202eNomad",
		"LeftToRightIsolate":  "Ace\u2066x",
		"ZeroWidthSpace":      "A\u200bce",
		"ZeroWidthJoiner":     "A\u200dce",
		"ZeroWidthNonJoiner":  "A\u200cce",
		"ByteOrderMark":       "\ufeffAce",
		"SoftHyphen":          "A\u00adce",
		"WordJoiner":          "A\u2060ce",
		"LineSeparator":       "Ace\u2028Bea",
		"ParagraphSeparator":  "Ace\u2029Bea",
		"PrivateUse":          "Ace\ue000",
		"Noncharacter":        "Ace\ufdd0",
		"Control":             "Ace\x07",
		"Tab":                 "Ace\tBea",
		"InvalidUTF8":         "Ace\xff",
		"TagCharacter":        "Ace\U000e0041",
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := CleanText("name", s, MaxUserNameLen); ErrorCode(err) != CodeBadUserInput {
				t.Fatalf("CleanText(%q) = %v, want BAD_USER_INPUT", s, err)
			}
		})
	}
}

func TestCleanTextNormalisesToNFC(t *testing.T) {
	decomposed := "Rey Fe\u0301nix" // e + combining acute
	got, err := CleanText("name", "  "+decomposed+" ", MaxUserNameLen)
	if err != nil || got != "Rey F\u00e9nix" {
		t.Fatalf("CleanText = %q, %v", got, err)
	}
	for _, s := range []string{"Rey Fénix", "Ōkami", "ジェイ・ホワイト", "Ilja Dragunov 🐻", "Ἀθηνᾶ", "Æon"} {
		got, err := CleanText("name", s, MaxUserNameLen)
		if err != nil || got != norm.NFC.String(s) {
			t.Errorf("CleanText(%q) = %q, %v", s, got, err)
		}
	}
	// The limit counts characters after normalisation.
	if _, err := CleanText("name", strings.Repeat("e\u0301", MaxUserNameLen), MaxUserNameLen); err != nil {
		t.Errorf("40 decomposed é: %v", err)
	}
}

// FuzzParseTime: never panics; what it accepts is RFC 3339 with an offset within
// ±23:59 and survives a round trip.
func FuzzParseTime(f *testing.F) {
	for _, s := range []string{"2026-12-21T10:00:00Z", "2026-12-21T10:00:00+24:00", "2026-12-21T10:00:00.5-23:59", "", "2026-12-21T10:00:00+05:60"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseTime(s)
		if err != nil {
			if ErrorCode(err) != CodeBadUserInput {
				t.Fatalf("code %s", ErrorCode(err))
			}
			return
		}
		if _, off := got.Zone(); off <= -24*3600 || off >= 24*3600 {
			t.Fatalf("accepted offset %d s in %q", off, s)
		}
		back, err := ParseTime(got.Format(time.RFC3339Nano))
		if err != nil || !back.Equal(got) {
			t.Fatalf("%q: round trip %v %v", s, back, err)
		}
	})
}

// FuzzCleanText: never panics; what it accepts is NFC, trimmed, within the limit and
// free of invisible characters, and cleaning it again changes nothing.
func FuzzCleanText(f *testing.F) {
	for _, s := range []string{"Ace", " Rey Fe\u0301nix ", "Evil\u202eNomad", "A\u200bce", "\xff", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := CleanText("name", s, MaxUserNameLen)
		if err != nil {
			if ErrorCode(err) != CodeBadUserInput {
				t.Fatalf("code %s", ErrorCode(err))
			}
			return
		}
		n := utf8.RuneCountInString(got)
		if n == 0 || n > MaxUserNameLen || !norm.NFC.IsNormalString(got) || strings.IndexFunc(got, invisible) >= 0 || got != strings.TrimSpace(got) {
			t.Fatalf("accepted %q as %q", s, got)
		}
		if again, err := CleanText("name", got, MaxUserNameLen); err != nil || again != got {
			t.Fatalf("not idempotent: %q → %q → %q, %v", s, got, again, err)
		}
	})
}

func TestNameFromToken(t *testing.T) {
	long := strings.Repeat("a", MaxUserNameLen)
	for _, c := range []struct{ in, want string }{
		{"Ace", "Ace"},
		{"  Rey Fe\u0301nix ", "Rey F\u00e9nix"},
		{"Evil\u202eNomad", "EvilNomad"},
		{"A\u200bce\u2060", "Ace"},
		{"\ufeffAce\x00", "Ace"},
		{"\xffAce", "Ace"},
		{"\u200b\u202e", ""},
		{"   ", ""},
		{long + "bcd", long},
		{strings.Repeat("a", MaxUserNameLen-1) + " b", strings.Repeat("a", MaxUserNameLen-1)},
	} {
		if got := NameFromToken(c.in); got != c.want {
			t.Errorf("NameFromToken(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// FuzzNameFromToken: a name taken from a token is "" or one CleanPlayerName keeps as it is.
func FuzzNameFromToken(f *testing.F) {
	for _, s := range []string{"Ace", " Rey Fe\u0301nix ", "Evil\u202eNomad", "A\u200bce", "\xff", "", strings.Repeat("e\u0301", 50)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := NameFromToken(s)
		if got == "" {
			return
		}
		if clean, err := CleanPlayerName(got); err != nil || clean != got {
			t.Fatalf("NameFromToken(%q) = %q, which CleanPlayerName gives as %q, %v", s, got, clean, err)
		}
	})
}

func TestCheckPicks(t *testing.T) {
	id := func(i int) string {
		return "00000000-0000-4000-8000-" + strings.Repeat("0", 10) + string(rune('0'+i/10)) + string(rune('0'+i%10))
	}
	ok := []Pick{{MatchID: id(1), Team: 0}, {MatchID: id(2), Team: MaxTeams - 1}}
	if err := CheckPicks(ok); err != nil {
		t.Fatal(err)
	}
	tooMany := make([]Pick, MaxMatches+1)
	for i := range tooMany {
		tooMany[i] = Pick{MatchID: id(i), Team: 0}
	}
	for name, picks := range map[string][]Pick{
		"None":         nil,
		"TooMany":      tooMany,
		"NotAUUID":     {{MatchID: "m1", Team: 0}},
		"UpperCase":    {{MatchID: strings.ToUpper("0000000a-0000-4000-8000-000000000001"), Team: 0}},
		"Twice":        {{MatchID: id(1), Team: 0}, {MatchID: id(1), Team: 1}},
		"NegativeTeam": {{MatchID: id(1), Team: -1}},
		"TeamTooHigh":  {{MatchID: id(1), Team: MaxTeams}},
	} {
		if err := CheckPicks(picks); ErrorCode(err) != CodeBadUserInput {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// FuzzValidateInput feeds the card and pick validators arbitrary names, points, team
// counts, match ids and team indices: they never panic, refuse with BAD_USER_INPUT only,
// and what they accept is within every limit.
func FuzzValidateInput(f *testing.F) {
	f.Add("Main Event", "Hangman Page", 10, 2, "00000000-0000-4000-8000-000000000001", 0)
	f.Add("Ev\u202eil", "A\u200bB", 1001, 17, "not-a-uuid", -1)
	f.Add(" ", "", 0, 1, "", 16)
	f.Add(strings.Repeat("x", 101), strings.Repeat("é", 100), MaxMatchPoints, MaxTeams, "00000000-0000-4000-8000-00000000000A", MaxTeams-1)
	f.Fuzz(func(t *testing.T, name, member string, points, teams int, matchID string, team int) {
		teams = min(max(teams, -1), MaxTeams+2) // keep allocations small
		spec := MatchSpec{Name: name, Points: points, Championships: []string{member}}
		for range max(teams, 0) {
			spec.Teams = append(spec.Teams, Team{Name: &member, Members: []string{member, name}})
		}
		clean, err := CleanMatch(spec)
		if err != nil {
			if ErrorCode(err) != CodeBadUserInput {
				t.Fatalf("CleanMatch code %s", ErrorCode(err))
			}
		} else {
			if clean.Points < 1 || clean.Points > MaxMatchPoints || len(clean.Teams) < MinTeams || len(clean.Teams) > MaxTeams {
				t.Fatalf("accepted %+v", clean)
			}
			for _, s := range append([]string{clean.Name, *clean.Teams[0].Name}, clean.Teams[0].Members...) {
				if again, err := CleanText("x", s, MaxTextLen); err != nil || again != s {
					t.Fatalf("accepted an unclean name %q", s)
				}
			}
		}
		err = CheckPicks([]Pick{{MatchID: matchID, Team: team}})
		if err != nil {
			if ErrorCode(err) != CodeBadUserInput {
				t.Fatalf("CheckPicks code %s", ErrorCode(err))
			}
		} else if ValidateMatchID(matchID) != nil || team < 0 || team >= MaxTeams || strings.Contains(matchID, "#") {
			t.Fatalf("accepted pick %q/%d", matchID, team)
		}
		for _, id := range []string{name, member, matchID} {
			if ValidateEventID(id) == nil && (len(id) > MaxEventIDLen || strings.ContainsAny(id, "# ")) {
				t.Fatalf("accepted event id %q", id)
			}
			if ValidateUserID(id) == nil && (id == "" || len(id) > MaxUserIDLen || strings.ContainsAny(id, "# ")) {
				t.Fatalf("accepted user id %q", id)
			}
		}
	})
}
