package dynamo

import (
	"context"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/pickem/api/domain"
	"github.com/pickem/api/dynamo/ddb"
	"github.com/pickem/api/dynamo/table"
	"github.com/pickem/api/internal/testclock"
)

// calls runs fn with a cost counter and returns the DynamoDB calls it made.
func calls(t *testing.T, fn func(ctx context.Context)) int {
	t.Helper()
	ctx, cost := ddb.WithCost(ctxT(t))
	fn(ctx)
	return cost.Snapshot().Calls
}

func TestReadCache(t *testing.T) {
	t.Parallel()
	l := newLeague(t)
	cacheClock := testclock.New(time.Date(2030, 3, 1, 12, 0, 0, 0, time.UTC))
	cached := New(l.db, l.table, WithClock(l.clock.Now), WithReadCache(ReadCache{TTL: 2 * time.Second, Now: cacheClock.Now}))
	other := l.s // another process: no cache, writes the same table

	card := func(t *testing.T, ctx context.Context) domain.Event {
		t.Helper()
		e, err := cached.GetEvent(ctx, l.mar.ID)
		mustOK(t, err)
		return e
	}

	t.Run("CardServedForTheTTLThenReadAgain", func(t *testing.T) {
		if n := calls(t, func(ctx context.Context) { card(t, ctx) }); n != 1 {
			t.Fatalf("a miss made %d calls, want 1 (the card's one Query)", n)
		}
		if n := calls(t, func(ctx context.Context) { card(t, ctx) }); n != 0 {
			t.Fatalf("a hit made %d calls", n)
		}
		// Another process renames the event: this one serves the old card until the TTL.
		_, err := other.UpdateEvent(ctxT(t), l.mar.ID, domain.EventUpdate{Name: ptr("Mar Show Renamed")})
		mustOK(t, err)
		cacheClock.Advance(1999 * time.Millisecond)
		if e := card(t, ctxT(t)); e.Name == "Mar Show Renamed" {
			t.Fatal("the entry was read again before its TTL")
		}
		cacheClock.Advance(time.Millisecond)
		var e domain.Event
		if n := calls(t, func(ctx context.Context) { e = card(t, ctx) }); n != 1 || e.Name != "Mar Show Renamed" {
			t.Fatalf("after the TTL: %d calls, name %q; want 1 call and the new name", n, e.Name)
		}
	})

	t.Run("OwnWritesDropWhatTheyChange", func(t *testing.T) {
		card(t, ctxT(t))
		m, err := cached.AddMatch(ctxT(t), l.mar.ID, matchSpec("Added Late", 7))
		mustOK(t, err)
		e := card(t, ctxT(t))
		if e.Matches[len(e.Matches)-1].ID != m.ID {
			t.Fatal("the store served its cached card after changing it")
		}
		_, err = cached.UpdateEvent(ctxT(t), l.mar.ID, domain.EventUpdate{Name: ptr("Mar Show Again")})
		mustOK(t, err)
		if e := card(t, ctxT(t)); e.Name != "Mar Show Again" {
			t.Fatal("the store served its cached card after renaming the event")
		}
	})

	t.Run("NotFoundIsNotKept", func(t *testing.T) {
		for range 2 {
			n := calls(t, func(ctx context.Context) {
				_, err := cached.GetEvent(ctx, "2030-05-01-no-such-show")
				wantCode(t, err, domain.CodeNotFound)
			})
			if n != 1 {
				t.Fatalf("NOT_FOUND: %d calls, want 1 each time", n)
			}
		}
	})

	t.Run("FirstPagesOnlyAndPerPageSize", func(t *testing.T) {
		page := func(ctx context.Context, first int, after string) domain.Page[domain.Standing] {
			p, err := cached.Standings(ctx, 2030, first, after)
			mustOK(t, err)
			return p
		}
		if n := calls(t, func(ctx context.Context) { page(ctx, 2, "") }); n != 1 {
			t.Fatalf("standings miss: %d calls, want 1 (the season's one shard)", n)
		}
		var p domain.Page[domain.Standing]
		if n := calls(t, func(ctx context.Context) { p = page(ctx, 2, "") }); n != 0 || len(p.Items) != 2 || *p.Items[1].Rank != 2 {
			t.Fatalf("standings hit: %d calls, %d rows", n, len(p.Items))
		}
		if n := calls(t, func(ctx context.Context) { page(ctx, 3, "") }); n != 1 {
			t.Fatalf("another page size: %d calls, want its own read", n)
		}
		for range 2 {
			if n := calls(t, func(ctx context.Context) { page(ctx, 2, p.EndCursor()) }); n != 1 {
				t.Fatalf("a page after a cursor: %d calls, want 1 every time", n)
			}
		}
		for range 2 {
			n := calls(t, func(ctx context.Context) {
				_, lb, err := cached.GetEventWithLeaderboard(ctx, l.spring.ID, 50, true)
				mustOK(t, err)
				if len(lb.Items) != 4 {
					t.Fatalf("leaderboard: %d rows", len(lb.Items))
				}
			})
			if n > 1 {
				t.Fatalf("event with leaderboard: %d calls", n)
			}
		}
	})

	t.Run("ScoringDropsTheSeasonAndTheEvent", func(t *testing.T) {
		_, err := cached.Standings(ctxT(t), 2030, 10, "")
		mustOK(t, err)
		_, _, err = cached.GetEventWithLeaderboard(ctxT(t), l.mar.ID, 10, true)
		mustOK(t, err)
		mar := card(t, ctxT(t))
		l.on(t).submit("p-new", mar, 0, 0, 0, 0)
		l.clock.Set(time.Date(2030, 3, 21, 0, 0, 0, 0, time.UTC))
		for _, m := range mar.Matches {
			_, err := cached.SetResult(ctxT(t), l.mar.ID, m.ID, &domain.MatchResult{Outcome: domain.OutcomeWin, Winner: ptr(0)})
			mustOK(t, err)
		}
		for {
			rep, err := cached.ScoreEvent(ctxT(t), l.mar.ID, false)
			mustOK(t, err)
			if rep.Complete {
				break
			}
		}
		st, err := cached.Standings(ctxT(t), 2030, 10, "")
		mustOK(t, err)
		found := false
		for _, s := range st.Items {
			found = found || s.User.ID == "p-new"
		}
		e, lb, err := cached.GetEventWithLeaderboard(ctxT(t), l.mar.ID, 10, true)
		mustOK(t, err)
		if !found || e.Stored != domain.StateScored || len(lb.Items) == 0 {
			t.Fatalf("after scoring through the store: p-new in standings %v, event %s, %d leaderboard rows", found, e.Stored, len(lb.Items))
		}
	})

	t.Run("CardAndLeaderboardKeptApart", func(t *testing.T) {
		cacheClock.Advance(time.Minute)
		withPage := func(ctx context.Context, id string) (domain.Event, domain.Page[domain.Prediction]) {
			e, lb, err := cached.GetEventWithLeaderboard(ctx, id, 3, true)
			mustOK(t, err)
			return e, lb
		}
		// A miss of both: one Query of the event's one shard, the card and the top.
		if n := calls(t, func(ctx context.Context) { withPage(ctx, l.spring.ID) }); n != 1 {
			t.Fatalf("scored event with its leaderboard, both missed: %d calls, want 1", n)
		}
		// The card it read is GetEvent's entry, and the page is kept on its own.
		if n := calls(t, func(ctx context.Context) { _, err := cached.GetEvent(ctx, l.spring.ID); mustOK(t, err) }); n != 0 {
			t.Fatalf("the card after the event with its leaderboard: %d calls, want 0", n)
		}
		var lb domain.Page[domain.Prediction]
		if n := calls(t, func(ctx context.Context) { _, lb = withPage(ctx, l.spring.ID) }); n != 0 || len(lb.Items) != 3 {
			t.Fatalf("again: %d calls, %d rows", n, len(lb.Items))
		}
		if n := calls(t, func(ctx context.Context) {
			page, err := cached.EventLeaderboard(ctx, l.spring, 3, "", true)
			mustOK(t, err)
			if page.EndCursor() != lb.EndCursor() {
				t.Fatal("EventLeaderboard's first page differs from GetEventWithLeaderboard's")
			}
		}); n != 0 {
			t.Fatalf("EventLeaderboard's first page: %d calls, want the cached page", n)
		}
		// The page without picks is an entry of its own: it is read, then served, and
		// neither serves the other.
		if n := calls(t, func(ctx context.Context) {
			_, lean, err := cached.GetEventWithLeaderboard(ctx, l.spring.ID, 3, false)
			mustOK(t, err)
			if len(lean.Items) != 3 || len(lean.Items[0].Picks) != 0 {
				t.Fatalf("page without picks: %d rows, %d picks", len(lean.Items), len(lean.Items[0].Picks))
			}
		}); n != 1 {
			t.Fatalf("the page without picks after the one with: %d calls, want 1 (its shard)", n)
		}
		if n := calls(t, func(ctx context.Context) {
			page, err := cached.EventLeaderboard(ctx, l.spring, 3, "", false)
			mustOK(t, err)
			if len(page.Items[0].Picks) != 0 {
				t.Fatal("the cached page without picks has picks")
			}
			page, err = cached.EventLeaderboard(ctx, l.spring, 3, "", true)
			mustOK(t, err)
			if len(page.Items[0].Picks) == 0 {
				t.Fatal("the cached page with picks has none")
			}
		}); n != 0 {
			t.Fatalf("both pages again: %d calls, want 0", n)
		}
		// A cached card of an event that is not scored: no shard is read.
		_, err := cached.GetEvent(ctxT(t), l.apr.ID)
		mustOK(t, err)
		var e domain.Event
		if n := calls(t, func(ctx context.Context) { e, lb = withPage(ctx, l.apr.ID) }); n != 0 || e.Stored == domain.StateScored || len(lb.Items) != 0 {
			t.Fatalf("unscored event with a cached card: %d calls, state %s, %d rows", n, e.Stored, len(lb.Items))
		}
		// Without the cache: the card alone is one Query, with the page one Query more per
		// shard.
		if n := calls(t, func(ctx context.Context) { _, err := other.GetEvent(ctx, l.spring.ID); mustOK(t, err) }); n != 1 {
			t.Fatalf("uncached card: %d calls, want 1", n)
		}
		if n := calls(t, func(ctx context.Context) {
			_, lb, err := other.GetEventWithLeaderboard(ctx, l.spring.ID, 3, true)
			mustOK(t, err)
			if len(lb.Items) != 3 {
				t.Fatalf("uncached leaderboard: %d rows", len(lb.Items))
			}
		}); n != 1 {
			t.Fatalf("uncached event with its leaderboard: %d calls, want 1", n)
		}
	})

	t.Run("ConcurrentMissesShareOneRead", func(t *testing.T) {
		cacheClock.Advance(time.Minute)
		ctx, cost := ddb.WithCost(ctxT(t))
		var wg sync.WaitGroup
		for range 16 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := cached.GetEvent(ctx, l.apr.ID)
				mustOK(t, err)
			}()
		}
		wg.Wait()
		if n := cost.Snapshot().Calls; n != 1 {
			t.Fatalf("16 concurrent reads of one expired entry made %d calls, want 1", n)
		}
	})
}

// TestReadCacheWeight measures what a cached read keeps in memory per byte of the items it
// came from, and checks ddb.BytesPerItemByte is not below it. Not parallel: other tests'
// garbage would blur the heap figures. The reads are warmed first (connections and their
// buffers exist before the first snapshot) and the figure is the median of three trials:
// what the rest of the process allocates or frees meanwhile moves single trials, both ways.
func TestReadCacheWeight(t *testing.T) {
	l := newLeague(t)
	s := l.s
	for name, read := range map[string]func(z *ddb.Sized) (any, error){
		"card": func(z *ddb.Sized) (any, error) { return s.readEvent(ctxT(t), table.EventID(l.spring.ID), z) },
		"leaderboard": func(z *ddb.Sized) (any, error) {
			items, err := s.leaderboardItems(ctxT(t), table.EventID(l.spring.ID), l.shards, 50, "", true, z)
			if err != nil {
				return nil, err
			}
			return s.leaderboardPage(table.EventID(l.spring.ID), l.shards, items, 50, domain.Placer{})
		},
		"standings": func(z *ddb.Sized) (any, error) { return s.readStandingsPage(ctxT(t), 2030, 50, "", z) },
	} {
		for range 20 {
			_, err := read(&ddb.Sized{})
			mustOK(t, err)
		}
		var trials []float64
		var itemBytes int
		for range 3 {
			perByte, n := keptPerItemByte(t, read)
			trials, itemBytes = append(trials, perByte), n
		}
		slices.Sort(trials)
		median := trials[len(trials)/2]
		t.Logf("%-11s %5d item bytes: %.2f bytes kept per item byte (trials %.2f)", name, itemBytes, median, trials)
		if median > ddb.BytesPerItemByte {
			t.Errorf("%s keeps %.2f bytes per item byte, over the estimate %d", name, median, ddb.BytesPerItemByte)
		}
	}
}

// keptPerItemByte keeps results of read until they came from at least keptItemBytes of
// items, and returns the heap they hold per byte of those items and the item bytes of one
// read. The floor keeps a small read (a short standings page) from being weighed against
// the heap's own noise (connections opened and closed by parallel shard reads, of a few KB
// each): with 120 copies of 748 bytes under load such noise moved the figure from 2.5 to 4.9.
func keptPerItemByte(t *testing.T, read func(z *ddb.Sized) (any, error)) (float64, int) {
	t.Helper()
	const keptItemBytes = 256 << 10
	probe := &ddb.Sized{}
	_, err := read(probe)
	mustOK(t, err)
	copies := max(120, keptItemBytes/max(probe.Bytes, 1))
	kept := make([]any, copies)
	z := &ddb.Sized{}
	runtime.GC()
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for i := range kept {
		v, err := read(z)
		mustOK(t, err)
		kept[i] = v
	}
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(kept)
	return float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / float64(z.Bytes), z.Bytes / copies
}
