package dynamo

import "testing"

// TestKeyShards checks which keys the model spreads over shards, built by keys.go itself,
// in a table of 16-shard events and seasons and in one of single-shard ones.
func TestKeyShards(t *testing.T) {
	e := eventID("2030-06-01-show")
	for _, c := range []struct {
		name   string
		pk, sk string
		shards int
		want   int
	}{
		{"LockCopy", lockPK(e, 37), lockSK, 16, 256},
		{"EventShardOnTheIndex", eventShardPK(e, 5, 16), "UNSCORED#u1", 16, 16},
		{"EventShardQuery", eventShardPK(e, 15, 16), "", 16, 16},
		{"EventHistogram", shardPK(e, 3), ranksSK, 16, 16},
		{"Checkpoint", shardPK(e, 12), checkpointSK, 16, 16},
		{"SeasonShard", seasonShardPK(2030, 9, 16), "SCORE#1#u1", 16, 16},
		{"EventPartition", eventPK(e), "", 16, 0},
		{"EventItem", eventsPK, eventSK(e), 16, 0},
		{"Prediction", userPK("u1"), eventSK(e), 16, 0},
		{"Standing", userPK("u1"), standingSK(2030), 16, 0},
		{"NotAnEvent", "EVENT#not an id#05", "", 16, 0},
		{"NotAShardOfTheSeason", "STANDINGS#2030#105", "", 16, 0},
		{"LastLockCopy", lockPK(e, 255), lockSK, 16, 256},
		{"NotALockCopy", lockPK(e, 256), lockSK, 16, 0},
		{"OneShardLockCopy", lockPK(e, 0), lockSK, 1, 1},
		{"OneShardIndexPartitionIsTheEvent", eventShardPK(e, 0, 1), "UNSCORED#u1", 1, 0},
		{"OneShardCheckpoint", shardPK(e, 0), checkpointSK, 1, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := KeyShards(c.pk, c.sk, c.shards); got != c.want {
				t.Errorf("KeyShards(%q, %q, %d) = %d; want %d", c.pk, c.sk, c.shards, got, c.want)
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
			if _, err := c.store.GetPrediction(ctx, "u1", ev.ID, true); err != nil {
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
