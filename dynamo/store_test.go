package dynamo

import (
	"testing"

	"github.com/pickem/api/domain"
	"github.com/pickem/api/dynamo/table"
)

// TestWithScoreShards: the count is 1 by default and must be 1 to MaxShards.
func TestWithScoreShards(t *testing.T) {
	t.Parallel()
	if s := New(nil, "t"); s.shards != 1 {
		t.Errorf("default %d shards, want 1", s.shards)
	}
	if s := New(nil, "t", WithScoreShards(table.MaxShards)); s.shards != table.MaxShards {
		t.Errorf("WithScoreShards(%d): %d", table.MaxShards, s.shards)
	}
	for _, n := range []int{0, -1, table.MaxShards + 1} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("WithScoreShards(%d) did not panic", n)
				}
			}()
			WithScoreShards(n)
		}()
	}
}

// TestWithCursorKeys: stores without keys sign with keys of their own, so one's cursors do
// not open the other's pages; stores sharing a key do.
func TestWithCursorKeys(t *testing.T) {
	t.Parallel()
	c := table.Cursor{Kind: table.CursorEvents, Owner: "all", ID: "2030-03-01-show"}
	a, b := New(nil, "t"), New(nil, "t")
	_, err := b.cursors.Decode(a.cursors.Encode(c), c.Kind, c.Owner)
	wantCode(t, err, domain.CodeBadUserInput)
	shared := table.NewCursorKey()
	a, b = New(nil, "t", WithCursorKeys(shared)), New(nil, "t", WithCursorKeys(shared))
	_, err = b.cursors.Decode(a.cursors.Encode(c), c.Kind, c.Owner)
	mustOK(t, err)
}
