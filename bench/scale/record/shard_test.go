package record

import "testing"

// lockTx is a submit's transaction as the sharded layout records it: the player's lock copy
// (shard 5 of 64) updated, their prediction put, its index entry in shard 5 of 16.
func lockTx() Call {
	return Call{Op: "TransactWriteItems", Accesses: Accesses{
		{PK: "EVENT#e#{05%64}", SK: "LOCK", Kind: "update", Txn: true, Bytes: 250, WCU: 2},
		{PK: "USER#{p1}", SK: "EVENT#e", Kind: "put", Txn: true, Bytes: 800, WCU: 2},
		{Index: "GSI", PK: "EVENT#e#{05%16}", SK: "UNSCORED#{p1}", Kind: "put", Txn: true, Bytes: 800, WCU: 1},
	}}
}

func TestShardShiftKeepsCopiesAndShardsTogether(t *testing.T) {
	for d := 0; d < 64; d++ {
		c := lockTx().Shift(d)
		cp, sh := marks(c.Accesses[0].PK)[0], marks(c.Accesses[2].PK)[0]
		if cp[0] != (5+d)%64 || sh[0] != cp[0]%16 || cp[1] != 64 || sh[1] != 16 {
			t.Fatalf("shift %d: copy %v, shard %v; want copy %d of 64 and its shard (copy mod 16) of 16", d, cp, sh, (5+d)%64)
		}
	}
	if p := ShardPeriod([]Call{lockTx()}); p != 64 {
		t.Errorf("period %d, want 64", p)
	}
}
