package domain

import (
	"regexp"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"
	"golang.org/x/text/unicode/norm"
)

// Limits on what the API accepts. They keep every item well under DynamoDB's 400 KB and
// every card transaction under 100 items.
const (
	MaxMatches       = 30  // matches on one card
	MinTeams         = 2   // teams in a match
	MaxTeams         = 16  // teams in a match
	MaxMembers       = 16  // members of one team
	MaxChampionships = 8   // championships on one match
	MaxTextLen       = 100 // event, match, team, member and championship names (characters)
	MaxUserNameLen   = 40  // player names (characters)
	MaxMatchPoints   = 1000
	MaxEventIDLen    = 100
	MaxUserIDLen     = 128
	DefaultPageSize  = 20
	MaxPageSize      = 100
)

var (
	eventIDPattern = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}-[a-z0-9-]+$`)
	userIDPattern  = regexp.MustCompile(`^[A-Za-z0-9_.:@-]+$`)
	slugStrip      = regexp.MustCompile(`[^a-z0-9]+`)
)

// ValidateEventID returns BAD_USER_INPUT unless id is `<yyyy-mm-dd>-<slug>` with a real date.
func ValidateEventID(id string) error {
	if len(id) > MaxEventIDLen || !eventIDPattern.MatchString(id) {
		return BadInput("invalid event id %q: want <yyyy-mm-dd>-<slug> of lowercase letters, digits and dashes", truncate(id, 32))
	}
	if _, err := time.Parse("2006-01-02", id[:10]); err != nil {
		return BadInput("invalid event id %q: %s is not a date", truncate(id, 32), id[:10])
	}
	return nil
}

// ValidateUserID returns BAD_USER_INPUT unless id is 1–128 characters of [A-Za-z0-9_.:@-].
func ValidateUserID(id string) error {
	if id == "" || len(id) > MaxUserIDLen || !userIDPattern.MatchString(id) {
		return BadInput("invalid user id %q", truncate(id, 32))
	}
	return nil
}

// ValidateMatchID returns BAD_USER_INPUT unless id is a canonical lowercase UUID.
func ValidateMatchID(id string) error {
	u, err := uuid.Parse(id)
	if err != nil || u.String() != id {
		return BadInput("invalid match id %q", truncate(id, 40))
	}
	return nil
}

// NewMatchID returns a fresh match id.
func NewMatchID() string { return uuid.NewString() }

// ValidateSeason returns BAD_USER_INPUT unless season is a four-digit year.
func ValidateSeason(season int) error {
	if season < 1000 || season > 9999 {
		return BadInput("invalid season %d: want a four-digit year", season)
	}
	return nil
}

// PageSize checks a `first` argument: nil means def; otherwise 1..MaxPageSize.
func PageSize(first *int, def int) (int, error) {
	if first == nil {
		return def, nil
	}
	if *first < 1 || *first > MaxPageSize {
		return 0, BadInput("first must be between 1 and %d, got %d", MaxPageSize, *first)
	}
	return *first, nil
}

// EventDate is the UTC date of t as used in event ids.
func EventDate(t time.Time) string { return t.UTC().Format("2006-01-02") }

// NewEventID derives an event id from its start date and name.
func NewEventID(name string, startsAt time.Time) (string, error) {
	slug := strings.Trim(slugStrip.ReplaceAllString(strings.ToLower(name), "-"), "-")
	if max := MaxEventIDLen - 11; len(slug) > max {
		slug = strings.Trim(slug[:max], "-")
	}
	if slug == "" {
		return "", BadInput("cannot derive an event id from name %q: give an id", name)
	}
	return EventDate(startsAt) + "-" + slug, nil
}

// CleanText trims s, normalises it to Unicode NFC and checks it has 1..max characters and
// no character that is invisible or changes how text around it reads (see invisible);
// field names the input in errors.
func CleanText(field, s string, max int) (string, error) {
	if !utf8.ValidString(s) {
		return "", BadInput("%s is not valid UTF-8", field)
	}
	if len(s) > 4*max+64 { // no need to normalise what cannot fit
		return "", BadInput("%s must have 1 to %d characters", field, max)
	}
	s = strings.TrimSpace(norm.NFC.String(s))
	n := utf8.RuneCountInString(s)
	if n == 0 || n > max {
		return "", BadInput("%s must have 1 to %d characters", field, max)
	}
	if i := strings.IndexFunc(s, invisible); i >= 0 {
		r, _ := utf8.DecodeRuneInString(s[i:])
		return "", BadInput("%s must not contain control, format or private-use characters (U+%04X)", field, r)
	}
	return s, nil
}

// CleanPlayerName checks a player name as register and renamePlayer take it (see CleanText).
func CleanPlayerName(name string) (string, error) {
	return CleanText("name", name, MaxUserNameLen)
}

// NameFromToken is the player name a sign-in token's name claim gives: name without what a
// name may not hold (invalid UTF-8 and the invisible characters CleanText refuses),
// normalised and trimmed as CleanText does, cut to MaxUserNameLen characters. "" when
// nothing is left. A name it returns is one CleanPlayerName accepts as it is.
func NameFromToken(name string) string {
	if len(name) > 4*MaxUserNameLen+64 {
		name = name[:4*MaxUserNameLen+64]
	}
	name = strings.ToValidUTF8(name, "")
	name = strings.Map(func(r rune) rune {
		if invisible(r) {
			return -1
		}
		return r
	}, norm.NFC.String(name))
	name = strings.TrimSpace(name)
	if utf8.RuneCountInString(name) > MaxUserNameLen {
		name = strings.TrimSpace(string([]rune(name)[:MaxUserNameLen]))
	}
	// Normalising after a cut or a removal can join what was apart: settle on the form
	// CleanText keeps.
	if clean, err := CleanPlayerName(name); err == nil {
		return clean
	}
	return ""
}

// invisible reports runes a name must not hold: controls (Cc), format characters (Cf:
// bidi overrides and isolates, zero-width space and joiners, the BOM, soft hyphen), line
// and paragraph separators (Zl, Zp), private use (Co) and noncharacters. They make
// look-alike names, reorder the text around them, or show as nothing.
func invisible(r rune) bool {
	return unicode.In(r, unicode.Cc, unicode.Cf, unicode.Zl, unicode.Zp, unicode.Co) ||
		unicode.Is(unicode.Noncharacter_Code_Point, r)
}

// ParseTime parses a strict RFC 3339 time with an explicit offset ("Z" or ±hh:mm within
// ±23:59, as RFC 3339 allows); anything else is BAD_USER_INPUT.
func ParseTime(s string) (time.Time, error) {
	bad := func() (time.Time, error) {
		return time.Time{}, BadInput("Time %q is not RFC 3339 with an offset within ±23:59 (e.g. 2026-03-01T23:00:00Z)", truncate(s, 40))
	}
	if len(s) > 64 {
		return bad()
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return bad()
	}
	if !strings.HasSuffix(s, "Z") {
		off := s[len(s)-6:] // time.Parse checked the shape: ±hh:mm
		hh, mm := (off[1]-'0')*10+off[2]-'0', (off[4]-'0')*10+off[5]-'0'
		if hh > 23 || mm > 59 {
			return bad()
		}
	}
	return t, nil
}

// ValidateStart checks an event start time (a four-digit UTC year, whole seconds are kept).
func ValidateStart(t time.Time) (time.Time, error) {
	t = t.UTC().Truncate(time.Second)
	if t.Year() < 1000 || t.Year() > 9999 {
		return time.Time{}, BadInput("startsAt must be in a four-digit year")
	}
	return t, nil
}

// ValidateEventIDForStart checks that id's date is the UTC date of startsAt.
func ValidateEventIDForStart(id string, startsAt time.Time) error {
	if id[:10] != EventDate(startsAt) {
		return BadInput("event id %q must start with the UTC date of startsAt (%s)", id, EventDate(startsAt))
	}
	return nil
}

// MatchSpec is the editable part of a match.
type MatchSpec struct {
	Name          string
	Points        int
	MethodPoints  int // 0..MaxMethodPoints; 0: the match offers no method pick
	Preshow       bool
	Championships []string
	Teams         []Team
}

// CleanMatch validates and normalises a match spec (trimmed names, limits).
func CleanMatch(m MatchSpec) (MatchSpec, error) {
	var err error
	if m.Name, err = CleanText("match name", m.Name, MaxTextLen); err != nil {
		return m, err
	}
	if m.Points < 1 || m.Points > MaxMatchPoints {
		return m, BadInput("match points must be between 1 and %d", MaxMatchPoints)
	}
	if m.MethodPoints < 0 || m.MethodPoints > MaxMethodPoints {
		return m, BadInput("match methodPoints must be between 0 and %d", MaxMethodPoints)
	}
	if len(m.Championships) > MaxChampionships {
		return m, BadInput("a match has at most %d championships", MaxChampionships)
	}
	champs := make([]string, len(m.Championships))
	for i, c := range m.Championships {
		if champs[i], err = CleanText("championship", c, MaxTextLen); err != nil {
			return m, err
		}
	}
	m.Championships = champs
	if len(m.Teams) < MinTeams || len(m.Teams) > MaxTeams {
		return m, BadInput("a match has %d to %d teams", MinTeams, MaxTeams)
	}
	teams := make([]Team, len(m.Teams))
	for i, t := range m.Teams {
		if t.Name != nil {
			name, err := CleanText("team name", *t.Name, MaxTextLen)
			if err != nil {
				return m, err
			}
			t.Name = &name
		}
		if len(t.Members) < 1 || len(t.Members) > MaxMembers {
			return m, BadInput("a team has 1 to %d members", MaxMembers)
		}
		members := make([]string, len(t.Members))
		for j, mem := range t.Members {
			if members[j], err = CleanText("team member", mem, MaxTextLen); err != nil {
				return m, err
			}
		}
		t.Members = members
		teams[i] = t
	}
	m.Teams = teams
	return m, nil
}

// ValidateResult checks a result against the match's teams: a WIN has a winner among them
// and may have a method; a DRAW or NO_CONTEST has neither.
func ValidateResult(r MatchResult, teams int) error {
	switch r.Outcome {
	case OutcomeWin:
		if r.Winner == nil || *r.Winner < 0 || *r.Winner >= teams {
			return BadInput("a WIN needs a winner between 0 and %d", teams-1)
		}
		if r.Method != nil && !r.Method.Valid() {
			return BadInput("unknown method %q", truncate(string(*r.Method), 20))
		}
	case OutcomeDraw, OutcomeNoContest:
		if r.Winner != nil {
			return BadInput("a %s has no winner", r.Outcome)
		}
		if r.Method != nil {
			return BadInput("a %s has no method: only a WIN is won by one", r.Outcome)
		}
	default:
		return BadInput("unknown outcome %q", r.Outcome)
	}
	return nil
}

// CheckPicks checks what picks can be checked without the card: 1 to MaxMatches picks,
// canonical match ids, one pick per match, team indices that some match could have. The
// API calls it before reading anything.
func CheckPicks(picks []Pick) error {
	if len(picks) == 0 {
		return BadInput("a prediction needs at least one pick")
	}
	if len(picks) > MaxMatches {
		return BadInput("a card has at most %d matches: %d picks is too many", MaxMatches, len(picks))
	}
	seen := make(map[string]bool, len(picks))
	for _, p := range picks {
		if err := ValidateMatchID(p.MatchID); err != nil {
			return err
		}
		if seen[p.MatchID] {
			return BadInput("more than one pick for match %q", p.MatchID)
		}
		seen[p.MatchID] = true
		if p.Team < 0 || p.Team >= MaxTeams {
			return BadInput("pick for match %q: team must be between 0 and %d", p.MatchID, MaxTeams-1)
		}
	}
	return nil
}

// ValidatePicks checks picks against the card: at least one, at most one per match, every
// match on the card and every team index in range. The result is in card order, each pick
// with its team and method. ValidateEntry checks the rest of a submit.
func ValidatePicks(card []Match, picks []Pick) ([]Pick, error) {
	if len(picks) == 0 {
		return nil, BadInput("a prediction needs at least one pick")
	}
	byMatch := make(map[string]Pick, len(picks))
	for _, p := range picks {
		if _, dup := byMatch[p.MatchID]; dup {
			return nil, BadInput("more than one pick for match %q", truncate(p.MatchID, 40))
		}
		byMatch[p.MatchID] = Pick{MatchID: p.MatchID, Team: p.Team, Method: p.Method}
	}
	out := make([]Pick, 0, len(picks))
	for _, m := range card {
		p, ok := byMatch[m.ID]
		if !ok {
			continue
		}
		if p.Team < 0 || p.Team >= len(m.Teams) {
			return nil, BadInput("pick for match %q: team must be between 0 and %d", m.ID, len(m.Teams)-1)
		}
		out = append(out, p)
		delete(byMatch, m.ID)
	}
	for id := range byMatch {
		return nil, BadInput("match %q is not on this event's card", truncate(id, 40))
	}
	return out, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
