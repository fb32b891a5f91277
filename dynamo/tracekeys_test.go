package dynamo

import (
	"testing"

	"github.com/pickem/api/dynamo/table"
)

// TestRecorderTagsCacheFills: the calls a read-cache fill makes carry its entry's key in the
// trace, with the cache on (a miss) and off (every call), and no other call does.
func TestRecorderTagsCacheFills(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ev := f.createEvent("2030-03-22-cachetag", 20, standardCard())
	f.submit("u1", ev, 0, 1, 0)
	for _, c := range []struct {
		name  string
		store *Store
	}{
		{"CacheOff", f.s},
		{"CacheOn", New(f.db, f.table, WithClock(f.clock.Now), WithReadCache(ReadCache{}))},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec := NewRecorder(f.db, f.table)
			ctx := WithRecorder(ctxT(t), rec)
			if _, err := c.store.GetEvent(ctx, ev.ID); err != nil {
				t.Fatal(err)
			}
			if _, err := c.store.GetPrediction(ctx, "u1", ev.ID, true); err != nil {
				t.Fatal(err)
			}
			tagged, untagged := 0, 0
			for _, call := range rec.Take() {
				switch call.Cache {
				case cardCacheKey(table.EventID(ev.ID)):
					tagged++
				case "":
					untagged++
				default:
					t.Errorf("%s tagged %q, want %q or nothing", call.Op, call.Cache, cardCacheKey(table.EventID(ev.ID)))
				}
			}
			if tagged != 1 || untagged == 0 {
				t.Errorf("%d calls tagged with the card's entry, %d untagged; want the card's one Query tagged and the prediction's reads not", tagged, untagged)
			}
		})
	}
	// Without a recorder, nothing is added to the context.
	if ctx := withCacheFill(ctxT(t), "card|x"); ctx.Value(cacheFillKey{}) != nil {
		t.Error("withCacheFill without a recorder marked the context")
	}
}
