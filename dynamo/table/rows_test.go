package table

import (
	"reflect"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/pickem/api/domain"
)

const (
	rowsEvent = "2026-03-01-rows"
	rowsMatch = "00000000-0000-4000-8000-000000000001"
	rowsUser  = "u-rows"
)

func avS(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
func avN(v string) types.AttributeValue { return &types.AttributeValueMemberN{Value: v} }
func avB(v bool) types.AttributeValue   { return &types.AttributeValueMemberBOOL{Value: v} }
func avL(v ...types.AttributeValue) types.AttributeValue {
	return &types.AttributeValueMemberL{Value: v}
}
func avM(v map[string]types.AttributeValue) types.AttributeValue {
	return &types.AttributeValueMemberM{Value: v}
}

// Items as a store without the game's extras wrote them: every attribute they have.
func plainEventItem() map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		"PK": avS("EVENT"), "SK": avS("EVENT#" + rowsEvent), "GSI_PK": avS("EVENT#" + rowsEvent), "GSI_SK": avS("CARD#000"),
		"type": avS("event"), "id": avS(rowsEvent), "name": avS("Rows"), "startsAt": avS("2026-03-01T20:00:00Z"), "season": avN("2026"),
		"state": avS("UPCOMING"), "cardVersion": avN("1"), "cardHash": avS(CardHash([]domain.Match{plainMatch()})), "rev": avN("1"),
		"shards": avN("1"), "lockCopies": avN("1"), "scoredMatches": avN("0"), "scoredVersion": avN("0"),
	}
}

func plainMatchItem() map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		"PK": avS("EVENT#" + rowsEvent), "SK": avS("MATCH#" + rowsMatch), "GSI_PK": avS("EVENT#" + rowsEvent), "GSI_SK": avS("CARD#001"),
		"type": avS("match"), "eventId": avS(rowsEvent), "id": avS(rowsMatch), "position": avN("1"), "name": avS("Opener"),
		"points": avN("10"), "preshow": avB(false),
		"teams": avL(
			avM(map[string]types.AttributeValue{"members": avL(avS("A")), "champion": avB(false)}),
			avM(map[string]types.AttributeValue{"members": avL(avS("B")), "champion": avB(false)})),
		"result": avM(map[string]types.AttributeValue{"outcome": avS("WIN"), "winner": avN("1")}),
	}
}

func plainPredictionItem() map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		"PK": avS("USER#" + rowsUser), "SK": avS("EVENT#" + rowsEvent), "GSI_PK": avS("EVENT#" + rowsEvent), "GSI_SK": avS("UNSCORED#" + rowsUser),
		"type": avS("prediction"), "userId": avS(rowsUser), "userName": avS("Rows"), "userNameVersion": avN("1"),
		"eventId": avS(rowsEvent), "eventName": avS("Rows"), "eventStartsAt": avS("2026-03-01T20:00:00Z"), "season": avN("2026"),
		"picks":     avL(avM(map[string]types.AttributeValue{"matchId": avS(rowsMatch), "team": avN("1")})),
		"updatedAt": avS("2026-02-28T10:00:00Z"), "version": avN("1"),
	}
}

func plainMatch() domain.Match {
	w := 1
	return domain.Match{ID: rowsMatch, Position: 1, Name: "Opener", Points: 10, Championships: []string{},
		Teams:  []domain.Team{{Members: []string{"A"}}, {Members: []string{"B"}}},
		Result: &domain.MatchResult{Outcome: domain.OutcomeWin, Winner: &w}}
}

func plainEvent() domain.Event {
	return domain.Event{ID: rowsEvent, Name: "Rows", StartsAt: time.Date(2026, 3, 1, 20, 0, 0, 0, time.UTC),
		Stored: domain.StateUpcoming, CardVersion: 1}
}

func plainPrediction() domain.Prediction {
	start := time.Date(2026, 3, 1, 20, 0, 0, 0, time.UTC)
	return domain.Prediction{EventID: rowsEvent, Event: domain.EventRef{ID: rowsEvent, Name: "Rows", StartsAt: start},
		User: domain.UserRef{ID: rowsUser, Name: "Rows"}, Picks: []domain.Pick{{MatchID: rowsMatch, Team: 1}},
		UpdatedAt: time.Date(2026, 2, 28, 10, 0, 0, 0, time.UTC)}
}

// plainPredictionRow is the row a submit of plainPrediction's picks writes.
func plainPredictionRow() PredictionRow {
	uid, eid := UserID(rowsUser), EventID(rowsEvent)
	return PredictionRow{Keys: Keys{PK: UserPK(uid), SK: EventSK(eid)}, IndexKeys: IndexKeys{GSIPK: EventShardPK(eid, 0, 1), GSISK: PendingSK(uid)},
		Type: TypePrediction, UserID: rowsUser, UserName: "Rows", UserNameVersion: 1, EventID: rowsEvent, EventName: "Rows",
		EventStartsAt: "2026-03-01T20:00:00Z", Season: 2026, UpdatedAt: "2026-02-28T10:00:00Z", Version: 1}.
		WithEntry(domain.Entry{Picks: []domain.Pick{{MatchID: rowsMatch, Team: 1}}})
}

// TestPlainItemsAreUnchanged: an event, a match and a prediction that use none of the
// game's extras are written with exactly the attributes they always had, and items of that
// shape read back as the plain game (zero settings, no answer, no method, joker or guess).
func TestPlainItemsAreUnchanged(t *testing.T) {
	t.Run("WrittenAsBefore", func(t *testing.T) {
		row := NewEventRow(plainEvent(), 1)
		row.CardHash = CardHash([]domain.Match{plainMatch()})
		for name, tc := range map[string]struct {
			row  any
			want map[string]types.AttributeValue
		}{
			"Event":      {row, plainEventItem()},
			"Match":      {NewMatchRow(EventID(rowsEvent), plainMatch()), plainMatchItem()},
			"Prediction": {plainPredictionRow(), plainPredictionItem()},
		} {
			got, err := attributevalue.MarshalMap(tc.row)
			mustOK(t, err)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("%s: item = %v, want %v", name, got, tc.want)
			}
		}
	})
	t.Run("ReadAsBefore", func(t *testing.T) {
		var ev EventRow
		mustOK(t, attributevalue.UnmarshalMap(plainEventItem(), &ev))
		gotEv, err := ev.ToDomain()
		mustOK(t, err)
		if !reflect.DeepEqual(gotEv, plainEvent()) {
			t.Errorf("event = %+v, want %+v", gotEv, plainEvent())
		}
		var m MatchRow
		mustOK(t, attributevalue.UnmarshalMap(plainMatchItem(), &m))
		if got := m.ToDomain(); !reflect.DeepEqual(got, plainMatch()) {
			t.Errorf("match = %+v, want %+v", got, plainMatch())
		}
		var p PredictionRow
		mustOK(t, attributevalue.UnmarshalMap(plainPredictionItem(), &p))
		gotP, err := p.ToDomain()
		mustOK(t, err)
		if !reflect.DeepEqual(gotP, plainPrediction()) {
			t.Errorf("prediction = %+v, want %+v", gotP, plainPrediction())
		}
		if got := p.Entry(); got.Joker != nil || got.Tiebreaker != nil || got.Picks[0].Method != nil {
			t.Errorf("entry = %+v, want picks alone", got)
		}
	})
}

// TestGameAttributesRoundTrip: the settings and the answer on the event row, method points
// and a result's method on the match row, pick methods, the joker, the guess, pick points
// and the perfect card on the prediction row are stored and read back as they were.
func TestGameAttributesRoundTrip(t *testing.T) {
	q := "How long is the main event?"
	ev := plainEvent()
	ev.CardVersion = 4
	ev.Settings = domain.EventSettings{Jokers: true, PerfectCardBonus: 25, Tiebreaker: &q}
	ev.Answer = &domain.TiebreakerAnswer{Value: 0, Version: 4}
	m := plainMatch()
	m.MethodPoints = 5
	sub := domain.MethodSubmission
	m.Result.Method = &sub

	row := NewEventRow(ev, 1).WithAnswer(ev.Answer)
	var evBack EventRow
	roundTrip(t, row, &evBack)
	gotEv, err := evBack.ToDomain()
	mustOK(t, err)
	if !reflect.DeepEqual(gotEv, ev) {
		t.Errorf("event = %+v, want %+v", gotEv, ev)
	}
	if cleared := row.WithAnswer(nil).WithSettings(domain.EventSettings{}); !reflect.DeepEqual(cleared, NewEventRow(plainEvent(), 1).withVersion(4)) {
		t.Errorf("cleared row = %+v, want the plain one", cleared)
	}

	var mBack MatchRow
	roundTrip(t, NewMatchRow(EventID(rowsEvent), m), &mBack)
	if got := mBack.ToDomain(); !reflect.DeepEqual(got, m) {
		t.Errorf("match = %+v, want %+v", got, m)
	}

	joker, guess, perfect, pts := rowsMatch, 0, true, 30
	pin := domain.MethodPinfall
	p := plainPredictionRow().WithEntry(domain.Entry{Picks: []domain.Pick{{MatchID: rowsMatch, Team: 1, Method: &pin}}, Joker: &joker, Tiebreaker: &guess})
	p.Picks[0].Points = &pts
	p.Points, p.Correct, p.CorrectIDs, p.PerfectCard = &pts, new(int), []string{rowsMatch}, &perfect
	*p.Correct = 1
	var pBack PredictionRow
	roundTrip(t, p, &pBack)
	got, err := pBack.ToDomain()
	mustOK(t, err)
	want := plainPrediction()
	ok := true
	want.Picks = []domain.Pick{{MatchID: rowsMatch, Team: 1, Method: &pin, Correct: &ok, Points: &pts}}
	want.Points, want.Correct, want.Joker, want.Tiebreaker, want.PerfectCard = &pts, p.Correct, &joker, &guess, &perfect
	if !reflect.DeepEqual(got, want) {
		t.Errorf("prediction = %+v, want %+v", got, want)
	}
	if e := pBack.Entry(); !reflect.DeepEqual(e, domain.Entry{Picks: []domain.Pick{{MatchID: rowsMatch, Team: 1, Method: &pin}}, Joker: &joker, Tiebreaker: &guess}) {
		t.Errorf("entry = %+v", e)
	}
}

// TestStoredScore: the stored score carries the picks' points and the perfect card when
// scoring wrote them, and neither otherwise.
func TestStoredScore(t *testing.T) {
	ten, zero, yes := 10, 0, true
	for name, tc := range map[string]struct {
		picks   []PickRow
		perfect *bool
		want    domain.StoredScore
	}{
		"Plain": {picks: []PickRow{{MatchID: "a"}, {MatchID: "b"}},
			want: domain.StoredScore{Points: 10, Correct: 1, CorrectIDs: []string{"a"}, CardVersion: 3}},
		"Extras": {picks: []PickRow{{MatchID: "a", Points: &ten}, {MatchID: "b", Points: &zero}}, perfect: &yes,
			want: domain.StoredScore{Points: 10, Correct: 1, CorrectIDs: []string{"a"}, CardVersion: 3, PickPoints: []int{10, 0}, PerfectCard: &yes}},
	} {
		t.Run(name, func(t *testing.T) {
			three, one := 3, 1
			r := PredictionRow{Picks: tc.picks, Points: &ten, Correct: &one, CorrectIDs: []string{"a"}, ScoredWith: &three, PerfectCard: tc.perfect}
			if got := r.StoredScore(); got == nil || !got.Equal(tc.want) {
				t.Errorf("StoredScore = %+v, want %+v", got, tc.want)
			}
		})
	}
	if got := (PredictionRow{}).StoredScore(); got != nil {
		t.Errorf("unscored row: StoredScore = %+v, want nil", got)
	}
}

func roundTrip(t *testing.T, in, out any) {
	t.Helper()
	item, err := attributevalue.MarshalMap(in)
	mustOK(t, err)
	mustOK(t, attributevalue.UnmarshalMap(item, out))
}

func (r EventRow) withVersion(v int) EventRow {
	r.CardVersion = v
	return r
}

// sizeOf is the billed size of row's item.
func sizeOf(t *testing.T, row any) int {
	t.Helper()
	item, err := attributevalue.MarshalMap(row)
	mustOK(t, err)
	return ItemSize(item)
}

// TestGameAttributeBytes pins what each of the game's attributes adds to an item as
// DynamoDB bills it (ItemSize), with the values docs/decisions/game-storage.md quotes; an
// item that uses none of them gains nothing (TestPlainItemsAreUnchanged).
func TestGameAttributeBytes(t *testing.T) {
	q := "How many seconds will the main event last?" // 42 bytes
	ev := NewEventRow(plainEvent(), 1)
	m := NewMatchRow(EventID(rowsEvent), plainMatch())
	p := plainPredictionRow()
	pin, disq := domain.MethodPinfall, domain.MethodDisqualification
	joker, guess, points, perfect := rowsMatch, 754, 40, true
	for _, tt := range []struct {
		name       string
		plain, got any
		want       int
	}{
		{"EventJokers", ev, ev.WithSettings(domain.EventSettings{Jokers: true}), 7},
		{"EventPerfectCardBonus25", ev, ev.WithSettings(domain.EventSettings{PerfectCardBonus: 25}), 18},
		{"EventTiebreakerQuestion", ev, ev.WithSettings(domain.EventSettings{Tiebreaker: &q}), 52},
		{"EventAnswer754AtVersion12", ev, ev.WithAnswer(&domain.TiebreakerAnswer{Value: 754, Version: 12}), 6 + 3 + 13 + 2},
		{"MatchMethodPoints5", m, func() MatchRow { r := m; r.MethodPoints = 5; return r }(), 14},
		{"ResultMethodPinfall", m, func() MatchRow {
			r := NewMatchRow(EventID(rowsEvent), plainMatch())
			r.Result.Method = string(pin)
			return r
		}(), 14},
		{"ResultMethodDisqualification", m, func() MatchRow {
			r := NewMatchRow(EventID(rowsEvent), plainMatch())
			r.Result.Method = string(disq)
			return r
		}(), 23},
		{"PickMethodPinfall", p, p.WithEntry(domain.Entry{Picks: []domain.Pick{{MatchID: rowsMatch, Team: 1, Method: &pin}}}), 14},
		{"Joker", p, p.WithEntry(domain.Entry{Picks: p.DomainPicks(), Joker: &joker}), 41},
		{"Guess754", p, p.WithEntry(domain.Entry{Picks: p.DomainPicks(), Tiebreaker: &guess}), 13},
		{"PickPoints40", p, func() PredictionRow { r := plainPredictionRow(); r.Picks[0].Points = &points; return r }(), 9},
		{"PerfectCard", p, func() PredictionRow { r := plainPredictionRow(); r.PerfectCard = &perfect; return r }(), 12},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := sizeOf(t, tt.got) - sizeOf(t, tt.plain); got != tt.want {
				t.Errorf("adds %d bytes, want %d", got, tt.want)
			}
		})
	}
}
