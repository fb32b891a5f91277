package server_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/pickem/api/domain"
)

func newRecorder() *httptest.ResponseRecorder { return httptest.NewRecorder() }

func newRequest(t *testing.T, method, path string, body io.Reader) *http.Request {
	t.Helper()
	return httptest.NewRequestWithContext(t.Context(), method, path, body)
}

// failingStore is a resolvers.Store for tests that must not reach storage at all (CORS
// preflight, health, playground, oversized bodies): every call fails the test.
type failingStore struct{ t *testing.T }

var errStub = domain.Errorf(domain.CodeInternal, "failingStore called")

func (s failingStore) fail(method string) {
	s.t.Helper()
	s.t.Errorf("the store was called (%s) but this request must not reach it", method)
}

func (s failingStore) ListEvents(context.Context, *int, int, string) (domain.Page[domain.Event], error) {
	s.fail("ListEvents")
	return domain.Page[domain.Event]{}, errStub
}
func (s failingStore) GetProfile(context.Context, string) (domain.User, error) {
	s.fail("GetProfile")
	return domain.User{}, errStub
}
func (s failingStore) GetEvent(context.Context, string) (domain.Event, error) {
	s.fail("GetEvent")
	return domain.Event{}, errStub
}
func (s failingStore) GetEventWithLeaderboard(context.Context, string, int, bool) (domain.Event, domain.Page[domain.Prediction], error) {
	s.fail("GetEventWithLeaderboard")
	return domain.Event{}, domain.Page[domain.Prediction]{}, errStub
}
func (s failingStore) EventLeaderboard(context.Context, domain.Event, int, string, bool) (domain.Page[domain.Prediction], error) {
	s.fail("EventLeaderboard")
	return domain.Page[domain.Prediction]{}, errStub
}
func (s failingStore) GetPrediction(context.Context, string, string, bool) (domain.Prediction, error) {
	s.fail("GetPrediction")
	return domain.Prediction{}, errStub
}
func (s failingStore) GetEventState(context.Context, string) (domain.Event, error) {
	s.fail("GetEventState")
	return domain.Event{}, errStub
}
func (s failingStore) Standings(context.Context, int, int, string) (domain.Page[domain.Standing], error) {
	s.fail("Standings")
	return domain.Page[domain.Standing]{}, errStub
}
func (s failingStore) GetUser(context.Context, string, int, bool) (domain.User, domain.Page[domain.Prediction], error) {
	s.fail("GetUser")
	return domain.User{}, domain.Page[domain.Prediction]{}, errStub
}
func (s failingStore) UserPredictions(context.Context, string, int, string, bool) (domain.Page[domain.Prediction], error) {
	s.fail("UserPredictions")
	return domain.Page[domain.Prediction]{}, errStub
}
func (s failingStore) Register(context.Context, string, string) (domain.User, error) {
	s.fail("Register")
	return domain.User{}, errStub
}
func (s failingStore) SubmitPrediction(context.Context, domain.UserRef, string, domain.Entry) (domain.Prediction, error) {
	s.fail("SubmitPrediction")
	return domain.Prediction{}, errStub
}
func (s failingStore) CreateEvent(context.Context, domain.EventSpec) (domain.Event, error) {
	s.fail("CreateEvent")
	return domain.Event{}, errStub
}
func (s failingStore) UpdateEvent(context.Context, string, domain.EventUpdate) (domain.Event, error) {
	s.fail("UpdateEvent")
	return domain.Event{}, errStub
}
func (s failingStore) AddMatch(context.Context, string, domain.MatchSpec) (domain.Match, error) {
	s.fail("AddMatch")
	return domain.Match{}, errStub
}
func (s failingStore) UpdateMatch(context.Context, string, string, domain.MatchUpdate) (domain.Match, error) {
	s.fail("UpdateMatch")
	return domain.Match{}, errStub
}
func (s failingStore) RemoveMatch(context.Context, string, string) error {
	s.fail("RemoveMatch")
	return errStub
}
func (s failingStore) ReorderMatches(context.Context, string, []string) ([]domain.Match, error) {
	s.fail("ReorderMatches")
	return nil, errStub
}
func (s failingStore) SetResult(context.Context, string, string, *domain.MatchResult) (domain.Match, error) {
	s.fail("SetResult")
	return domain.Match{}, errStub
}
func (s failingStore) SetTiebreakerAnswer(context.Context, string, *int) (domain.Event, error) {
	s.fail("SetTiebreakerAnswer")
	return domain.Event{}, errStub
}
func (s failingStore) ScoreEvent(context.Context, string, bool) (domain.ScoreReport, error) {
	s.fail("ScoreEvent")
	return domain.ScoreReport{}, errStub
}
func (s failingStore) GetLeague(context.Context, string, string, bool) (domain.League, bool, error) {
	s.fail("GetLeague")
	return domain.League{}, false, errStub
}
func (s failingStore) LeagueByInvite(context.Context, string) (domain.League, error) {
	s.fail("LeagueByInvite")
	return domain.League{}, errStub
}
func (s failingStore) UserLeagues(context.Context, string) ([]domain.League, error) {
	s.fail("UserLeagues")
	return nil, errStub
}
func (s failingStore) LeagueStandings(context.Context, domain.League, int, int, string) (domain.Page[domain.Standing], error) {
	s.fail("LeagueStandings")
	return domain.Page[domain.Standing]{}, errStub
}
func (s failingStore) CreateLeague(context.Context, domain.UserRef, string) (domain.League, error) {
	s.fail("CreateLeague")
	return domain.League{}, errStub
}
func (s failingStore) JoinLeague(context.Context, domain.UserRef, string) (domain.League, error) {
	s.fail("JoinLeague")
	return domain.League{}, errStub
}
func (s failingStore) LeaveLeague(context.Context, string, string) error {
	s.fail("LeaveLeague")
	return errStub
}
func (s failingStore) DeleteUser(context.Context, string) error {
	s.fail("DeleteUser")
	return errStub
}
func (s failingStore) RenameLeague(context.Context, string, string) (domain.League, error) {
	s.fail("RenameLeague")
	return domain.League{}, errStub
}
func (s failingStore) DeleteLeague(context.Context, string) error {
	s.fail("DeleteLeague")
	return errStub
}
func (s failingStore) RenamePlayer(context.Context, string, string) (domain.User, error) {
	s.fail("RenamePlayer")
	return domain.User{}, errStub
}
func (s failingStore) RotateInviteCode(context.Context, string, string) (domain.League, error) {
	s.fail("RotateInviteCode")
	return domain.League{}, errStub
}
func (s failingStore) AuditLog(context.Context, string, int, string) (domain.Page[domain.AuditEntry], error) {
	s.fail("AuditLog")
	return domain.Page[domain.AuditEntry]{}, errStub
}
