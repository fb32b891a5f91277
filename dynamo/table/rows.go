package table

import (
	"fmt"
	"slices"
	"time"

	"github.com/pickem/api/domain"
)

// Item types, stored in the "type" attribute of every item.
const (
	TypeUser       = "user"
	TypeEvent      = "event"
	TypeMatch      = "match"
	TypePrediction = "prediction"
	TypeStanding   = "standing"
	TypeSeason     = "season"
	TypeLock       = "lock"
	TypeCheckpoint = "scoring"
)

// timeLayout stores instants as fixed-width UTC strings so that they compare as strings in
// condition expressions.
const timeLayout = "2006-01-02T15:04:05Z"

// FormatTime is t as stored: UTC, whole seconds, fixed width (timeLayout).
func FormatTime(t time.Time) string { return t.UTC().Truncate(time.Second).Format(timeLayout) }

// ParseTime reads an instant FormatTime wrote.
func ParseTime(s string) (time.Time, error) { return time.Parse(timeLayout, s) }

// Keys is the primary key of an item.
type Keys struct {
	PK string `dynamodbav:"PK"`
	SK string `dynamodbav:"SK"`
}

// IndexKeys are the GSI attributes of an item that is in the index.
type IndexKeys struct {
	GSIPK string `dynamodbav:"GSI_PK"`
	GSISK string `dynamodbav:"GSI_SK"`
}

// UserRow is a player's profile. NameVersion grows with every rename; the copies of the
// name on the player's other items carry the version they copied.
type UserRow struct {
	Keys
	Type        string `dynamodbav:"type"`
	ID          string `dynamodbav:"id"`
	Name        string `dynamodbav:"name"`
	NameVersion int    `dynamodbav:"nameVersion"`
	CreatedAt   string `dynamodbav:"createdAt"`
}

// NewUserRow is the profile of a player registering (or making a first prediction) with
// name at created.
func NewUserRow(uid UserID, name string, created time.Time) UserRow {
	return UserRow{
		Keys: Keys{PK: UserPK(uid), SK: UserSK}, Type: TypeUser, ID: string(uid),
		Name: name, NameVersion: 1, CreatedAt: FormatTime(created),
	}
}

// EventRow is an event's item (without its card: the matches are items of their own).
type EventRow struct {
	Keys
	IndexKeys
	Type        string `dynamodbav:"type"`
	ID          string `dynamodbav:"id"`
	Name        string `dynamodbav:"name"`
	StartsAt    string `dynamodbav:"startsAt"`
	Season      int    `dynamodbav:"season"`
	State       string `dynamodbav:"state"`
	CardVersion int    `dynamodbav:"cardVersion"`
	// CardHash is CardHash of the matches as of CardVersion, written in the same
	// transaction as every card change: a reader holding an event row and match rows from
	// two moments (an index that lags, two reads in parallel) sees the hash disagree.
	CardHash string `dynamodbav:"cardHash"`
	// Rev grows by one with every change of what a submit's condition reads (name, start,
	// state, card version); the lock copies carry the Rev they mirror.
	Rev int `dynamodbav:"rev"`
	// Shards is how many index partitions the event's predictions are spread over, and
	// LockCopies how many lock copies it has (see the package doc): set when the event is
	// created and never changed.
	Shards     int `dynamodbav:"shards"`
	LockCopies int `dynamodbav:"lockCopies"`
	// ScoredMatches and ScoredVersion are what the last complete scoring pass counted (the
	// matches with a result) and the card version it reflects; written with the pass's last
	// step, 0 before any.
	ScoredMatches int `dynamodbav:"scoredMatches"`
	ScoredVersion int `dynamodbav:"scoredVersion"`
	// The game settings (domain.EventSettings) and the tie-breaker answer
	// (domain.TiebreakerAnswer): each attribute exists only while it holds something, so an
	// event that uses none of them is stored and read as one without the game's extras.
	Jokers           bool   `dynamodbav:"jokers,omitempty"`
	PerfectCardBonus int    `dynamodbav:"perfectCardBonus,omitempty"`
	Tiebreaker       string `dynamodbav:"tiebreaker,omitempty"` // the question; "": none
	Answer           *int   `dynamodbav:"answer,omitempty"`
	AnswerVersion    int    `dynamodbav:"answerVersion,omitempty"` // the card version setting Answer made
	// LiveVersion is domain.Event.LiveVersion: it grows by one inside the transaction of
	// each commit that publishes a live message, and is absent while 0.
	LiveVersion int `dynamodbav:"liveVersion,omitempty"`
}

// NewEventRow is the row of a new event of shards shards.
func NewEventRow(e domain.Event, shards int) EventRow {
	id := EventID(e.ID)
	return EventRow{
		Keys:        Keys{PK: eventsPK, SK: EventSK(id)},
		IndexKeys:   IndexKeys{GSIPK: EventPK(id), GSISK: eventCard},
		Type:        TypeEvent,
		ID:          e.ID,
		Name:        e.Name,
		StartsAt:    FormatTime(e.StartsAt),
		Season:      e.Season(),
		State:       string(e.Stored),
		CardVersion: e.CardVersion,
		CardHash:    CardHash(e.Matches),
		Rev:         1,
		Shards:      shards,
		LockCopies:  LockCopies(shards),
	}.WithSettings(e.Settings)
}

// WithSettings returns the row holding the game settings s (cleaned: domain.CleanSettings).
func (r EventRow) WithSettings(s domain.EventSettings) EventRow {
	r.Jokers, r.PerfectCardBonus, r.Tiebreaker = s.Jokers, s.PerfectCardBonus, ""
	if s.Tiebreaker != nil {
		r.Tiebreaker = *s.Tiebreaker
	}
	return r
}

// WithAnswer returns the row holding the tie-breaker answer a (nil: none).
func (r EventRow) WithAnswer(a *domain.TiebreakerAnswer) EventRow {
	r.Answer, r.AnswerVersion = nil, 0
	if a != nil {
		v := a.Value
		r.Answer, r.AnswerVersion = &v, a.Version
	}
	return r
}

// SeasonRow is a season's item: how many index partitions its standings are spread over,
// set by the creation of its first event and never changed.
type SeasonRow struct {
	Keys
	IndexKeys
	Type   string `dynamodbav:"type"`
	Season int    `dynamodbav:"season"`
	Shards int    `dynamodbav:"shards"`
}

// NewSeasonRow is the item of a season whose standings have shards shards.
func NewSeasonRow(season, shards int) SeasonRow {
	return SeasonRow{Keys: Keys{PK: SeasonPK(season), SK: seasonSK}, IndexKeys: IndexKeys{GSIPK: SeasonPK(season), GSISK: seasonInfo},
		Type: TypeSeason, Season: season, Shards: shards}
}

// ToDomain is the event of the row, without its card.
func (r EventRow) ToDomain() (domain.Event, error) {
	start, err := ParseTime(r.StartsAt)
	if err != nil {
		return domain.Event{}, fmt.Errorf("event %s: startsAt: %w", r.ID, err)
	}
	ev := domain.Event{ID: r.ID, Name: r.Name, StartsAt: start, Stored: domain.EventState(r.State), CardVersion: r.CardVersion,
		ScoredMatches: r.ScoredMatches, ScoredVersion: r.ScoredVersion, LiveVersion: r.LiveVersion,
		Settings: domain.EventSettings{Jokers: r.Jokers, PerfectCardBonus: r.PerfectCardBonus}}
	if r.Tiebreaker != "" {
		q := r.Tiebreaker
		ev.Settings.Tiebreaker = &q
	}
	if r.Answer != nil {
		ev.Answer = &domain.TiebreakerAnswer{Value: *r.Answer, Version: r.AnswerVersion}
	}
	return ev, nil
}

// TeamRow is a team of a match.
type TeamRow struct {
	Name     *string  `dynamodbav:"name,omitempty"`
	Members  []string `dynamodbav:"members"`
	Champion bool     `dynamodbav:"champion"`
}

// ResultRow is a match's result.
type ResultRow struct {
	Outcome string `dynamodbav:"outcome"`
	Winner  *int   `dynamodbav:"winner,omitempty"`
	Method  string `dynamodbav:"method,omitempty"` // how a WIN was won; "": not given
}

// MatchRow is a match of an event's card.
type MatchRow struct {
	Keys
	IndexKeys
	Type          string     `dynamodbav:"type"`
	EventID       string     `dynamodbav:"eventId"`
	ID            string     `dynamodbav:"id"`
	Position      int        `dynamodbav:"position"`
	Name          string     `dynamodbav:"name"`
	Points        int        `dynamodbav:"points"`
	MethodPoints  int        `dynamodbav:"methodPoints,omitempty"` // no attribute for no method pick
	Preshow       bool       `dynamodbav:"preshow"`
	Championships []string   `dynamodbav:"championships,omitempty"` // no attribute for no championships
	Teams         []TeamRow  `dynamodbav:"teams"`
	Result        *ResultRow `dynamodbav:"result,omitempty"`
	// PickCounts is how many predictions picked each team, written by scoring
	// (package scoring); every card write carries it over (domain.Match.PickCounts).
	PickCounts []int `dynamodbav:"pickCounts,omitempty"`
}

// NewMatchRow is the item of match m of event e.
func NewMatchRow(e EventID, m domain.Match) MatchRow {
	teams := make([]TeamRow, len(m.Teams))
	for i, t := range m.Teams {
		teams[i] = TeamRow{Name: t.Name, Members: t.Members, Champion: t.Champion}
	}
	row := MatchRow{
		Keys:          Keys{PK: EventPK(e), SK: MatchSK(MatchID(m.ID))},
		IndexKeys:     IndexKeys{GSIPK: EventPK(e), GSISK: CardSK(m.Position)},
		Type:          TypeMatch,
		EventID:       string(e),
		ID:            m.ID,
		Position:      m.Position,
		Name:          m.Name,
		Points:        m.Points,
		MethodPoints:  m.MethodPoints,
		Preshow:       m.Preshow,
		Championships: nilIfEmpty(m.Championships),
		Teams:         teams,
	}
	if m.Result != nil {
		row.Result = &ResultRow{Outcome: string(m.Result.Outcome), Winner: m.Result.Winner}
		if m.Result.Method != nil {
			row.Result.Method = string(*m.Result.Method)
		}
	}
	if len(m.PickCounts) > 0 {
		row.PickCounts = slices.Clone(m.PickCounts)
	}
	return row
}

// ToDomain is the match of the row.
func (r MatchRow) ToDomain() domain.Match {
	teams := make([]domain.Team, len(r.Teams))
	for i, t := range r.Teams {
		teams[i] = domain.Team{Name: t.Name, Members: nonNil(t.Members), Champion: t.Champion}
	}
	m := domain.Match{
		ID:            r.ID,
		Position:      r.Position,
		Name:          r.Name,
		Points:        r.Points,
		MethodPoints:  r.MethodPoints,
		Preshow:       r.Preshow,
		Championships: nonNil(r.Championships),
		Teams:         teams,
		PickCounts:    r.PickCounts,
	}
	if r.Result != nil {
		m.Result = &domain.MatchResult{Outcome: domain.Outcome(r.Result.Outcome), Winner: r.Result.Winner, Method: methodOf(r.Result.Method)}
	}
	return m
}

// methodOf is a stored method ("": none) as the domain holds it.
func methodOf(s string) *domain.VictoryMethod {
	if s == "" {
		return nil
	}
	m := domain.VictoryMethod(s)
	return &m
}

// PickRow is a pick of a prediction: a team (index) of a match, and the predicted method
// of victory when the player gave one.
type PickRow struct {
	MatchID string `dynamodbav:"matchId"`
	Team    int    `dynamodbav:"team"`
	Method  string `dynamodbav:"method,omitempty"` // "": none
	// Points is what the last scoring write gave the pick, written by scoring only for an
	// event with domain.Event.ExtraScoring.
	Points *int `dynamodbav:"points,omitempty"`
}

// NewPickRows are the rows of picks as a submit stores them (team and method; no points).
func NewPickRows(picks []domain.Pick) []PickRow {
	rows := make([]PickRow, len(picks))
	for i, p := range picks {
		rows[i] = PickRow{MatchID: p.MatchID, Team: p.Team}
		if p.Method != nil {
			rows[i].Method = string(*p.Method)
		}
	}
	return rows
}

// PredictionRow is a player's prediction for an event, with copies of the player's name
// and of the event's name and start.
type PredictionRow struct {
	Keys
	IndexKeys
	Type            string    `dynamodbav:"type"`
	UserID          string    `dynamodbav:"userId"`
	UserName        string    `dynamodbav:"userName"`
	UserNameVersion int       `dynamodbav:"userNameVersion"`
	EventID         string    `dynamodbav:"eventId"`
	EventName       string    `dynamodbav:"eventName"`
	EventStartsAt   string    `dynamodbav:"eventStartsAt"`
	Season          int       `dynamodbav:"season"`
	Picks           []PickRow `dynamodbav:"picks"`
	// Points, Correct and CorrectIDs are set by scoring only.
	Points     *int     `dynamodbav:"points,omitempty"`
	Correct    *int     `dynamodbav:"correct,omitempty"`
	CorrectIDs []string `dynamodbav:"correctIds,omitempty"`
	// ScoredWith is the event's cardVersion the score was computed from.
	ScoredWith *int `dynamodbav:"scoredWith,omitempty"`
	// Joker (a picked match's id; "": none) and Tiebreaker (the guess) are the player's,
	// stored only when given.
	Joker      string `dynamodbav:"joker,omitempty"`
	Tiebreaker *int   `dynamodbav:"tiebreaker,omitempty"`
	// PerfectCard is written by a final scoring pass of an event with
	// domain.Event.ExtraScoring only.
	PerfectCard *bool  `dynamodbav:"perfectCard,omitempty"`
	UpdatedAt   string `dynamodbav:"updatedAt"`
	// Version grows by one with every write of the prediction (submit, scoring, renames);
	// every write is conditioned on the version it read. (updatedAt has one-second
	// resolution and is for display only.)
	Version int `dynamodbav:"version"`
}

// StoredScore is what scoring last wrote on the row, or nil if it was never scored.
func (r PredictionRow) StoredScore() *domain.StoredScore {
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
	if slices.ContainsFunc(r.Picks, func(p PickRow) bool { return p.Points != nil }) {
		s.PickPoints = make([]int, len(r.Picks))
		for i, p := range r.Picks {
			if p.Points != nil {
				s.PickPoints[i] = *p.Points
			}
		}
	}
	s.PerfectCard = r.PerfectCard
	return s
}

// DomainPicks are the row's picks (team and method), without their correctness and points.
func (r PredictionRow) DomainPicks() []domain.Pick {
	picks := make([]domain.Pick, len(r.Picks))
	for i, p := range r.Picks {
		picks[i] = domain.Pick{MatchID: p.MatchID, Team: p.Team, Method: methodOf(p.Method)}
	}
	return picks
}

// Entry is what the player submitted: the picks (DomainPicks), the joker and the guess.
func (r PredictionRow) Entry() domain.Entry {
	e := domain.Entry{Picks: r.DomainPicks(), Tiebreaker: r.Tiebreaker}
	if r.Joker != "" {
		j := r.Joker
		e.Joker = &j
	}
	return e
}

// WithEntry returns the row holding entry e (picks in the order given, joker, guess), as a
// submit writes it: no score.
func (r PredictionRow) WithEntry(e domain.Entry) PredictionRow {
	r.Picks, r.Joker, r.Tiebreaker = NewPickRows(e.Picks), "", nil
	if e.Joker != nil {
		r.Joker = *e.Joker
	}
	if e.Tiebreaker != nil {
		v := *e.Tiebreaker
		r.Tiebreaker = &v
	}
	return r
}

// ToDomain is the prediction of the row, its picks marked correct or not once scored.
func (r PredictionRow) ToDomain() (domain.Prediction, error) {
	start, err := ParseTime(r.EventStartsAt)
	if err != nil {
		return domain.Prediction{}, fmt.Errorf("prediction %s/%s: eventStartsAt: %w", r.UserID, r.EventID, err)
	}
	updated, err := ParseTime(r.UpdatedAt)
	if err != nil {
		return domain.Prediction{}, fmt.Errorf("prediction %s/%s: updatedAt: %w", r.UserID, r.EventID, err)
	}
	e := r.Entry()
	for i, p := range r.Picks {
		if r.Points != nil {
			ok := slices.Contains(r.CorrectIDs, p.MatchID)
			e.Picks[i].Correct = &ok
		}
		e.Picks[i].Points = p.Points
	}
	return domain.Prediction{
		EventID:     r.EventID,
		Event:       domain.EventRef{ID: r.EventID, Name: r.EventName, StartsAt: start},
		User:        domain.UserRef{ID: r.UserID, Name: r.UserName},
		Picks:       e.Picks,
		Points:      r.Points,
		Correct:     r.Correct,
		UpdatedAt:   updated,
		Joker:       e.Joker,
		Tiebreaker:  e.Tiebreaker,
		PerfectCard: r.PerfectCard,
	}, nil
}

// StandingRow is a player's standing in a season: the sums of their scored predictions.
type StandingRow struct {
	Keys
	IndexKeys
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

// ToDomain is the standing of the row, unranked.
func (r StandingRow) ToDomain() domain.Standing {
	return domain.Standing{
		Season:       r.Season,
		User:         domain.UserRef{ID: r.UserID, Name: r.UserName},
		Points:       r.Points,
		Correct:      r.Correct,
		EventsPlayed: r.EventsPlayed,
	}
}

// LockRow is one of an event's lock copies (see the package doc): what a submit's condition
// reads, mirrored from the event row as of Rev, and the count of predictions of the copy's
// players. Submits add to Predictions (a first prediction, in its transaction); the store's
// lock sync writes the mirrored fields, only ever forward (Rev grows).
type LockRow struct {
	Keys
	Type        string `dynamodbav:"type"`
	EventID     string `dynamodbav:"eventId"`
	Name        string `dynamodbav:"name"`
	StartsAt    string `dynamodbav:"startsAt"`
	State       string `dynamodbav:"state"`
	CardVersion int    `dynamodbav:"cardVersion"`
	Rev         int    `dynamodbav:"rev"`
	Predictions int    `dynamodbav:"predictions"`
}

// NewLockRow is copy c of an event row, counting no prediction.
func NewLockRow(ev EventRow, c int) LockRow {
	return LockRow{
		Keys: Keys{PK: LockPK(EventID(ev.ID), c), SK: LockSK}, Type: TypeLock, EventID: ev.ID,
		Name: ev.Name, StartsAt: ev.StartsAt, State: ev.State, CardVersion: ev.CardVersion, Rev: ev.Rev,
	}
}

// CheckpointRow is where scoring has got to in one shard of an event (see the package doc):
// for card version CardVersion, every prediction of the shard whose index key is at most
// After has been passed, and Done of them were written for that version (each once: a
// prediction written for a version needs no other write for it). Written in the same
// transaction as the batch it covers, conditioned on the values read, so a batch is counted
// once and runs never skip or repeat one.
type CheckpointRow struct {
	Keys
	Type        string `dynamodbav:"type"`
	CardVersion int    `dynamodbav:"cardVersion"`
	After       string `dynamodbav:"after"`
	Done        int    `dynamodbav:"done"`
	// Picks counts the picks of the predictions written for CardVersion (PickKey → how
	// many), Picked how many predictions those are (PickKey).
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

// leaderboardRowAttrs are what a leaderboard row without its picks is read with (the score
// key that ranked pages are merged by, and what PredictionRow.ToDomain shows, the joker,
// the guess and the perfect card included: a leaderboard row is of a locked event, whose
// predictions every player may see): a prediction's picks and correctIds are most of its
// size, and DynamoDB sends only what is projected (it bills the whole item either way).
var leaderboardRowAttrs = []string{attrGSISK, "userId", "userName", "eventId", "eventName", "eventStartsAt", "points", "correct", "updatedAt",
	"joker", "tiebreaker", "perfectCard"}
