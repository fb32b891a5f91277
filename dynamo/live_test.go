package dynamo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/pickem/api/domain"
	"github.com/pickem/api/dynamo/ddb"
	"github.com/pickem/api/dynamo/scoring"
	"github.com/pickem/api/dynamo/table"
	"github.com/pickem/api/internal/testlog"
	"github.com/pickem/api/push"
	"github.com/pickem/api/push/pushtest"
)

// liveNS is the channel namespace of the live tests.
const liveNS = "pickem"

// liveMsg is a published message as a watcher reads it.
type liveMsg struct {
	EventID       string          `json:"eventId"`
	Kind          push.Kind       `json:"kind"`
	Version       int             `json:"version"`
	MatchID       string          `json:"matchId"`
	Result        json.RawMessage `json:"result"`
	State         string          `json:"state"`
	ScoredMatches int             `json:"scoredMatches"`
	Leaderboard   []liveRow       `json:"leaderboard"`
	channel       string
}

type liveRow struct {
	UserID string `json:"userId"`
	Name   string `json:"name"`
	Points int    `json:"points"`
	Rank   int    `json:"rank"`
	Place  int    `json:"place"`
}

// liveMessages decodes what rec was given since the first skip messages; each went to its
// event's channel.
func liveMessages(t testing.TB, rec *pushtest.Recorder, skip int) []liveMsg {
	t.Helper()
	var out []liveMsg
	for _, p := range rec.Messages()[skip:] {
		var m liveMsg
		if err := json.Unmarshal([]byte(p.Event), &m); err != nil {
			t.Fatalf("message %s: %v", p.Event, err)
		}
		m.channel = p.Channel
		if want, err := domain.LiveChannel(liveNS, m.EventID); err != nil || p.Channel != want {
			t.Errorf("message of %s published on %q, want %q", m.EventID, p.Channel, want)
		}
		out = append(out, m)
	}
	return out
}

// liveRows is the first push.LeaderboardRows rows of an event's leaderboard as store s
// shows them, in a message's form.
func liveRows(t testing.TB, s *Store, id string) []liveRow {
	t.Helper()
	_, page, err := s.GetEventWithLeaderboard(ctxT(t), id, push.LeaderboardRows, false)
	mustOK(t, err)
	rows := []liveRow{}
	for _, p := range page.Items {
		rows = append(rows, liveRow{UserID: p.User.ID, Name: p.User.Name, Points: *p.Points, Rank: *p.Rank, Place: *p.Place})
	}
	return rows
}

// liveVersionOf is the live version stored on an event's row.
func (f *fixture) liveVersionOf(id string) int {
	f.t.Helper()
	return eventRowOf(f.t, f.db, f.table, id).LiveVersion
}

// liveShow creates an event with a tie-breaker question and the standard card starting
// at 20:00 on the id's date, and players entries through s: player i picks by the bits of
// i and guesses 10·i.
func (f *fixture) liveShow(s *Store, id string, players int) domain.Event {
	f.t.Helper()
	day, err := time.Parse("2006-01-02", id[:10])
	mustOK(f.t, err)
	ev, err := s.CreateEvent(ctxT(f.t), domain.EventSpec{ID: ptr(id), Name: "Live Night", StartsAt: day.Add(20 * time.Hour),
		Matches: standardCard(), Settings: domain.EventSettings{Tiebreaker: ptr("How many minutes will the main event last?")}})
	mustOK(f.t, err)
	for i := range players {
		_, err := s.SubmitPrediction(ctxT(f.t), domain.UserRef{ID: fmt.Sprintf("u%02d", i), Name: fmt.Sprintf("Player %02d", i)}, ev.ID,
			domain.Entry{Picks: picks(ev, i%2, (i/2)%2, (i/4)%2), Tiebreaker: ptr(10 * i)})
		mustOK(f.t, err)
	}
	return ev
}

func win(team int) *domain.MatchResult {
	return &domain.MatchResult{Outcome: domain.OutcomeWin, Winner: ptr(team)}
}

// TestLiveMessagesOfEachCommit: each commit that publishes (a result set or cleared, the
// first one making the event BROADCAST; the answer set or cleared; a live pass, the final
// pass, a re-score after a correction; a change of state) publishes exactly one message on
// the event's channel, its version the next one (1, 2, 3 … in commit order) and the one
// stored on the row; locking by time, an answer set to its value, a call completing
// nothing new, a dry run, renames, card edits, renamePlayer and deleteMe publish nothing.
func TestLiveMessagesOfEachCommit(t *testing.T) {
	f := newFixture(t)
	rec := pushtest.NewRecorder(t)
	s := f.storeOver(f.db, WithLive(rec, liveNS, nil))
	ev := f.liveShow(s, "2030-03-10-live-night", 12)
	open := f.liveShow(s, "2030-03-20-open-night", 2)
	seen := 0
	// next returns the messages published since the last call, failing unless there are n.
	next := func(t *testing.T, n int) []liveMsg {
		t.Helper()
		ms := liveMessages(t, rec, seen)
		seen += len(ms)
		if len(ms) != n {
			t.Fatalf("%d messages %+v, want %d", len(ms), ms, n)
		}
		return ms
	}
	// one checks the one message of a commit: its event, kind and version, and the row's.
	one := func(t *testing.T, id string, kind push.Kind, version int) liveMsg {
		t.Helper()
		m := next(t, 1)[0]
		if m.EventID != id || m.Kind != kind || m.Version != version {
			t.Fatalf("message %+v, want %s version %d of %s", m, kind, version, id)
		}
		if got := f.on(t).liveVersionOf(id); got != version {
			t.Fatalf("row's liveVersion %d, want %d", got, version)
		}
		return m
	}
	ctx := ctxT(t)
	next(t, 0) // creating events and submitting entries publish nothing

	t.Run("LockingByTimePublishesNothing", func(t *testing.T) {
		f.clock.Set(ev.StartsAt.Add(time.Minute))
		_, err := s.SubmitPrediction(ctx, domain.UserRef{ID: "late", Name: "Late"}, ev.ID, domain.Entry{Picks: picks(ev, 0)})
		wantCode(t, err, domain.CodeLocked)
		got, err := s.GetEvent(ctx, ev.ID)
		mustOK(t, err)
		if got.LiveVersion != 0 || got.State(f.clock.Now()) != domain.StateBroadcast {
			t.Fatalf("event %+v", got)
		}
		if item := f.getRaw(table.EventsPartition, table.EventSK(table.EventID(ev.ID))); item["liveVersion"] != nil {
			t.Fatalf("row has liveVersion before any message: %v", item["liveVersion"])
		}
		next(t, 0)
	})
	t.Run("FirstResultMakesItBroadcast", func(t *testing.T) {
		_, err := s.SetResult(ctx, ev.ID, ev.Matches[0].ID, win(0))
		mustOK(t, err)
		m := one(t, ev.ID, push.KindResult, 1)
		if m.MatchID != ev.Matches[0].ID || string(m.Result) != `{"outcome":"WIN","winner":0}` || m.State != "BROADCAST" {
			t.Fatalf("message %+v result %s", m, m.Result)
		}
		if got, _ := s.GetEventState(ctx, ev.ID); got.LiveVersion != 1 {
			t.Fatalf("Event.LiveVersion %d, want 1", got.LiveVersion)
		}
	})
	t.Run("ResultCleared", func(t *testing.T) {
		_, err := s.SetResult(ctx, ev.ID, ev.Matches[0].ID, nil)
		mustOK(t, err)
		if m := one(t, ev.ID, push.KindResult, 2); string(m.Result) != "null" || m.State != "BROADCAST" {
			t.Fatalf("message %+v result %s", m, m.Result)
		}
	})
	t.Run("ResultSetAgain", func(t *testing.T) {
		_, err := s.SetResult(ctx, ev.ID, ev.Matches[0].ID, &domain.MatchResult{Outcome: domain.OutcomeWin, Winner: ptr(0), Method: ptr(domain.MethodPinfall)})
		mustOK(t, err)
		if m := one(t, ev.ID, push.KindResult, 3); string(m.Result) != `{"outcome":"WIN","winner":0,"method":"PINFALL"}` {
			t.Fatalf("message %+v result %s", m, m.Result)
		}
	})
	t.Run("AnswerSet", func(t *testing.T) {
		_, err := s.SetTiebreakerAnswer(ctx, ev.ID, ptr(35))
		mustOK(t, err)
		one(t, ev.ID, push.KindTiebreaker, 4) // the recorder refuses a message carrying the answer
	})
	t.Run("AnswerUnchangedPublishesNothing", func(t *testing.T) {
		_, err := s.SetTiebreakerAnswer(ctx, ev.ID, ptr(35))
		mustOK(t, err)
		next(t, 0)
	})
	t.Run("AnswerCleared", func(t *testing.T) {
		_, err := s.SetTiebreakerAnswer(ctx, ev.ID, nil)
		mustOK(t, err)
		one(t, ev.ID, push.KindTiebreaker, 5)
		_, err = s.SetTiebreakerAnswer(ctx, ev.ID, ptr(35))
		mustOK(t, err)
		one(t, ev.ID, push.KindTiebreaker, 6)
	})
	t.Run("LivePass", func(t *testing.T) {
		rep, err := s.ScoreEvent(ctx, ev.ID, false)
		mustOK(t, err)
		m := one(t, ev.ID, push.KindScoring, 7)
		if !rep.Complete || rep.Final || m.State != "BROADCAST" || m.ScoredMatches != 1 {
			t.Fatalf("report %+v, message %+v", rep, m)
		}
		if want := liveRows(t, f.s, ev.ID); len(m.Leaderboard) != push.LeaderboardRows || !slices.Equal(m.Leaderboard, want) {
			t.Fatalf("rows %+v, want the leaderboard's first %d %+v", m.Leaderboard, push.LeaderboardRows, want)
		}
	})
	t.Run("PassCompletingNothingNewPublishesNothing", func(t *testing.T) {
		rep, err := s.ScoreEvent(ctx, ev.ID, false)
		mustOK(t, err)
		dry, err := s.ScoreEvent(ctx, ev.ID, true)
		mustOK(t, err)
		if !rep.Complete || rep.PredictionsScored != 0 || !dry.Complete {
			t.Fatalf("runs %+v, %+v", rep, dry)
		}
		next(t, 0)
	})
	t.Run("FinalPassScored", func(t *testing.T) {
		for i, v := range []int{8, 9} {
			_, err := s.SetResult(ctx, ev.ID, ev.Matches[i+1].ID, win(1))
			mustOK(t, err)
			one(t, ev.ID, push.KindResult, v)
		}
		rep, err := s.ScoreEvent(ctx, ev.ID, false)
		mustOK(t, err)
		m := one(t, ev.ID, push.KindScoring, 10)
		if !rep.Final || m.State != "SCORED" || m.ScoredMatches != 3 {
			t.Fatalf("report %+v, message %+v", rep, m)
		}
		want := liveRows(t, f.s, ev.ID)
		if !slices.Equal(m.Leaderboard, want) {
			t.Fatalf("rows %+v, want %+v", m.Leaderboard, want)
		}
		placed := false // the answer counts: tied players are placed by their guesses
		for _, r := range m.Leaderboard {
			placed = placed || r.Place != r.Rank
		}
		if m.Leaderboard[0].Points != 18 || !placed {
			t.Fatalf("rows %+v: want 18 points first and places apart from ranks", m.Leaderboard)
		}
	})
	t.Run("RescoreAfterCorrection", func(t *testing.T) {
		_, err := s.SetResult(ctx, ev.ID, ev.Matches[0].ID, win(1))
		mustOK(t, err)
		if m := one(t, ev.ID, push.KindResult, 11); m.State != "SCORED" {
			t.Fatalf("message %+v", m)
		}
		before := liveRows(t, f.s, ev.ID)
		_, err = s.ScoreEvent(ctx, ev.ID, false)
		mustOK(t, err)
		m := one(t, ev.ID, push.KindScoring, 12)
		want := liveRows(t, f.s, ev.ID)
		if m.State != "SCORED" || !slices.Equal(m.Leaderboard, want) || slices.Equal(want, before) {
			t.Fatalf("message %+v, want SCORED with the corrected rows %+v (before: %+v)", m, want, before)
		}
	})
	t.Run("StateChange", func(t *testing.T) {
		_, err := s.UpdateEvent(ctx, open.ID, domain.EventUpdate{State: ptr(domain.StateBroadcast)})
		mustOK(t, err)
		if m := one(t, open.ID, push.KindState, 1); m.State != "BROADCAST" {
			t.Fatalf("message %+v", m)
		}
		_, err = s.UpdateEvent(ctx, open.ID, domain.EventUpdate{State: ptr(domain.StateBroadcast)})
		mustOK(t, err)
		next(t, 0) // no change of state: nothing written
	})
	t.Run("OtherChangesPublishNothing", func(t *testing.T) {
		other := f.liveShow(s, "2030-03-30-quiet-night", 1)
		_, err := s.UpdateEvent(ctx, ev.ID, domain.EventUpdate{Name: ptr("Live Night (renamed)")})
		mustOK(t, err)
		m, err := s.AddMatch(ctx, other.ID, matchSpec("Added", 4))
		mustOK(t, err)
		_, err = s.UpdateMatch(ctx, other.ID, m.ID, domain.MatchUpdate{Points: ptr(6)})
		mustOK(t, err)
		_, err = s.UpdateEvent(ctx, other.ID, domain.EventUpdate{Name: ptr("Quiet Night"), Jokers: ptr(true)})
		mustOK(t, err)
		_, err = s.RenamePlayer(ctx, "u03", "Player Three")
		mustOK(t, err)
		mustOK(t, s.DeleteUser(ctx, "u04"))
		next(t, 0)
		if a, b := f.on(t).liveVersionOf(ev.ID), f.on(t).liveVersionOf(other.ID); a != 12 || b != 0 {
			t.Fatalf("live versions %d and %d, want 12 and 0", a, b)
		}
	})
}

// TestLiveBudgetCutCallPublishesNothing: a scoreEvent call cut by its budget
// (complete: false) publishes nothing; the call that completes the pass publishes one
// message.
func TestLiveBudgetCutCallPublishesNothing(t *testing.T) {
	f := newFixture(t)
	ev := f.createEvent("2030-02-10-long-night", 20, standardCard())
	users := make([]string, 2*scoring.PlayersPerTransaction+10) // three batches
	items := make([]map[string]types.AttributeValue, len(users))
	for i := range users {
		users[i] = fmt.Sprintf("bulk%03d", i)
		items[i] = predictionItem(t, testShards, users[i], ev, nil, 0)
	}
	f.putRaw(items)
	addPredictionCounts(t, f.db, f.table, ev.ID, users)
	rec := pushtest.NewRecorder(t)
	s := f.storeOver(f.db, WithLive(rec, liveNS, nil), WithScoringBudget(time.Nanosecond))
	for i := range ev.Matches {
		_, err := s.SetResult(ctxT(t), ev.ID, ev.Matches[i].ID, win(0))
		mustOK(t, err)
	}
	results := len(rec.Messages())
	calls := 0
	for {
		rep, err := s.ScoreEvent(ctxT(t), ev.ID, false)
		mustOK(t, err)
		calls++
		ms := liveMessages(t, rec, results)
		if !rep.Complete {
			if len(ms) != 0 {
				t.Fatalf("call %d (complete: false) published %+v", calls, ms)
			}
			continue
		}
		if len(ms) != 1 || ms[0].Kind != push.KindScoring || ms[0].Version != len(ev.Matches)+1 || ms[0].State != "SCORED" {
			t.Fatalf("the completing call published %+v, want one SCORING message of version %d", ms, len(ev.Matches)+1)
		}
		break
	}
	if calls < 3 {
		t.Fatalf("%d calls: the budget cut none", calls)
	}
}

// isCompletion reports whether a transaction is a scoring pass's completion of event id
// (markScored: the event row's update writing scoredVersion, first).
func isCompletion(id string) func(*dynamodb.TransactWriteItemsInput) bool {
	return func(in *dynamodb.TransactWriteItemsInput) bool {
		u := in.TransactItems[0].Update
		if u == nil || table.ItemString(u.Key, table.AttrSK) != table.EventSK(table.EventID(id)) {
			return false
		}
		for _, name := range u.ExpressionAttributeNames {
			if name == "scoredVersion" {
				return true
			}
		}
		return false
	}
}

// TestLiveTwoScorersCompletingTwice: two scorers (two instances) complete the same pass,
// the second one's completion committing while the first one's is on its way: both
// complete, each publishes its own version (the first one's transaction is made again on
// top of the other's), and the row holds the last.
func TestLiveTwoScorersCompletingTwice(t *testing.T) {
	f := newFixture(t)
	rec := pushtest.NewRecorder(t)
	ev := f.liveShow(f.s, "2030-03-12-twin-scorers", 5)
	f.clock.Set(ev.StartsAt.Add(time.Hour))
	for i := range ev.Matches {
		_, err := f.s.SetResult(ctxT(t), ev.ID, ev.Matches[i].ID, win(1))
		mustOK(t, err)
	}
	other := f.storeOver(f.db, WithLive(rec, liveNS, nil))
	var (
		otherRep domain.ScoreReport
		otherErr error
	)
	hook := &txHookAPI{API: f.db, match: isCompletion(ev.ID), hook: func() {
		otherRep, otherErr = other.ScoreEvent(ctxT(t), ev.ID, false)
	}}
	first := f.storeOver(hook, WithLive(rec, liveNS, nil))
	rep, err := first.ScoreEvent(ctxT(t), ev.ID, false)
	mustOK(t, err)
	mustOK(t, otherErr)
	if !rep.Complete || !otherRep.Complete {
		t.Fatalf("reports %+v and %+v, want both complete", rep, otherRep)
	}
	ms := liveMessages(t, rec, 0)
	if len(ms) != 2 || ms[0].Version != 4 || ms[1].Version != 5 || ms[0].Kind != push.KindScoring || ms[1].Kind != push.KindScoring ||
		ms[0].State != "SCORED" || ms[1].State != "SCORED" || !slices.Equal(ms[0].Leaderboard, ms[1].Leaderboard) {
		t.Fatalf("messages %+v, want SCORING versions 4 (the other scorer) and 5 with the same rows", ms)
	}
	if v := f.liveVersionOf(ev.ID); v != 5 {
		t.Fatalf("row's liveVersion %d, want 5", v)
	}
}

// failingPublisher refuses every message; hangingPublisher holds each until its context
// ends, and keeps how long that was.
type failingPublisher struct{}

func (failingPublisher) Publish(context.Context, string, string) error {
	return errors.New("AppSync answered 500")
}

type hangingPublisher struct {
	mu    sync.Mutex
	waits []time.Duration // how long each publish was given
}

func (p *hangingPublisher) Publish(ctx context.Context, _, _ string) error {
	start := time.Now()
	<-ctx.Done()
	p.mu.Lock()
	p.waits = append(p.waits, time.Since(start))
	p.mu.Unlock()
	return ctx.Err()
}

// TestLivePublishFailureNeverFailsTheMutation: with a publisher that fails or hangs, every
// commit that publishes still answers as committed (its live version moved), within the
// publish budget of its deadline, and each lost message is logged.
func TestLivePublishFailureNeverFailsTheMutation(t *testing.T) {
	for _, tc := range []struct {
		name string
		pub  push.Publisher
	}{
		{"Fails", failingPublisher{}},
		{"Hangs", &hangingPublisher{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			var logs testlog.Buffer
			s := f.storeOver(f.db, WithLive(tc.pub, liveNS, slog.New(slog.NewJSONHandler(&logs, nil))))
			ev := f.liveShow(s, "2030-03-14-lost-messages", 3)
			open := f.liveShow(s, "2030-03-24-lost-state", 1)
			f.clock.Set(ev.StartsAt.Add(time.Hour))
			// Each mutation gets 5 s; a publish may take LivePublishBudget of them.
			within := func(t *testing.T, what string, call func(context.Context) error) {
				t.Helper()
				ctx, cancel := context.WithTimeout(ctxT(t), 5*time.Second)
				defer cancel()
				start := time.Now()
				mustOK(t, call(ctx))
				if took := time.Since(start); took > LivePublishBudget+time.Second {
					t.Fatalf("%s took %s with a publisher that %s, want at most the publish budget %s and the writes", what, took, tc.name, LivePublishBudget)
				}
			}
			within(t, "setResult", func(ctx context.Context) error {
				_, err := s.SetResult(ctx, ev.ID, ev.Matches[0].ID, win(0))
				return err
			})
			within(t, "setTiebreakerAnswer", func(ctx context.Context) error {
				_, err := s.SetTiebreakerAnswer(ctx, ev.ID, ptr(20))
				return err
			})
			within(t, "updateEvent", func(ctx context.Context) error {
				_, err := s.UpdateEvent(ctx, open.ID, domain.EventUpdate{State: ptr(domain.StateBroadcast)})
				return err
			})
			within(t, "scoreEvent", func(ctx context.Context) error {
				rep, err := s.ScoreEvent(ctx, ev.ID, false)
				if err == nil && !rep.Complete {
					err = fmt.Errorf("report %+v", rep)
				}
				return err
			})
			if a, b := f.liveVersionOf(ev.ID), f.liveVersionOf(open.ID); a != 3 || b != 1 {
				t.Fatalf("live versions %d and %d, want 3 and 1: the commits are made", a, b)
			}
			var lost []string
			for _, l := range logs.Take(t) {
				if l["msg"] == "live message not published" {
					lost = append(lost, fmt.Sprintf("%v v%v", l["event"], l["version"]))
				}
			}
			want := []string{ev.ID + " v1", ev.ID + " v2", open.ID + " v1", ev.ID + " v3"}
			if !slices.Equal(lost, want) {
				t.Fatalf("logged lost messages %v, want %v", lost, want)
			}
			if h, ok := tc.pub.(*hangingPublisher); ok {
				for _, w := range h.waits {
					if w < LivePublishBudget-100*time.Millisecond || w > LivePublishBudget+200*time.Millisecond {
						t.Errorf("a publish was given %s, want the budget %s", w, LivePublishBudget)
					}
				}
			}
		})
	}
}

// TestLiveScoringMargin: a scoring call of a store that publishes stops starting work
// LiveMargin earlier than one that does not, so that the message's read and publish fit
// before its deadline; a call whose deadline leaves no time to start work completes a
// one-batch pass and answers before its deadline, even with a publisher that hangs.
func TestLiveScoringMargin(t *testing.T) {
	f := newFixture(t)
	hang := &hangingPublisher{}
	s := f.storeOver(f.db, WithLive(hang, liveNS, nil))
	ctx, cancel := context.WithTimeout(ctxT(t), time.Minute)
	defer cancel()
	dl, _ := ctx.Deadline()
	now := time.Now()
	if got, want := s.scoringDeadline(ctx, now), dl.Add(-ScoringMargin-LiveMargin); !got.Equal(want) {
		t.Errorf("publishing store stops at %s, want %s (deadline − ScoringMargin − LiveMargin)", got, want)
	}
	if got, want := f.s.scoringDeadline(ctx, now), dl.Add(-ScoringMargin); !got.Equal(want) {
		t.Errorf("store without push stops at %s, want %s", got, want)
	}

	ev := f.liveShow(f.s, "2030-03-16-near-deadline", 4)
	f.clock.Set(ev.StartsAt.Add(time.Hour))
	for i := range ev.Matches {
		_, err := f.s.SetResult(ctxT(t), ev.ID, ev.Matches[i].ID, win(0))
		mustOK(t, err)
	}
	near, cancel := context.WithTimeout(ctxT(t), ScoringMargin+LiveMargin-time.Second)
	defer cancel()
	deadline, _ := near.Deadline()
	rep, err := s.ScoreEvent(near, ev.ID, false)
	mustOK(t, err)
	if !rep.Complete || time.Now().After(deadline) {
		t.Fatalf("report %+v, answered %s after the deadline", rep, time.Since(deadline))
	}
	if len(hang.waits) != 1 {
		t.Fatalf("%d publishes, want the completion's", len(hang.waits))
	}
}

// TestLiveScoringRowsBypassTheReadCache: the rows of a scoring message are one first-page
// read after the commit, never the read cache: a cached store whose cache still holds the
// rows before a correction publishes the corrected rows, with one Query.
func TestLiveScoringRowsBypassTheReadCache(t *testing.T) {
	f := newFixture(t)
	rec := pushtest.NewRecorder(t)
	cached := f.storeOver(f.db, WithReadCacheTTL(time.Minute), WithLive(rec, liveNS, nil))
	ev := f.liveShow(f.s, "2030-03-18-cached-rows", 6)
	f.clock.Set(ev.StartsAt.Add(time.Hour))
	for i := range ev.Matches {
		_, err := f.s.SetResult(ctxT(t), ev.ID, ev.Matches[i].ID, win(0))
		mustOK(t, err)
	}
	f.score(ev)
	stale := liveRows(t, cached, ev.ID) // now in the cached store's cache
	_, err := f.s.SetResult(ctxT(t), ev.ID, ev.Matches[0].ID, win(1))
	mustOK(t, err)
	rep := f.score(ev)
	want := liveRows(t, f.s, ev.ID)
	if slices.Equal(want, stale) || !slices.Equal(liveRows(t, cached, ev.ID), stale) {
		t.Fatal("the correction did not change the rows, or the cache does not hold the old ones")
	}
	cr, err := f.s.readCard(ctxT(t), ev.ID)
	mustOK(t, err)
	ctx, cost := ddb.WithCost(ctxT(t))
	cached.publishScoring(ctx, cr.ev, cr.row.Shards, rep, cr.row.LiveVersion)
	ms := liveMessages(t, rec, 0)
	if len(ms) != 1 || ms[0].Version != cr.row.LiveVersion || !slices.Equal(ms[0].Leaderboard, want) {
		t.Fatalf("messages %+v, want one of version %d with the corrected rows %+v", ms, cr.row.LiveVersion, want)
	}
	if ops := cost.Snapshot().Operations; len(ops) != 1 || ops["Query"] != 1 {
		t.Fatalf("the message's read made %v, want one Query", ops)
	}
}

// TestLiveCommitsMakeNoExtraCall: publishing adds no DynamoDB call to setResult,
// setTiebreakerAnswer and updateEvent (the version moves inside their transaction, whose
// items stay as many), and exactly one Query (the message's leaderboard read, one shard) to
// a scoreEvent call that completes a pass.
func TestLiveCommitsMakeNoExtraCall(t *testing.T) {
	f := newFixture(t)
	rec := pushtest.NewRecorder(t)
	live := f.storeOver(f.db, WithLive(rec, liveNS, nil))
	plain := f.liveShow(f.s, "2030-03-22-twin-plain", 3)
	pushed := f.liveShow(f.s, "2030-03-22-twin-pushed", 3)
	type step struct {
		name string
		call func(ctx context.Context, s *Store, ev domain.Event) error
	}
	steps := []step{
		{"UpdateEventState", func(ctx context.Context, s *Store, ev domain.Event) error {
			_, err := s.UpdateEvent(ctx, ev.ID, domain.EventUpdate{State: ptr(domain.StateBroadcast)})
			return err
		}},
		{"SetResult", func(ctx context.Context, s *Store, ev domain.Event) error {
			_, err := s.SetResult(ctx, ev.ID, ev.Matches[0].ID, win(0))
			return err
		}},
		{"SetTiebreakerAnswer", func(ctx context.Context, s *Store, ev domain.Event) error {
			_, err := s.SetTiebreakerAnswer(ctx, ev.ID, ptr(30))
			return err
		}},
		{"ScoreEvent", func(ctx context.Context, s *Store, ev domain.Event) error {
			_, err := s.ScoreEvent(ctx, ev.ID, false)
			return err
		}},
	}
	for i, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			measure := func(s *Store, ev domain.Event) ddb.CostSnapshot {
				ctx, cost := ddb.WithCost(ctxT(t))
				mustOK(t, st.call(ctx, s, ev))
				return cost.Snapshot()
			}
			a, b := measure(f.s, plain), measure(live, pushed)
			want, sameItems := maps.Clone(a.Operations), a.MaxTransactionItems == b.MaxTransactionItems
			if st.name == "ScoreEvent" {
				// The players' first standings of the season come with the twin scored first.
				want["Query"]++
				sameItems = true
			}
			if !maps.Equal(b.Operations, want) || !sameItems {
				t.Fatalf("with push %v (largest transaction %d items), without %v (%d); want %v",
					b.Operations, b.MaxTransactionItems, a.Operations, a.MaxTransactionItems, want)
			}
			if n := len(rec.Messages()); n != i+1 {
				t.Fatalf("%d messages, want %d", n, i+1)
			}
			t.Logf("%s: %v without push, %v with", st.name, a.Operations, b.Operations)
		})
	}
}
