package push_test

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/pickem/api/domain"
	"github.com/pickem/api/push"
	"github.com/pickem/api/push/pushtest"
)

const (
	eventID = "2026-04-05-wrestlemania-42"
	matchID = "049ce560-4287-4eaa-8705-4cf2072e851e"
)

func ptr[T any](v T) *T { return &v }

func row(id, name string, points, rank, place int) domain.Prediction {
	return domain.Prediction{User: domain.UserRef{ID: id, Name: name}, Points: &points, Rank: &rank, Place: &place}
}

// TestMessagesOfEveryKindMatchTheSchema: every constructor's output passes
// docs/live-message.schema.json and carries what docs/api.md says.
func TestMessagesOfEveryKindMatchTheSchema(t *testing.T) {
	h := push.Head{EventID: eventID, Version: 7}
	win := &domain.MatchResult{Outcome: domain.OutcomeWin, Winner: ptr(1), Method: ptr(domain.MethodPinfall)}
	for _, tc := range []struct {
		name  string
		build func() (string, error)
		want  string
	}{
		{"ResultSetWithMethod", func() (string, error) { return push.Result(h, matchID, win, domain.StateBroadcast) },
			`{"eventId":"2026-04-05-wrestlemania-42","kind":"RESULT","version":7,"matchId":"049ce560-4287-4eaa-8705-4cf2072e851e","result":{"outcome":"WIN","winner":1,"method":"PINFALL"},"state":"BROADCAST"}`},
		{"ResultSetWithoutMethod", func() (string, error) {
			return push.Result(h, matchID, &domain.MatchResult{Outcome: domain.OutcomeWin, Winner: ptr(0)}, domain.StateBroadcast)
		}, `{"eventId":"2026-04-05-wrestlemania-42","kind":"RESULT","version":7,"matchId":"049ce560-4287-4eaa-8705-4cf2072e851e","result":{"outcome":"WIN","winner":0},"state":"BROADCAST"}`},
		{"ResultDraw", func() (string, error) {
			return push.Result(h, matchID, &domain.MatchResult{Outcome: domain.OutcomeDraw}, domain.StateBroadcast)
		}, `{"eventId":"2026-04-05-wrestlemania-42","kind":"RESULT","version":7,"matchId":"049ce560-4287-4eaa-8705-4cf2072e851e","result":{"outcome":"DRAW"},"state":"BROADCAST"}`},
		{"ResultClearedIsNull", func() (string, error) { return push.Result(h, matchID, nil, domain.StateBroadcast) },
			`{"eventId":"2026-04-05-wrestlemania-42","kind":"RESULT","version":7,"matchId":"049ce560-4287-4eaa-8705-4cf2072e851e","result":null,"state":"BROADCAST"}`},
		{"State", func() (string, error) { return push.State(h, domain.StateScored) },
			`{"eventId":"2026-04-05-wrestlemania-42","kind":"STATE","version":7,"state":"SCORED"}`},
		{"TiebreakerWithoutTheAnswer", func() (string, error) { return push.Tiebreaker(h) },
			`{"eventId":"2026-04-05-wrestlemania-42","kind":"TIEBREAKER","version":7}`},
		{"ScoringWithRows", func() (string, error) {
			return push.Scoring(h, domain.StateBroadcast, 3, []domain.Prediction{row("u1", "Ada <3 & \"Bo\"", 30, 1, 1), row("u2", "Zoë", 20, 2, 2)})
		}, `{"eventId":"2026-04-05-wrestlemania-42","kind":"SCORING","version":7,"state":"BROADCAST","scoredMatches":3,"leaderboard":[{"userId":"u1","name":"Ada <3 & \"Bo\"","points":30,"rank":1,"place":1},{"userId":"u2","name":"Zoë","points":20,"rank":2,"place":2}]}`},
		{"ScoringWithoutRowsIsEmpty", func() (string, error) { return push.Scoring(h, domain.StateBroadcast, 0, nil) },
			`{"eventId":"2026-04-05-wrestlemania-42","kind":"SCORING","version":7,"state":"BROADCAST","scoredMatches":0,"leaderboard":[]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.build()
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("message\n got %s\nwant %s", got, tc.want)
			}
			if err := pushtest.ValidateMessage(got); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestScoringSendsTheFirstTenRows: a longer page is cut to LeaderboardRows, in order.
func TestScoringSendsTheFirstTenRows(t *testing.T) {
	var rows []domain.Prediction
	for i := range 15 {
		rows = append(rows, row(string(rune('a'+i)), "player", 100-i, i+1, i+1))
	}
	event, err := push.Scoring(push.Head{EventID: eventID, Version: 2}, domain.StateScored, 5, rows)
	if err != nil {
		t.Fatal(err)
	}
	var m struct{ Leaderboard []struct{ UserID string } }
	if err := json.Unmarshal([]byte(event), &m); err != nil {
		t.Fatal(err)
	}
	if len(m.Leaderboard) != push.LeaderboardRows || m.Leaderboard[0].UserID != "a" || m.Leaderboard[9].UserID != "j" {
		t.Errorf("leaderboard %+v: want the first %d rows, a to j", m.Leaderboard, push.LeaderboardRows)
	}
}

// TestLargestMessageFits: the biggest message the constructors can build — the longest
// event and user ids, names of MaxUserNameLen four-byte characters, the largest numbers
// — is within MaxEventBytes and valid.
func TestLargestMessageFits(t *testing.T) {
	longEvent := "2026-04-05-" + strings.Repeat("w", domain.MaxEventIDLen-11)
	if err := domain.ValidateEventID(longEvent); err != nil {
		t.Fatal(err)
	}
	name := strings.Repeat("😀", domain.MaxUserNameLen) // 4 UTF-8 bytes each, the most a name character takes
	if _, err := domain.CleanText("name", name, domain.MaxUserNameLen); err != nil {
		t.Fatal(err)
	}
	var rows []domain.Prediction
	for i := range push.LeaderboardRows {
		id := strings.Repeat("u", domain.MaxUserIDLen-1) + string(rune('a'+i))
		rows = append(rows, row(id, name, math.MaxInt64, math.MaxInt64, math.MaxInt64))
	}
	event, err := push.Scoring(push.Head{EventID: longEvent, Version: math.MaxInt64}, domain.StateBroadcast, math.MaxInt64, rows)
	if err != nil {
		t.Fatal(err)
	}
	if err := pushtest.ValidateMessage(event); err != nil {
		t.Error(err)
	}
	t.Logf("largest message: %d bytes of %d", len(event), push.MaxEventBytes)
	if len(event) > push.MaxEventBytes {
		t.Errorf("largest message has %d bytes, over %d", len(event), push.MaxEventBytes)
	}
}

func TestConstructorsRefuseWhatTheSchemaWouldNot(t *testing.T) {
	h := push.Head{EventID: eventID, Version: 1}
	for name, build := range map[string]func() (string, error){
		"NoEventID":     func() (string, error) { return push.Tiebreaker(push.Head{Version: 1}) },
		"VersionZero":   func() (string, error) { return push.State(push.Head{EventID: eventID}, domain.StateScored) },
		"UnknownState":  func() (string, error) { return push.State(h, "LIVE") },
		"ResultNoMatch": func() (string, error) { return push.Result(h, "", nil, domain.StateBroadcast) },
		"RowWithNoPlace": func() (string, error) {
			return push.Scoring(h, domain.StateScored, 1, []domain.Prediction{{User: domain.UserRef{ID: "u1", Name: "A"}, Points: ptr(1), Rank: ptr(1)}})
		},
	} {
		t.Run(name, func(t *testing.T) {
			if event, err := build(); err == nil {
				t.Errorf("built %s", event)
			}
		})
	}
}

// TestSchemaRejectsBrokenMessages: the schema check can fail — each message here breaks
// one rule of docs/live-message.schema.json.
func TestSchemaRejectsBrokenMessages(t *testing.T) {
	const head = `"eventId":"2026-04-05-wrestlemania-42","version":3`
	rows := func(n int) string {
		r := make([]string, n)
		for i := range r {
			r[i] = `{"userId":"u1","name":"A","points":1,"rank":1,"place":1}`
		}
		return "[" + strings.Join(r, ",") + "]"
	}
	for name, event := range map[string]string{
		"NotJSON":                   `{"eventId":`,
		"NoVersion":                 `{"eventId":"2026-04-05-wrestlemania-42","kind":"STATE","state":"SCORED"}`,
		"VersionZero":               `{"eventId":"2026-04-05-wrestlemania-42","kind":"STATE","version":0,"state":"SCORED"}`,
		"BadEventID":                `{"eventId":"wrestlemania","kind":"STATE","version":3,"state":"SCORED"}`,
		"UnknownKind":               `{` + head + `,"kind":"PICK"}`,
		"UnknownState":              `{` + head + `,"kind":"STATE","state":"LIVE"}`,
		"ResultMemberMissing":       `{` + head + `,"kind":"RESULT","matchId":"049ce560-4287-4eaa-8705-4cf2072e851e","state":"BROADCAST"}`,
		"WinWithoutWinner":          `{` + head + `,"kind":"RESULT","matchId":"049ce560-4287-4eaa-8705-4cf2072e851e","result":{"outcome":"WIN"},"state":"BROADCAST"}`,
		"DrawWithMethod":            `{` + head + `,"kind":"RESULT","matchId":"049ce560-4287-4eaa-8705-4cf2072e851e","result":{"outcome":"DRAW","method":"PINFALL"},"state":"BROADCAST"}`,
		"TiebreakerWithTheAnswer":   `{` + head + `,"kind":"TIEBREAKER","answer":42}`,
		"ScoringWithoutLeaderboard": `{` + head + `,"kind":"SCORING","state":"SCORED","scoredMatches":1}`,
		"ElevenRows":                `{` + head + `,"kind":"SCORING","state":"SCORED","scoredMatches":1,"leaderboard":` + rows(11) + `}`,
		"NameOf41Characters":        `{` + head + `,"kind":"SCORING","state":"SCORED","scoredMatches":1,"leaderboard":[{"userId":"u1","name":"` + strings.Repeat("é", 41) + `","points":1,"rank":1,"place":1}]}`,
		"RowWithoutPlace":           `{` + head + `,"kind":"SCORING","state":"SCORED","scoredMatches":1,"leaderboard":[{"userId":"u1","name":"A","points":1,"rank":1}]}`,
		"OverTheSizeLimit":          `{` + head + `,"kind":"TIEBREAKER"}` + strings.Repeat(" ", push.MaxEventBytes),
	} {
		t.Run(name, func(t *testing.T) {
			if err := pushtest.ValidateMessage(event); err == nil {
				t.Errorf("accepted %.120s", event)
			}
		})
	}
}
