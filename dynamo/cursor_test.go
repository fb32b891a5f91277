package dynamo

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/pickem/api/domain"
)

func TestCursorRoundTrip(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		c           cursor
		kind, owner string
	}{
		{"Events", cursor{Kind: cursorEvents, Owner: "all", ID: "2024-03-03-aew-revolution"}, cursorEvents, "all"},
		{"EventsOfSeason", cursor{Kind: cursorEvents, Owner: "2024", ID: "2024-03-03-aew-revolution"}, cursorEvents, "2024"},
		{"Predictions", cursor{Kind: cursorPredictions, Owner: "amy", ID: "2024-03-03-aew-revolution"}, cursorPredictions, "amy"},
		{"Leaderboard", cursor{Kind: cursorLeaderboard, Owner: "2024-03-03-x", ID: "amy", Points: 15, Index: 3, Rank: 2}, cursorLeaderboard, "2024-03-03-x"},
		{"LeaderboardZeroPoints", cursor{Kind: cursorLeaderboard, Owner: "2024-03-03-x", ID: "amy", Points: 0, Index: 9, Rank: 4}, cursorLeaderboard, "2024-03-03-x"},
		{"Standings", cursor{Kind: cursorStandings, Owner: "2024", ID: "zed", Points: MaxScore, Index: 1, Rank: 1}, cursorStandings, "2024"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.c.encode()
			if strings.ContainsAny(s, "+/=#") {
				t.Errorf("cursor %q is not URL-safe", s)
			}
			got, err := decodeCursor(s, tt.kind, tt.owner)
			mustOK(t, err)
			if got != tt.c {
				t.Errorf("decode(encode(%+v)) = %+v", tt.c, got)
			}
		})
	}
}

func TestCursorRejectsForgedAndForeign(t *testing.T) {
	t.Parallel()
	raw := func(json string) string { return base64.RawURLEncoding.EncodeToString([]byte(json)) }
	lb := cursor{Kind: cursorLeaderboard, Owner: "2024-03-03-x", ID: "amy", Points: 15, Index: 3, Rank: 2}
	tests := []struct {
		name        string
		s           string
		kind, owner string
	}{
		{"Empty", "", cursorEvents, "all"},
		{"GarbageBase64", "!!!not base64!!!", cursorEvents, "all"},
		{"StdBase64Padding", base64.StdEncoding.EncodeToString([]byte(`{"k":"events","o":"all","i":"2024-03-03-x"}`)) + "==", cursorEvents, "all"},
		{"NotJSON", raw("hello"), cursorEvents, "all"},
		{"JSONArray", raw(`[1,2]`), cursorEvents, "all"},
		{"OverLong", raw(`{"k":"events","o":"all","i":"2024-03-03-` + strings.Repeat("a", 400) + `"}`), cursorEvents, "all"},
		{"OtherKind", lb.encode(), cursorStandings, "2024-03-03-x"},
		{"OtherOwner", lb.encode(), cursorLeaderboard, "2024-03-04-y"},
		{"EventsOfOtherSeason", cursor{Kind: cursorEvents, Owner: "2023", ID: "2023-03-03-x"}.encode(), cursorEvents, "2024"},
		{"EventsAllUsedForSeason", cursor{Kind: cursorEvents, Owner: "all", ID: "2024-03-03-x"}.encode(), cursorEvents, "2024"},
		{"PredictionsOfOtherUser", cursor{Kind: cursorPredictions, Owner: "amy", ID: "2024-03-03-x"}.encode(), cursorPredictions, "zed"},
		{"EventIDForgesKey", cursor{Kind: cursorEvents, Owner: "all", ID: "2024-03-03-x#USER#amy"}.encode(), cursorEvents, "all"},
		{"UserIDForgesKey", cursor{Kind: cursorStandings, Owner: "2024", ID: "amy#STANDINGS#2024", Index: 1, Rank: 1}.encode(), cursorStandings, "2024"},
		{"EmptyID", cursor{Kind: cursorPredictions, Owner: "amy"}.encode(), cursorPredictions, "amy"},
		{"NegativePoints", cursor{Kind: cursorStandings, Owner: "2024", ID: "amy", Points: -1, Index: 1, Rank: 1}.encode(), cursorStandings, "2024"},
		{"PointsOverflow", cursor{Kind: cursorStandings, Owner: "2024", ID: "amy", Points: MaxScore + 1, Index: 1, Rank: 1}.encode(), cursorStandings, "2024"},
		{"RankAboveIndex", cursor{Kind: cursorStandings, Owner: "2024", ID: "amy", Index: 2, Rank: 3}.encode(), cursorStandings, "2024"},
		{"RankedWithoutIndex", cursor{Kind: cursorLeaderboard, Owner: "2024-03-03-x", ID: "amy"}.encode(), cursorLeaderboard, "2024-03-03-x"},
		{"NegativeIndex", raw(`{"k":"standings","o":"2024","i":"amy","n":-1,"r":-1}`), cursorStandings, "2024"},
		{"WrongTypes", raw(`{"k":"standings","o":"2024","i":"amy","n":"1","r":1}`), cursorStandings, "2024"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := decodeCursor(tt.s, tt.kind, tt.owner)
			wantCode(t, err, domain.CodeBadUserInput)
		})
	}
}
