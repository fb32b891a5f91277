package table

import "testing"

// TestKeyShards checks which keys the model spreads over shards, built by keys.go itself,
// in a table of 16-shard events and seasons and in one of single-shard ones.
func TestKeyShards(t *testing.T) {
	e := EventID("2030-06-01-show")
	for _, c := range []struct {
		name   string
		pk, sk string
		shards int
		want   int
	}{
		{"LockCopy", LockPK(e, 37), LockSK, 16, 256},
		{"EventShardOnTheIndex", EventShardPK(e, 5, 16), "UNSCORED#u1", 16, 16},
		{"EventShardQuery", EventShardPK(e, 15, 16), "", 16, 16},
		{"EventHistogram", ShardPK(e, 3), ranksSK, 16, 16},
		{"Checkpoint", ShardPK(e, 12), CheckpointSK, 16, 16},
		{"SeasonShard", SeasonShardPK(2030, 9, 16), "SCORE#1#u1", 16, 16},
		{"EventPartition", EventPK(e), "", 16, 0},
		{"EventItem", eventsPK, EventSK(e), 16, 0},
		{"Prediction", UserPK("u1"), EventSK(e), 16, 0},
		{"Standing", UserPK("u1"), StandingSK(2030), 16, 0},
		{"NotAnEvent", "EVENT#not an id#05", "", 16, 0},
		{"NotAShardOfTheSeason", "STANDINGS#2030#105", "", 16, 0},
		{"LastLockCopy", LockPK(e, 255), LockSK, 16, 256},
		{"NotALockCopy", LockPK(e, 256), LockSK, 16, 0},
		{"OneShardLockCopy", LockPK(e, 0), LockSK, 1, 1},
		{"OneShardIndexPartitionIsTheEvent", EventShardPK(e, 0, 1), "UNSCORED#u1", 1, 0},
		{"OneShardCheckpoint", ShardPK(e, 0), CheckpointSK, 1, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := KeyShards(c.pk, c.sk, c.shards); got != c.want {
				t.Errorf("KeyShards(%q, %q, %d) = %d; want %d", c.pk, c.sk, c.shards, got, c.want)
			}
		})
	}
}
