package dynamo

import (
	"encoding/base64"
	"encoding/json"

	"github.com/pickem/api/domain"
)

// Cursor kinds. A cursor is only valid for the list (and owner) it came from.
const (
	cursorEvents      = "events"
	cursorLeaderboard = "leaderboard"
	cursorStandings   = "standings"
	cursorPredictions = "predictions"
)

// cursor is the decoded form of an opaque page cursor: the position of the last item of a
// page plus the rank state needed to continue ranking on the next page. Keys are rebuilt
// from validated ids, never taken from the cursor as they are.
type cursor struct {
	Kind   string `json:"k"`
	Owner  string `json:"o"`           // event id, season, user id or events filter
	ID     string `json:"i"`           // last item: event id or user id
	Points int    `json:"p,omitempty"` // last item's points (ranked lists)
	Index  int    `json:"n,omitempty"` // rows before and including the last item
	Rank   int    `json:"r,omitempty"` // rank of the last item
}

func (c cursor) encode() string {
	b, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(b)
}

func (c cursor) ranker() domain.Ranker {
	return domain.Ranker{Index: c.Index, Rank: c.Rank, Points: c.Points}
}

// decodeCursor parses s and checks it belongs to kind and owner; anything else is
// BAD_USER_INPUT.
func decodeCursor(s, kind, owner string) (cursor, error) {
	bad := domain.BadInput("invalid cursor for this list")
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(s) > 512 {
		return cursor{}, bad
	}
	var c cursor
	if err := json.Unmarshal(b, &c); err != nil || c.Kind != kind || c.Owner != owner {
		return cursor{}, bad
	}
	if c.Points < 0 || c.Points > MaxScore || c.Index < 0 || c.Rank < 0 || c.Rank > c.Index {
		return cursor{}, bad
	}
	switch kind {
	case cursorEvents, cursorPredictions:
		if _, err := parseEventID(c.ID); err != nil {
			return cursor{}, bad
		}
	case cursorLeaderboard, cursorStandings:
		if _, err := parseUserID(c.ID); err != nil || c.Index < 1 || c.Rank < 1 {
			return cursor{}, bad
		}
	}
	return c, nil
}
