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

// Ranks outside a leaderboard page. A player's rank in an event (or a season) is 1 + the
// number of players with more points — ties share a rank, as on the pages (1, 2, 2, 4).
// Counting the rows above a player in the index would read up to every row of the list (a
// million at the top of a big event), so scoring keeps score histograms instead:
//
//   - Shard histograms (type "ranks", keys.go: PK = the shard's index partition name,
//     SK = RANKS): for shard s of an event's predictions or of a season's standings, how
//     many of the shard's players have each points total (attributes p<points>), and rev,
//     how many times it changed. Scoring updates them in the transactions that write the
//     scores — a batch holds the players of one shard, so one ADD per histogram per
//     transaction (rankDelta) — so they always agree with the scores; a shard's histogram is
//     written by its shard's batches only, never a hot item.
//   - Rank tables (type "rankTable", SK = RANKS in the event's or season's own partition):
//     the shard histograms summed, as a compact sorted table (points, players), written when
//     a scoring run completes (summarizeRanks). Reads use these: one small item per event or
//     season, kept by the read cache like the other public reads.
//
// So a rank is that of the last completed scoring run: after a correction, ranks move when
// the run that applies it completes; a season's ranks when the run of any of its events
// does. An event or season without a rank table (none scored since issue 12, and not
// migrated) shows no rank (null).
const (
	TypeRanks     = "ranks"
	TypeRankTable = "rankTable"
)

// EncodeRankTable writes h (points → players) as uvarint pairs (points, players), points high to low, entries
// with players only.
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
