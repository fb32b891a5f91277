package table

import (
	"encoding/binary"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"

	"github.com/pickem/api/domain"
)

// Scoring's items (package scoring says how they are kept): a shard's score histogram
// (TypeRanks: attributes HistogramAttr(points) counting the shard's players with those
// points, and rev, how many times it changed), a rank table (TypeRankTable: attribute
// "table", EncodeRankTable of the shards' histograms summed, and rev, the sum of their revs
// it was built from), and a shard's checkpoint (CheckpointRow, whose Picks are keyed by
// PickKey).
const (
	TypeRanks     = "ranks"
	TypeRankTable = "rankTable"
)

// EncodeRankTable writes h (points → players) as uvarint pairs (points, players), points
// high to low, entries with players only.
func EncodeRankTable(h map[int]int) []byte {
	points := slices.Sorted(maps.Keys(h))
	var b []byte
	for i := len(points) - 1; i >= 0; i-- {
		if n := h[points[i]]; n > 0 {
			b = binary.AppendUvarint(b, uint64(points[i]))
			b = binary.AppendUvarint(b, uint64(n))
		}
	}
	return b
}

// DecodeRankTable reads a table EncodeRankTable wrote.
func DecodeRankTable(b []byte) (*domain.RankTable, error) {
	t := &domain.RankTable{}
	for len(b) > 0 {
		p, k := binary.Uvarint(b)
		if k <= 0 || p > MaxScore {
			return nil, fmt.Errorf("rank table: bad points")
		}
		b = b[k:]
		n, k := binary.Uvarint(b)
		if k <= 0 || n > math.MaxInt32 {
			return nil, fmt.Errorf("rank table: bad count")
		}
		b = b[k:]
		if !t.Add(int(p), int(n)) {
			return nil, fmt.Errorf("rank table: entries out of order or empty")
		}
	}
	return t, nil
}

// PickKey is the checkpoint's key of a team of a match.
func PickKey(matchID string, team int) string { return matchID + "#" + strconv.Itoa(team) }
