package dynamo

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/pickem/api/domain"
	"github.com/pickem/api/dynamo/table"
)

// league is a small season built through the store: six events (two backfills, two scored,
// two upcoming), four players with ties, one player with predictions in four events.
type league struct {
	*fixture
	old, jan, winter, spring, mar, apr domain.Event
	aprOrder                           []string // apr's match ids after ReorderMatches
}

// Expected results of the league (results: every match won by team 0; cards worth 10, 5, 3):
//
//	winter-war:   p-top 18, p-low 0
//	spring-clash: p-top 18, p-amy 15, p-zed 15, p-low 3   → ranks 1, 2, 2, 4
//	season 2030:  p-top 36, p-amy 15, p-zed 15, p-low 3   → ranks 1, 2, 2, 4
func newLeague(t *testing.T) *league {
	t.Helper()
	f := newFixture(t)
	l := &league{fixture: f}
	l.old = f.createEvent("2029-11-20-old-show", 20, standardCard())
	l.jan = f.createEvent("2030-01-15-jan-show", 20, standardCard())
	l.winter = f.createEvent("2030-03-05-winter-war", 20, standardCard())
	l.spring = f.createEvent("2030-03-10-spring-clash", 20, standardCard())
	l.mar = f.createEvent("2030-03-20-mar-show", 20, standardCard())
	l.apr = f.createEvent("2030-04-20-apr-show", 20, standardCard())

	f.submit("p-top", l.winter, 0, 0, 0)
	f.submit("p-low", l.winter, 1, 1, 1)
	f.submit("p-top", l.spring, 0, 0, 0)
	f.submit("p-zed", l.spring, 0, 0, 1)
	f.submit("p-amy", l.spring, 0, 0, 1)
	f.submit("p-low", l.spring, 1, 1, 0)
	f.lockAndResult(l.winter, 0, 0, 0)
	f.lockAndResult(l.spring, 0, 0, 0)
	f.score(l.winter)
	f.score(l.spring)

	l.aprOrder = []string{l.apr.Matches[2].ID, l.apr.Matches[0].ID, l.apr.Matches[1].ID}
	_, err := f.s.ReorderMatches(ctxT(t), l.apr.ID, l.aprOrder)
	mustOK(t, err)
	ev, err := f.s.GetEvent(ctxT(t), l.apr.ID)
	mustOK(t, err)
	l.apr = ev
	f.submit("p-top", l.mar, 0, 1, 0)
	f.submit("p-top", l.apr, 1, -1, 1)
	// A standing of an older season, as scoring would have written it.
	f.putRaw([]map[string]types.AttributeValue{standingItem(t, f.shards, "p-top", 2029, 7, 0)})
	return l
}

func TestReads(t *testing.T) {
	t.Parallel()
	l := newLeague(t)
	ctx := ctxT(t)
	s := l.s

	t.Run("ListEvents", func(t *testing.T) {
		t.Parallel()
		chain := func(t *testing.T, season *int, first int) (pages [][]string, hasNext []bool) {
			t.Helper()
			after := ""
			for i := 0; i < 10; i++ {
				p, err := s.ListEvents(ctx, season, first, after)
				mustOK(t, err)
				if len(p.Cursors) != len(p.Items) {
					t.Fatalf("%d cursors for %d items", len(p.Cursors), len(p.Items))
				}
				pages, hasNext = append(pages, eventIDs(p.Items)), append(hasNext, p.HasNext)
				if !p.HasNext {
					return pages, hasNext
				}
				after = p.EndCursor()
			}
			t.Fatal("pages never end")
			return nil, nil
		}
		tests := []struct {
			name    string
			season  *int
			first   int
			pages   [][]string
			hasNext []bool
		}{
			{"AllSeasonsNewestFirstAcrossPages", nil, 2,
				[][]string{{l.apr.ID, l.mar.ID}, {l.spring.ID, l.winter.ID}, {l.jan.ID, l.old.ID}}, []bool{true, true, false}},
			{"SeasonFilterFiveEventsPagesOfTwo", ptr(2030), 2,
				[][]string{{l.apr.ID, l.mar.ID}, {l.spring.ID, l.winter.ID}, {l.jan.ID}}, []bool{true, true, false}},
			{"OtherSeason", ptr(2029), 2, [][]string{{l.old.ID}}, []bool{false}},
			{"SeasonWithoutEvents", ptr(2031), 2, [][]string{{}}, []bool{false}},
			{"ExactlyOnePage", ptr(2030), 5, [][]string{{l.apr.ID, l.mar.ID, l.spring.ID, l.winter.ID, l.jan.ID}}, []bool{false}},
			{"OneShortOfAll", nil, 5, [][]string{{l.apr.ID, l.mar.ID, l.spring.ID, l.winter.ID, l.jan.ID}, {l.old.ID}}, []bool{true, false}},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				pages, hasNext := chain(t, tt.season, tt.first)
				for i := range pages {
					if pages[i] == nil {
						pages[i] = []string{}
					}
				}
				if !slices.EqualFunc(pages, tt.pages, slices.Equal) || !slices.Equal(hasNext, tt.hasNext) {
					t.Errorf("pages %v hasNext %v, want %v %v", pages, hasNext, tt.pages, tt.hasNext)
				}
			})
		}
		t.Run("EveryItemCursorContinuesAfterIt", func(t *testing.T) {
			all, err := s.ListEvents(ctx, nil, 10, "")
			mustOK(t, err)
			for i, c := range all.Cursors {
				rest, err := s.ListEvents(ctx, nil, 10, c)
				mustOK(t, err)
				if got, want := eventIDs(rest.Items), eventIDs(all.Items[i+1:]); !slices.Equal(got, want) {
					t.Errorf("after item %d: %v, want %v", i, got, want)
				}
			}
		})
		t.Run("RowsWorkOutState", func(t *testing.T) {
			p, err := s.ListEvents(ctx, nil, 10, "")
			mustOK(t, err)
			want := map[string]domain.EventState{
				l.apr.ID: domain.StateUpcoming, l.mar.ID: domain.StateUpcoming, l.spring.ID: domain.StateScored,
				l.winter.ID: domain.StateScored, l.jan.ID: domain.StateBroadcast, l.old.ID: domain.StateBroadcast,
			}
			for _, e := range p.Items {
				if got := e.State(t0); got != want[e.ID] {
					t.Errorf("%s: state %s, want %s", e.ID, got, want[e.ID])
				}
			}
		})
	})

	t.Run("ListEventsRejects", func(t *testing.T) {
		t.Parallel()
		allPage, err := s.ListEvents(ctx, nil, 1, "")
		mustOK(t, err)
		seasonPage, err := s.ListEvents(ctx, ptr(2030), 1, "")
		mustOK(t, err)
		standings, err := s.Standings(ctx, 2030, 1, "")
		mustOK(t, err)
		tests := []struct {
			name   string
			season *int
			after  string
		}{
			{"GarbageCursor", nil, "garbage!"},
			{"SeasonCursorOnAllSeasons", nil, seasonPage.EndCursor()},
			{"AllSeasonsCursorOnSeason", ptr(2030), allPage.EndCursor()},
			{"OtherSeasonCursor", ptr(2029), seasonPage.EndCursor()},
			{"StandingsCursor", nil, standings.EndCursor()},
			{"ForgedCursorOutsideSeason", ptr(2030), s.cursors.Encode(table.Cursor{Kind: table.CursorEvents, Owner: "2030", ID: l.old.ID})},
			{"ForgedCursorForgingKey", nil, s.cursors.Encode(table.Cursor{Kind: table.CursorEvents, Owner: "all", ID: "2030-01-01-x#"})},
			{"TwoDigitSeason", ptr(30), ""},
			{"FiveDigitSeason", ptr(20300), ""},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				_, err := s.ListEvents(ctx, tt.season, 2, tt.after)
				wantCode(t, err, domain.CodeBadUserInput)
			})
		}
	})

	t.Run("GetEvent", func(t *testing.T) {
		t.Parallel()
		t.Run("CardInCardOrder", func(t *testing.T) {
			e, err := s.GetEvent(ctx, l.spring.ID)
			mustOK(t, err)
			if e.Name != "spring clash" || !e.StartsAt.Equal(l.spring.StartsAt) || e.Stored != domain.StateScored {
				t.Errorf("event %+v", e)
			}
			if got, want := matchIDs(e.Matches), matchIDs(l.spring.Matches); !slices.Equal(got, want) {
				t.Errorf("card %v, want %v", got, want)
			}
			for i, m := range e.Matches {
				if m.Position != i+1 || m.Result == nil || m.Result.Outcome != domain.OutcomeWin || *m.Result.Winner != 0 {
					t.Errorf("match %d: position %d result %+v", i, m.Position, m.Result)
				}
				if len(m.Teams) != 2 || m.Teams[1].Members[0] != m.Name+" Blue" || !m.Teams[1].Champion {
					t.Errorf("match %d teams %+v", i, m.Teams)
				}
			}
		})
		t.Run("CardOrderAfterReorder", func(t *testing.T) {
			e, err := s.GetEvent(ctx, l.apr.ID)
			mustOK(t, err)
			if got := matchIDs(e.Matches); !slices.Equal(got, l.aprOrder) {
				t.Errorf("card %v, want %v", got, l.aprOrder)
			}
			for i, m := range e.Matches {
				if m.Position != i+1 {
					t.Errorf("match %d has position %d", i, m.Position)
				}
			}
		})
		t.Run("BackfillIsLocked", func(t *testing.T) {
			e, err := s.GetEvent(ctx, l.jan.ID)
			mustOK(t, err)
			if !e.Locked(t0) || e.State(t0) != domain.StateBroadcast {
				t.Errorf("backfilled event state %s at %s", e.State(t0), t0)
			}
		})
		tests := []struct {
			name, id string
			code     domain.Code
		}{
			{"UnknownIsNotFound", "2030-05-01-no-such-show", domain.CodeNotFound},
			{"HashIsBadInput", "2030-03-10-spring-clash#USER#p-top", domain.CodeBadUserInput},
			{"UppercaseIsBadInput", "2030-03-10-Spring", domain.CodeBadUserInput},
			{"NotADateIsBadInput", "2030-02-30-x", domain.CodeBadUserInput},
			{"EmptyIsBadInput", "", domain.CodeBadUserInput},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				_, err := s.GetEvent(ctx, tt.id)
				wantCode(t, err, tt.code)
				_, _, err = s.GetEventWithLeaderboard(ctx, tt.id, 10, true)
				wantCode(t, err, tt.code)
			})
		}
	})

	t.Run("Leaderboard", func(t *testing.T) {
		t.Parallel()
		t.Run("EmptyUntilScored", func(t *testing.T) {
			e, lb, err := s.GetEventWithLeaderboard(ctx, l.mar.ID, 10, true)
			mustOK(t, err)
			if len(e.Matches) != 3 || len(lb.Items) != 0 || lb.HasNext {
				t.Errorf("upcoming event with a prediction: %d matches, leaderboard %v hasNext %v", len(e.Matches), predUsers(lb.Items), lb.HasNext)
			}
		})
		t.Run("HighestFirstTiesByUserIDSharedRanks", func(t *testing.T) {
			e, lb, err := s.GetEventWithLeaderboard(ctx, l.spring.ID, 50, true)
			mustOK(t, err)
			if got := matchIDs(e.Matches); !slices.Equal(got, matchIDs(l.spring.Matches)) {
				t.Errorf("card %v", got)
			}
			if got, want := predUsers(lb.Items), []string{"p-top", "p-amy", "p-zed", "p-low"}; !slices.Equal(got, want) {
				t.Fatalf("leaderboard %v, want %v", got, want)
			}
			if got, want := predRanks(lb.Items), []int{1, 2, 2, 4}; !slices.Equal(got, want) {
				t.Errorf("ranks %v, want %v", got, want)
			}
			points := mapIDs(lb.Items, pointsOf)
			if want := []string{"18", "15", "15", "3"}; !slices.Equal(points, want) {
				t.Errorf("points %v, want %v", points, want)
			}
			if lb.HasNext {
				t.Error("hasNext on the whole leaderboard")
			}
		})
		for _, first := range []int{1, 2, 3} {
			t.Run(fmt.Sprintf("PagesContinueRanks/first=%d", first), func(t *testing.T) {
				_, lb, err := s.GetEventWithLeaderboard(ctx, l.spring.ID, first, true)
				mustOK(t, err)
				users, ranks := predUsers(lb.Items), predRanks(lb.Items)
				for pages := 1; lb.HasNext; pages++ {
					if len(lb.Items) != first || pages > 4 {
						t.Fatalf("page %d has %d items (first %d)", pages, len(lb.Items), first)
					}
					lb, err = s.EventLeaderboard(ctx, l.spring, first, lb.EndCursor(), true)
					mustOK(t, err)
					users, ranks = append(users, predUsers(lb.Items)...), append(ranks, predRanks(lb.Items)...)
				}
				if want := []string{"p-top", "p-amy", "p-zed", "p-low"}; !slices.Equal(users, want) {
					t.Errorf("users %v, want %v", users, want)
				}
				if want := []int{1, 2, 2, 4}; !slices.Equal(ranks, want) {
					t.Errorf("ranks %v, want %v", ranks, want)
				}
			})
		}
		t.Run("RowsWithoutPicks", func(t *testing.T) {
			// Read without picks: the same rows, points, ranks and cursors, no picks; and the
			// pages chain across the two forms (a cursor is the same).
			for _, first := range []int{2, 50} {
				e, full, err := s.GetEventWithLeaderboard(ctx, l.spring.ID, first, true)
				mustOK(t, err)
				_, lean, err := s.GetEventWithLeaderboard(ctx, l.spring.ID, first, false)
				mustOK(t, err)
				if len(full.Items) == 0 || len(full.Items) != len(lean.Items) || full.HasNext != lean.HasNext || len(e.Matches) == 0 {
					t.Fatalf("first %d: %d full rows, %d without picks", first, len(full.Items), len(lean.Items))
				}
				for i, p := range lean.Items {
					f := full.Items[i]
					if len(f.Picks) == 0 {
						t.Fatalf("row %d read with its picks has none", i)
					}
					if len(p.Picks) != 0 {
						t.Errorf("row %d read without picks has %d", i, len(p.Picks))
					}
					f.Picks, p.Picks = nil, nil
					if !reflect.DeepEqual(f, p) || full.Cursors[i] != lean.Cursors[i] {
						t.Errorf("row %d: %+v without picks, %+v with", i, p, f)
					}
				}
				if full.HasNext {
					next, err := s.EventLeaderboard(ctx, l.spring, first, lean.EndCursor(), true)
					mustOK(t, err)
					leanNext, err := s.EventLeaderboard(ctx, l.spring, first, full.EndCursor(), false)
					mustOK(t, err)
					if got, want := predUsers(leanNext.Items), predUsers(next.Items); !slices.Equal(got, want) || len(next.Items[0].Picks) == 0 || len(leanNext.Items[0].Picks) != 0 {
						t.Errorf("next page without picks %v, with %v", got, want)
					}
				}
			}
		})
		t.Run("OtherEventScoredToo", func(t *testing.T) {
			_, lb, err := s.GetEventWithLeaderboard(ctx, l.winter.ID, 10, true)
			mustOK(t, err)
			if got, want := predUsers(lb.Items), []string{"p-top", "p-low"}; !slices.Equal(got, want) {
				t.Errorf("leaderboard %v, want %v", got, want)
			}
		})
		_, springLB, err := s.GetEventWithLeaderboard(ctx, l.spring.ID, 1, true)
		mustOK(t, err)
		standings, err := s.Standings(ctx, 2030, 1, "")
		mustOK(t, err)
		rejects := []struct{ name, event, after string }{
			{"CursorOfOtherEvent", l.winter.ID, springLB.EndCursor()},
			{"StandingsCursor", l.spring.ID, standings.EndCursor()},
			{"GarbageCursor", l.spring.ID, "AAAA"},
			{"ForgedUserInCursor", l.spring.ID, s.cursors.Encode(table.Cursor{Kind: table.CursorLeaderboard, Owner: l.spring.ID, ID: "p#x", Index: 1, Rank: 1})},
			{"MalformedEvent", "spring", springLB.EndCursor()},
		}
		for _, tt := range rejects {
			t.Run("Rejects"+tt.name, func(t *testing.T) {
				_, err := s.EventLeaderboard(ctx, domain.Event{ID: tt.event}, 2, tt.after, true)
				wantCode(t, err, domain.CodeBadUserInput)
			})
		}
		t.Run("EmptyCursorIsTheFirstPage", func(t *testing.T) {
			got, err := s.EventLeaderboard(ctx, l.spring, 1, "", true)
			mustOK(t, err)
			if len(got.Items) != 1 || got.Items[0].User.ID != springLB.Items[0].User.ID || *got.Items[0].Rank != 1 || got.EndCursor() != springLB.EndCursor() {
				t.Fatalf("first page %+v, want %+v", got, springLB)
			}
		})
	})

	t.Run("Standings", func(t *testing.T) {
		t.Parallel()
		t.Run("HighestFirstTiesByUserIDSharedRanks", func(t *testing.T) {
			p, err := s.Standings(ctx, 2030, 50, "")
			mustOK(t, err)
			if got, want := standingUsers(p.Items), []string{"p-top", "p-amy", "p-zed", "p-low"}; !slices.Equal(got, want) {
				t.Fatalf("standings %v, want %v", got, want)
			}
			if got, want := standingRanks(p.Items), []int{1, 2, 2, 4}; !slices.Equal(got, want) {
				t.Errorf("ranks %v, want %v", got, want)
			}
			type row struct{ points, correct, played int }
			want := []row{{36, 6, 2}, {15, 2, 1}, {15, 2, 1}, {3, 1, 2}}
			for i, st := range p.Items {
				if got := (row{st.Points, st.Correct, st.EventsPlayed}); got != want[i] || st.Season != 2030 || st.User.Name != "Player "+st.User.ID {
					t.Errorf("%s: %+v, want %+v", st.User.ID, st, want[i])
				}
			}
			if p.HasNext {
				t.Error("hasNext on the whole table")
			}
		})
		for _, first := range []int{1, 2, 3} {
			t.Run(fmt.Sprintf("PagesContinueRanks/first=%d", first), func(t *testing.T) {
				p, err := s.Standings(ctx, 2030, first, "")
				mustOK(t, err)
				users, ranks := standingUsers(p.Items), standingRanks(p.Items)
				for pages := 1; p.HasNext; pages++ {
					if len(p.Items) != first || pages > 4 {
						t.Fatalf("page %d has %d items (first %d)", pages, len(p.Items), first)
					}
					p, err = s.Standings(ctx, 2030, first, p.EndCursor())
					mustOK(t, err)
					users, ranks = append(users, standingUsers(p.Items)...), append(ranks, standingRanks(p.Items)...)
				}
				if want := []string{"p-top", "p-amy", "p-zed", "p-low"}; !slices.Equal(users, want) {
					t.Errorf("users %v, want %v", users, want)
				}
				if want := []int{1, 2, 2, 4}; !slices.Equal(ranks, want) {
					t.Errorf("ranks %v, want %v", ranks, want)
				}
			})
		}
		t.Run("OtherSeason", func(t *testing.T) {
			p, err := s.Standings(ctx, 2029, 50, "")
			mustOK(t, err)
			if got := standingUsers(p.Items); !slices.Equal(got, []string{"p-top"}) || p.Items[0].Points != 7 {
				t.Errorf("2029 standings %v", got)
			}
		})
		t.Run("EmptySeason", func(t *testing.T) {
			p, err := s.Standings(ctx, 2031, 50, "")
			mustOK(t, err)
			if len(p.Items) != 0 || p.HasNext {
				t.Errorf("2031 standings %v", standingUsers(p.Items))
			}
		})
		other, err := s.Standings(ctx, 2029, 1, "")
		mustOK(t, err)
		events, err := s.ListEvents(ctx, ptr(2030), 1, "")
		mustOK(t, err)
		_, lb, err := s.GetEventWithLeaderboard(ctx, l.spring.ID, 1, true)
		mustOK(t, err)
		rejects := []struct {
			name   string
			season int
			after  string
		}{
			{"CursorOfOtherSeason", 2030, other.EndCursor()},
			{"EventsCursor", 2030, events.EndCursor()},
			{"LeaderboardCursor", 2030, lb.EndCursor()},
			{"GarbageCursor", 2030, "%%%"},
			{"BadSeason", 203, ""},
		}
		for _, tt := range rejects {
			t.Run("Rejects"+tt.name, func(t *testing.T) {
				_, err := s.Standings(ctx, tt.season, 2, tt.after)
				wantCode(t, err, domain.CodeBadUserInput)
			})
		}
	})

	t.Run("GetUser", func(t *testing.T) {
		t.Parallel()
		t.Run("OwnerSeesEverythingNewestFirst", func(t *testing.T) {
			u, p, err := s.GetUser(ctx, "p-top", 20, true)
			mustOK(t, err)
			if u.ID != "p-top" || u.Name != "Player p-top" {
				t.Errorf("user %+v", u)
			}
			if len(u.Standings) != 2 || u.Standings[0].Season != 2030 || u.Standings[0].Points != 36 || u.Standings[1].Season != 2029 {
				t.Errorf("standings %+v", u.Standings)
			}
			for _, st := range u.Standings {
				// 2030's rank table was written by scoring; 2029's standing was not.
				if want := st.Season == 2030; (st.Rank != nil) != want || want && *st.Rank != 1 {
					t.Errorf("profile standing %d has rank %v", st.Season, deref(st.Rank))
				}
			}
			if got, want := predEvents(p.Items), []string{l.apr.ID, l.mar.ID, l.spring.ID, l.winter.ID}; !slices.Equal(got, want) {
				t.Errorf("predictions %v, want %v", got, want)
			}
			if got, want := mapIDs(p.Items, pointsOf), []string{"nil", "nil", "18", "18"}; !slices.Equal(got, want) {
				t.Errorf("points %v, want %v", got, want)
			}
			if p.HasNext {
				t.Error("hasNext")
			}
			spring := p.Items[2]
			if spring.Event.Name != "spring clash" || !spring.Event.StartsAt.Equal(l.spring.StartsAt) || spring.Rank == nil || *spring.Rank != 1 {
				t.Errorf("profile row %+v", spring)
			}
			for _, pk := range spring.Picks {
				if pk.Correct == nil || !*pk.Correct {
					t.Errorf("scored pick %+v", pk)
				}
			}
			for _, pk := range p.Items[0].Picks {
				if pk.Correct != nil {
					t.Errorf("unscored pick has correct=%v", *pk.Correct)
				}
			}
		})
		t.Run("OtherViewerSeesScoredOnly", func(t *testing.T) {
			_, p, err := s.GetUser(ctx, "p-top", 20, false)
			mustOK(t, err)
			if got, want := predEvents(p.Items), []string{l.spring.ID, l.winter.ID}; !slices.Equal(got, want) || p.HasNext {
				t.Errorf("predictions %v hasNext %v, want %v", got, p.HasNext, want)
			}
		})
		pagesOf := func(t *testing.T, first int, unscored bool) (pages [][]string, hasNext []bool) {
			_, p, err := s.GetUser(ctx, "p-top", first, unscored)
			mustOK(t, err)
			for i := 0; ; i++ {
				pages, hasNext = append(pages, predEvents(p.Items)), append(hasNext, p.HasNext)
				if !p.HasNext || i > 5 {
					return pages, hasNext
				}
				p, err = s.UserPredictions(ctx, "p-top", first, p.EndCursor(), unscored)
				mustOK(t, err)
			}
		}
		pageTests := []struct {
			name     string
			first    int
			unscored bool
			pages    [][]string
			hasNext  []bool
		}{
			{"OwnerPages", 2, true, [][]string{{l.apr.ID, l.mar.ID}, {l.spring.ID, l.winter.ID}}, []bool{true, false}},
			{"OwnerPagesOfThree", 3, true, [][]string{{l.apr.ID, l.mar.ID, l.spring.ID}, {l.winter.ID}}, []bool{true, false}},
			{"OtherViewerPages", 1, false, [][]string{{l.spring.ID}, {l.winter.ID}}, []bool{true, false}},
		}
		for _, tt := range pageTests {
			t.Run(tt.name, func(t *testing.T) {
				pages, hasNext := pagesOf(t, tt.first, tt.unscored)
				if !slices.EqualFunc(pages, tt.pages, slices.Equal) || !slices.Equal(hasNext, tt.hasNext) {
					t.Errorf("pages %v hasNext %v, want %v %v", pages, hasNext, tt.pages, tt.hasNext)
				}
			})
		}
		t.Run("PlayerWithoutStandingsOrPredictions", func(t *testing.T) {
			_, err := s.Register(ctx, "p-new", "scoring.New Player")
			mustOK(t, err)
			u, p, err := s.GetUser(ctx, "p-new", 20, true)
			mustOK(t, err)
			if u.Name != "scoring.New Player" || u.Standings == nil || len(u.Standings) != 0 || len(p.Items) != 0 || p.HasNext {
				t.Errorf("user %+v page %+v", u, p)
			}
		})
		_, top, err := s.GetUser(ctx, "p-top", 1, true)
		mustOK(t, err)
		events, err := s.ListEvents(ctx, nil, 1, "")
		mustOK(t, err)
		errTests := []struct {
			name, id, after string
			code            domain.Code
		}{
			{"UnknownIsNotFound", "nobody", "", domain.CodeNotFound},
			{"HashIsBadInput", "p-top#EVENT", "", domain.CodeBadUserInput},
			{"EmptyIsBadInput", "", "", domain.CodeBadUserInput},
			{"SpaceIsBadInput", "p top", "", domain.CodeBadUserInput},
			{"CursorOfOtherUser", "p-amy", top.EndCursor(), domain.CodeBadUserInput},
			{"EventsCursor", "p-top", events.EndCursor(), domain.CodeBadUserInput},
			{"GarbageCursor", "p-top", "////", domain.CodeBadUserInput},
		}
		for _, tt := range errTests {
			t.Run(tt.name, func(t *testing.T) {
				if tt.after == "" {
					_, _, err := s.GetUser(ctx, tt.id, 5, true)
					wantCode(t, err, tt.code)
					return
				}
				_, err := s.UserPredictions(ctx, tt.id, 5, tt.after, true)
				wantCode(t, err, tt.code)
			})
		}
	})

	t.Run("GetPrediction", func(t *testing.T) {
		t.Parallel()
		t.Run("OwnUnscored", func(t *testing.T) {
			p, err := s.GetPrediction(ctx, "p-top", l.apr.ID, true)
			mustOK(t, err)
			if p.EventID != l.apr.ID || p.Event.Name != "apr show" || p.User.ID != "p-top" || p.Points != nil || p.Correct != nil {
				t.Errorf("prediction %+v", p)
			}
			// Picks are stored in card order (the reordered card) whatever the submitted
			// order.
			want := []domain.Pick{{MatchID: l.aprOrder[0], Team: 1}, {MatchID: l.aprOrder[2], Team: 1}}
			if len(p.Picks) != 2 || p.Picks[0].MatchID != want[0].MatchID || p.Picks[1].MatchID != want[1].MatchID || p.Picks[0].Correct != nil {
				t.Errorf("picks %+v, want %+v", p.Picks, want)
			}
			if !p.UpdatedAt.Equal(t0) {
				t.Errorf("updatedAt %s, want the clock's %s", p.UpdatedAt, t0)
			}
		})
		t.Run("Scored", func(t *testing.T) {
			p, err := s.GetPrediction(ctx, "p-amy", l.spring.ID, true)
			mustOK(t, err)
			if pointsOf(p) != "15" || p.Correct == nil || *p.Correct != 2 {
				t.Fatalf("points %s correct %v", pointsOf(p), p.Correct)
			}
			var got []bool
			for _, pk := range p.Picks {
				got = append(got, pk.Correct != nil && *pk.Correct)
			}
			if !slices.Equal(got, []bool{true, true, false}) {
				t.Errorf("pick correctness %v", got)
			}
		})
		tests := []struct {
			name, user, event string
			code              domain.Code
		}{
			{"MissingIsNotFound", "p-amy", l.mar.ID, domain.CodeNotFound},
			{"UnknownUserIsNotFound", "nobody", l.mar.ID, domain.CodeNotFound},
			{"UnknownEventIsNotFound", "p-top", "2030-12-01-x", domain.CodeNotFound},
			{"MalformedUser", "p-top#", l.mar.ID, domain.CodeBadUserInput},
			{"MalformedEvent", "p-top", "mar-show", domain.CodeBadUserInput},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				_, err := s.GetPrediction(ctx, tt.user, tt.event, true)
				wantCode(t, err, tt.code)
			})
		}
	})
}
