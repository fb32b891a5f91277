package dynamo

import (
	"fmt"
	"slices"
	"time"

	"github.com/pickem/api/domain"
)

// Item types, stored in the "type" attribute of every item.
const (
	typeUser       = "user"
	typeEvent      = "event"
	typeMatch      = "match"
	typePrediction = "prediction"
	typeStanding   = "standing"
	typeSeason     = "season"
	typeLock       = "lock"
	typeCheckpoint = "scoring"
)

// timeLayout stores instants as fixed-width UTC strings so that they compare as strings in
// condition expressions.
const timeLayout = "2006-01-02T15:04:05Z"

func formatTime(t time.Time) string { return t.UTC().Truncate(time.Second).Format(timeLayout) }

func parseTime(s string) (time.Time, error) { return time.Parse(timeLayout, s) }

// keys is the primary key of an item.
type keys struct {
	PK string `dynamodbav:"PK"`
	SK string `dynamodbav:"SK"`
}

// indexKeys are the GSI attributes of an item that is in the index.
type indexKeys struct {
	GSIPK string `dynamodbav:"GSI_PK"`
	GSISK string `dynamodbav:"GSI_SK"`
}

type userRow struct {
	keys
	Type        string `dynamodbav:"type"`
	ID          string `dynamodbav:"id"`
	Name        string `dynamodbav:"name"`
	NameVersion int    `dynamodbav:"nameVersion"`
	CreatedAt   string `dynamodbav:"createdAt"`
}

type eventRow struct {
	keys
	indexKeys
	Type        string `dynamodbav:"type"`
	ID          string `dynamodbav:"id"`
	Name        string `dynamodbav:"name"`
	StartsAt    string `dynamodbav:"startsAt"`
	Season      int    `dynamodbav:"season"`
	State       string `dynamodbav:"state"`
	CardVersion int    `dynamodbav:"cardVersion"`
	// CardHash is cardHash of the matches as of CardVersion, written in the same
	// transaction as every card change: a reader holding an event row and match rows from
	// two moments (an index that lags, two reads in parallel) sees the hash disagree.
	CardHash string `dynamodbav:"cardHash"`
	// Rev grows by one with every change of what a submit's condition reads (name, start,
	// state, card version); the lock copies carry the Rev they mirror.
	Rev int `dynamodbav:"rev"`
	// Shards is how many index partitions the event's predictions are spread over, and
	// LockCopies how many lock copies it has (keys.go): set when the event is created and
	// never changed.
	Shards     int `dynamodbav:"shards"`
	LockCopies int `dynamodbav:"lockCopies"`
	// ScoredMatches and ScoredVersion are what the last complete scoring pass counted (the
	// matches with a result) and the card version it reflects; written with the pass's last
	// step (markScored), 0 before any.
	ScoredMatches int `dynamodbav:"scoredMatches"`
	ScoredVersion int `dynamodbav:"scoredVersion"`
}

// newEventRow is the row of a new event of shards shards.
func newEventRow(e domain.Event, shards int) eventRow {
	id := eventID(e.ID)
	return eventRow{
		keys:        keys{PK: eventsPK, SK: eventSK(id)},
		indexKeys:   indexKeys{GSIPK: eventPK(id), GSISK: eventCard},
		Type:        typeEvent,
		ID:          e.ID,
		Name:        e.Name,
		StartsAt:    formatTime(e.StartsAt),
		Season:      e.Season(),
		State:       string(e.Stored),
		CardVersion: e.CardVersion,
		CardHash:    cardHash(e.Matches),
		Rev:         1,
		Shards:      shards,
		LockCopies:  lockCopies(shards),
	}
}

// seasonRow is a season's item: how many index partitions its standings are spread over,
// set by the creation of its first event and never changed.
type seasonRow struct {
	keys
	indexKeys
	Type   string `dynamodbav:"type"`
	Season int    `dynamodbav:"season"`
	Shards int    `dynamodbav:"shards"`
}

func newSeasonRow(season, shards int) seasonRow {
	return seasonRow{keys: keys{PK: seasonPK(season), SK: seasonSK}, indexKeys: indexKeys{GSIPK: seasonPK(season), GSISK: seasonInfo},
		Type: typeSeason, Season: season, Shards: shards}
}

func (r eventRow) toDomain() (domain.Event, error) {
	start, err := parseTime(r.StartsAt)
	if err != nil {
		return domain.Event{}, fmt.Errorf("event %s: startsAt: %w", r.ID, err)
	}
	return domain.Event{ID: r.ID, Name: r.Name, StartsAt: start, Stored: domain.EventState(r.State), CardVersion: r.CardVersion,
		ScoredMatches: r.ScoredMatches, ScoredVersion: r.ScoredVersion}, nil
}

type teamRow struct {
	Name     *string  `dynamodbav:"name,omitempty"`
	Members  []string `dynamodbav:"members"`
	Champion bool     `dynamodbav:"champion"`
}

type resultRow struct {
	Outcome string `dynamodbav:"outcome"`
	Winner  *int   `dynamodbav:"winner,omitempty"`
}

type matchRow struct {
	keys
	indexKeys
	Type          string     `dynamodbav:"type"`
	EventID       string     `dynamodbav:"eventId"`
	ID            string     `dynamodbav:"id"`
	Position      int        `dynamodbav:"position"`
	Name          string     `dynamodbav:"name"`
	Points        int        `dynamodbav:"points"`
	Preshow       bool       `dynamodbav:"preshow"`
	Championships []string   `dynamodbav:"championships,omitempty"` // no attribute for no championships
	Teams         []teamRow  `dynamodbav:"teams"`
	Result        *resultRow `dynamodbav:"result,omitempty"`
	// PickCounts is how many predictions picked each team, written by scoring
	// (pickcounts.go); every card write carries it over (domain.Match.PickCounts).
	PickCounts []int `dynamodbav:"pickCounts,omitempty"`
}

func newMatchRow(e eventID, m domain.Match) matchRow {
	teams := make([]teamRow, len(m.Teams))
	for i, t := range m.Teams {
		teams[i] = teamRow{Name: t.Name, Members: t.Members, Champion: t.Champion}
	}
	row := matchRow{
		keys:          keys{PK: eventPK(e), SK: matchSK(matchID(m.ID))},
		indexKeys:     indexKeys{GSIPK: eventPK(e), GSISK: cardSK(m.Position)},
		Type:          typeMatch,
		EventID:       string(e),
		ID:            m.ID,
		Position:      m.Position,
		Name:          m.Name,
		Points:        m.Points,
		Preshow:       m.Preshow,
		Championships: nilIfEmpty(m.Championships),
		Teams:         teams,
	}
	if m.Result != nil {
		row.Result = &resultRow{Outcome: string(m.Result.Outcome), Winner: m.Result.Winner}
	}
	if len(m.PickCounts) > 0 {
		row.PickCounts = slices.Clone(m.PickCounts)
	}
	return row
}

func (r matchRow) toDomain() domain.Match {
	teams := make([]domain.Team, len(r.Teams))
	for i, t := range r.Teams {
		teams[i] = domain.Team{Name: t.Name, Members: nonNil(t.Members), Champion: t.Champion}
	}
	m := domain.Match{
		ID:            r.ID,
		Position:      r.Position,
		Name:          r.Name,
		Points:        r.Points,
		Preshow:       r.Preshow,
		Championships: nonNil(r.Championships),
		Teams:         teams,
		PickCounts:    r.PickCounts,
	}
	if r.Result != nil {
		m.Result = &domain.MatchResult{Outcome: domain.Outcome(r.Result.Outcome), Winner: r.Result.Winner}
	}
	return m
}

type pickRow struct {
	MatchID string `dynamodbav:"matchId"`
	Team    int    `dynamodbav:"team"`
}

type predictionRow struct {
	keys
	indexKeys
	Type            string    `dynamodbav:"type"`
	UserID          string    `dynamodbav:"userId"`
	UserName        string    `dynamodbav:"userName"`
	UserNameVersion int       `dynamodbav:"userNameVersion"`
	EventID         string    `dynamodbav:"eventId"`
	EventName       string    `dynamodbav:"eventName"`
	EventStartsAt   string    `dynamodbav:"eventStartsAt"`
	Season          int       `dynamodbav:"season"`
	Picks           []pickRow `dynamodbav:"picks"`
	// Points, Correct and CorrectIDs are set by scoring only.
	Points     *int     `dynamodbav:"points,omitempty"`
	Correct    *int     `dynamodbav:"correct,omitempty"`
	CorrectIDs []string `dynamodbav:"correctIds,omitempty"`
	// ScoredWith is the event's cardVersion the score was computed from.
	ScoredWith *int   `dynamodbav:"scoredWith,omitempty"`
	UpdatedAt  string `dynamodbav:"updatedAt"`
	// Version grows by one with every write of the prediction (submit, scoring, renames);
	// every write is conditioned on the version it read. (updatedAt has one-second
	// resolution and is for display only.)
	Version int `dynamodbav:"version"`
}

// storedScore is what scoring last wrote on the row, or nil if it was never scored.
func (r predictionRow) storedScore() *domain.StoredScore {
	if r.Points == nil {
		return nil
	}
	s := &domain.StoredScore{Points: *r.Points, CorrectIDs: nonNil(r.CorrectIDs)}
	if r.Correct != nil {
		s.Correct = *r.Correct
	}
	if r.ScoredWith != nil {
		s.CardVersion = *r.ScoredWith
	}
	return s
}

func (r predictionRow) domainPicks() []domain.Pick {
	picks := make([]domain.Pick, len(r.Picks))
	for i, p := range r.Picks {
		picks[i] = domain.Pick{MatchID: p.MatchID, Team: p.Team}
	}
	return picks
}

func (r predictionRow) toDomain() (domain.Prediction, error) {
	start, err := parseTime(r.EventStartsAt)
	if err != nil {
		return domain.Prediction{}, fmt.Errorf("prediction %s/%s: eventStartsAt: %w", r.UserID, r.EventID, err)
	}
	updated, err := parseTime(r.UpdatedAt)
	if err != nil {
		return domain.Prediction{}, fmt.Errorf("prediction %s/%s: updatedAt: %w", r.UserID, r.EventID, err)
	}
	picks := make([]domain.Pick, len(r.Picks))
	for i, p := range r.Picks {
		picks[i] = domain.Pick{MatchID: p.MatchID, Team: p.Team}
		if r.Points != nil {
			ok := slices.Contains(r.CorrectIDs, p.MatchID)
			picks[i].Correct = &ok
		}
	}
	return domain.Prediction{
		EventID:   r.EventID,
		Event:     domain.EventRef{ID: r.EventID, Name: r.EventName, StartsAt: start},
		User:      domain.UserRef{ID: r.UserID, Name: r.UserName},
		Picks:     picks,
		Points:    r.Points,
		Correct:   r.Correct,
		UpdatedAt: updated,
	}, nil
}

type standingRow struct {
	keys
	indexKeys
	Type            string `dynamodbav:"type"`
	UserID          string `dynamodbav:"userId"`
	UserName        string `dynamodbav:"userName"`
	UserNameVersion int    `dynamodbav:"userNameVersion"`
	Season          int    `dynamodbav:"season"`
	Points          int    `dynamodbav:"points"`
	Correct         int    `dynamodbav:"correct"`
	EventsPlayed    int    `dynamodbav:"eventsPlayed"`
	// Version grows with every write by scoring; writes are conditioned on it.
	Version int `dynamodbav:"version"`
}

func (r standingRow) toDomain() domain.Standing {
	return domain.Standing{
		Season:       r.Season,
		User:         domain.UserRef{ID: r.UserID, Name: r.UserName},
		Points:       r.Points,
		Correct:      r.Correct,
		EventsPlayed: r.EventsPlayed,
	}
}

// lockRow is one of an event's lock copies (keys.go): what a submit's condition reads,
// mirrored from the event row as of Rev, and the count of predictions of the copy's players.
// Submits add to Predictions (a first prediction, in its transaction); syncLocks writes the
// mirrored fields, only ever forward (Rev grows).
type lockRow struct {
	keys
	Type        string `dynamodbav:"type"`
	EventID     string `dynamodbav:"eventId"`
	Name        string `dynamodbav:"name"`
	StartsAt    string `dynamodbav:"startsAt"`
	State       string `dynamodbav:"state"`
	CardVersion int    `dynamodbav:"cardVersion"`
	Rev         int    `dynamodbav:"rev"`
	Predictions int    `dynamodbav:"predictions"`
}

// newLockRow is copy c of an event row, counting no prediction.
func newLockRow(ev eventRow, c int) lockRow {
	return lockRow{
		keys: keys{PK: lockPK(eventID(ev.ID), c), SK: lockSK}, Type: typeLock, EventID: ev.ID,
		Name: ev.Name, StartsAt: ev.StartsAt, State: ev.State, CardVersion: ev.CardVersion, Rev: ev.Rev,
	}
}

// checkpointRow is where scoring has got to in one shard of an event (keys.go): for card
// version CardVersion, every prediction of the shard whose index key is at most After has
// been passed, and Done of them were written for that version (each once: a prediction
// written for a version needs no other write for it). Written in the same transaction as
// the batch it covers, conditioned on the values read, so a batch is counted once and runs
// never skip or repeat one.
type checkpointRow struct {
	keys
	Type        string `dynamodbav:"type"`
	CardVersion int    `dynamodbav:"cardVersion"`
	After       string `dynamodbav:"after"`
	Done        int    `dynamodbav:"done"`
	// Picks counts the picks of the predictions written for CardVersion (pickKey → how
	// many), Picked how many predictions those are (pickcounts.go).
	Picks  map[string]int `dynamodbav:"picks,omitempty"`
	Picked int            `dynamodbav:"picked"`
	// By marks the scoring transaction that wrote it last (random per attempt), so that an
	// attempt whose answer was lost can tell it committed (batchCommitted).
	By string `dynamodbav:"by,omitempty"`
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// nilIfEmpty turns an empty slice into nil so that omitempty leaves the attribute out.
func nilIfEmpty[T any](s []T) []T {
	if len(s) == 0 {
		return nil
	}
	return s
}
