package table

import "testing"

func TestRankTable(t *testing.T) {
	h := map[int]int{10: 2, 7: 3, 3: 1, 5: 0, 4: -2} // empty and negative entries are left out
	tbl, err := DecodeRankTable(EncodeRankTable(h))
	mustOK(t, err)
	for points, want := range map[int]int{11: 1, 10: 1, 8: 3, 7: 3, 5: 6, 3: 6, 0: 7} {
		if got := tbl.Rank(points); got != want {
			t.Errorf("rank(%d) = %d, want %d", points, got, want)
		}
	}
	empty, err := DecodeRankTable(nil)
	mustOK(t, err)
	if empty.Rank(0) != 1 {
		t.Error("the only player of an empty table is not first")
	}
	for name, b := range map[string][]byte{
		"Truncated":       EncodeRankTable(h)[:3],
		"NotDescending":   {3, 1, 7, 1},
		"ZeroPlayers":     {7, 0},
		"OverMaxScore":    EncodeRankTable(map[int]int{MaxScore + 1: 1}),
		"UnterminatedVar": {0x80},
	} {
		if _, err := DecodeRankTable(b); err == nil {
			t.Errorf("%s: decoded", name)
		}
	}
}
