package dynamo

import "testing"

// TestKeyShards checks which keys the model spreads over shards, built by keys.go itself.
func TestKeyShards(t *testing.T) {
	e := eventID("2030-06-01-show")
	for _, c := range []struct {
		name         string
		pk, sk       string
		wantPK, want int
	}{
		{"LockCopy", lockPK(e, 37), lockSK, DefaultLockCopies, 0},
		{"EventShardOnTheIndex", eventShardPK(e, 5), "UNSCORED#u1", scoreShards, 0},
		{"EventShardQuery", eventShardPK(e, 15), "", scoreShards, 0},
		{"EventHistogram", eventShardPK(e, 3), ranksSK, scoreShards, 0},
		{"SeasonShard", seasonShardPK(2030, 9), "SCORE#1#u1", scoreShards, 0},
		{"Checkpoint", eventPK(e), checkpointSK(12), 0, scoreShards},
		{"EventPartition", eventPK(e), "", 0, 0},
		{"EventItem", eventsPK, eventSK(e), 0, 0},
		{"Prediction", userPK("u1"), eventSK(e), 0, 0},
		{"Standing", userPK("u1"), seasonSK(2030), 0, 0},
		{"CountBeforeIssue12", eventPK(e), countSK(2), 0, 0},
		{"NotAnEvent", "EVENT#not an id#05", "", 0, 0},
		{"NotAShardOfTheSeason", "STANDINGS#2030#105", "", 0, 0},
		{"LastLockCopy", lockPK(e, DefaultLockCopies-1), lockSK, DefaultLockCopies, 0},
		{"NotALockCopy", lockPK(e, DefaultLockCopies), lockSK, 0, 0},
		{"NotACheckpoint", eventPK(e), checkpointSK(scoreShards), 0, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, s := KeyShards(c.pk, c.sk)
			if p != c.wantPK || s != c.want {
				t.Errorf("KeyShards(%q, %q) = %d, %d; want %d, %d", c.pk, c.sk, p, s, c.wantPK, c.want)
			}
		})
	}
}

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
			if _, err := c.store.GetPrediction(ctx, "u1", ev.ID); err != nil {
				t.Fatal(err)
			}
			tagged, untagged := 0, 0
			for _, call := range rec.Take() {
				switch call.Cache {
				case cardCacheKey(eventID(ev.ID)):
					tagged++
				case "":
					untagged++
				default:
					t.Errorf("%s tagged %q, want %q or nothing", call.Op, call.Cache, cardCacheKey(eventID(ev.ID)))
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
