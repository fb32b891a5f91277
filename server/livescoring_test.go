package server_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/pickem/api/internal/cachehint"
	"github.com/pickem/api/server"
)

// liveData is the answer of the Live query of TestLiveScoringAPI.
type liveData struct {
	Event struct {
		State         string
		ScoredMatches int
		Matches       []struct{ PickCounts []int }
		Leaderboard   struct {
			Edges []struct {
				Node struct {
					User   struct{ ID string }
					Points int
					Rank   int
					Picks  []struct{ Team int }
				}
			}
		}
	}
}

// TestLiveScoringAPI: scoreEvent on a locked event with some results scores them live
// (provisional points and ranks on the leaderboard, the event stays BROADCAST,
// scoredMatches and the matches' pickCounts follow each complete pass), refuses an open
// event and an event without a result (extensions.code), and the last result makes it
// SCORED. Anonymous GETs of a persisted event(id) query are public for cachehint.Live
// while the event is BROADCAST, server.DefaultPublicMaxAge otherwise.
func TestLiveScoringAPI(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin := e.admin(t)
	start := t0.Add(3 * time.Hour)
	ev := e.createEvent(t, "Live Night", start, threeMatchCard()...)
	players := map[string][]int{"p-lia": {0, 0, 1}, "p-lou": {1, 0, 0}, "p-lux": {0, 1, 1}}
	for id, choice := range players {
		e.submit(t, e.token(t, id, "Player "+id[2:]), ev, choice...)
	}
	const scoreLive = `mutation($e: ID!) { scoreEvent(eventId: $e) { complete final scoredMatches predictionsScored } }`
	type report struct {
		Complete, Final                  bool
		ScoredMatches, PredictionsScored int
	}
	score := func(t *testing.T) (report, []gqlErr) {
		t.Helper()
		d, errs := gql[struct{ ScoreEvent *report }](t, e, admin, scoreLive, map[string]any{"e": ev.ID})
		if d.ScoreEvent == nil {
			return report{}, errs
		}
		return *d.ScoreEvent, errs
	}
	const live = `query Live($id: ID!) { event(id: $id) { state scoredMatches matches { pickCounts }
  leaderboard(first: 10) { edges { node { user { id } points rank picks { team } } } } } }`
	sum := sha256.Sum256([]byte(live))
	hash := hex.EncodeToString(sum[:])
	_, resp := e.post(t, "", map[string]any{"query": live, "variables": map[string]any{"id": ev.ID},
		"extensions": map[string]any{"persistedQuery": map[string]any{"version": 1, "sha256Hash": hash}}}, nil)
	noErrors(t, resp.Errors)
	poll := func(t *testing.T) (liveData, string) {
		t.Helper()
		q := url.Values{"variables": {`{"id":"` + ev.ID + `"}`}, "extensions": {`{"persistedQuery":{"version":1,"sha256Hash":"` + hash + `"}}`}}
		w := e.do(t, http.MethodGet, "/graphql?"+q.Encode(), nil, nil)
		var out struct {
			Data   liveData
			Errors []gqlErr
		}
		if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil {
			t.Fatalf("answer %s: %v", w.Body.String(), err)
		}
		noErrors(t, out.Errors)
		return out.Data, w.Header().Get("Cache-Control")
	}
	maxAge := func(d time.Duration) string { return "public, max-age=" + strconv.Itoa(int(d/time.Second)) }
	// Pick counts every player's picks give, per match.
	wantCounts := [][]int{{2, 1}, {2, 1}, {1, 2}}

	t.Run("OpenEventIsBadInput", func(t *testing.T) {
		_, errs := score(t)
		wantCode(t, errs, "BAD_USER_INPUT")
		d, cc := poll(t)
		if d.Event.State != "UPCOMING" || d.Event.ScoredMatches != 0 || d.Event.Matches[0].PickCounts != nil || cc != maxAge(server.DefaultPublicMaxAge) {
			t.Fatalf("open event %+v, Cache-Control %q", d.Event, cc)
		}
	})
	e.clock.Set(start.Add(time.Minute)) // locked by its start
	t.Run("NoResultIsBadInput", func(t *testing.T) {
		_, errs := score(t)
		wantCode(t, errs, "BAD_USER_INPUT")
		d, cc := poll(t)
		if d.Event.State != "BROADCAST" || len(d.Event.Leaderboard.Edges) != 0 || cc != maxAge(cachehint.Live) {
			t.Fatalf("locked event %+v, Cache-Control %q", d.Event, cc)
		}
	})
	t.Run("OneResultScoresLive", func(t *testing.T) {
		e.setWinners(t, ev, 0) // Main Event (10 points): team 0
		rep, errs := score(t)
		noErrors(t, errs)
		if rep != (report{Complete: true, Final: false, ScoredMatches: 1, PredictionsScored: 3}) {
			t.Fatalf("report %+v", rep)
		}
		d, cc := poll(t)
		if d.Event.State != "BROADCAST" || d.Event.ScoredMatches != 1 || cc != maxAge(cachehint.Live) {
			t.Fatalf("event %+v, Cache-Control %q", d.Event, cc)
		}
		board := d.board(t)
		if want := map[string][2]int{"p-lia": {10, 1}, "p-lux": {10, 1}, "p-lou": {0, 3}}; !maps.Equal(board, want) {
			t.Fatalf("provisional leaderboard %v, want %v", board, want)
		}
		for i, m := range d.Event.Matches {
			if !slices.Equal(m.PickCounts, wantCounts[i]) {
				t.Fatalf("match %d pickCounts %v, want %v", i, m.PickCounts, wantCounts[i])
			}
		}
	})
	t.Run("LastResultIsFinal", func(t *testing.T) {
		e.setWinners(t, ev, 0, 1, 1) // Women's Title: team 1 (5), Opener: team 1 (5)
		rep, errs := score(t)
		noErrors(t, errs)
		if rep != (report{Complete: true, Final: true, ScoredMatches: 3, PredictionsScored: 3}) {
			t.Fatalf("report %+v", rep)
		}
		d, cc := poll(t)
		if d.Event.State != "SCORED" || d.Event.ScoredMatches != 3 || cc != maxAge(server.DefaultPublicMaxAge) {
			t.Fatalf("event %+v, Cache-Control %q", d.Event, cc)
		}
		board := d.board(t)
		if want := map[string][2]int{"p-lia": {15, 2}, "p-lux": {20, 1}, "p-lou": {0, 3}}; !maps.Equal(board, want) {
			t.Fatalf("final leaderboard %v, want %v", board, want)
		}
		if !slices.Equal(d.Event.Matches[2].PickCounts, wantCounts[2]) {
			t.Fatalf("pick counts after the last result: %v", d.Event.Matches[2].PickCounts)
		}
	})
}

// board is the leaderboard as user → (points, rank); every row's picks are readable.
func (d liveData) board(t *testing.T) map[string][2]int {
	t.Helper()
	board := map[string][2]int{}
	for _, edge := range d.Event.Leaderboard.Edges {
		board[edge.Node.User.ID] = [2]int{edge.Node.Points, edge.Node.Rank}
		if len(edge.Node.Picks) != 3 {
			t.Fatalf("%s's picks are not readable: %+v", edge.Node.User.ID, edge.Node.Picks)
		}
	}
	return board
}
