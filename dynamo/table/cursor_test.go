package table

import (
	"encoding/base64"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/pickem/api/domain"
)

func testCodec() *Cursors {
	return NewCursors([][]byte{[]byte("cursor-test-key-0123456789abcdef0123")})
}

var codecCursors = []struct {
	name        string
	c           Cursor
	kind, owner string
}{
	{"Events", Cursor{Kind: CursorEvents, Owner: "all", ID: "2024-03-03-aew-revolution"}, CursorEvents, "all"},
	{"EventsOfSeason", Cursor{Kind: CursorEvents, Owner: "2024", ID: "2024-03-03-aew-revolution"}, CursorEvents, "2024"},
	{"Predictions", Cursor{Kind: CursorPredictions, Owner: "amy", ID: "2024-03-03-aew-revolution"}, CursorPredictions, "amy"},
	{"Leaderboard", Cursor{Kind: CursorLeaderboard, Owner: "2024-03-03-x", ID: "amy", Points: 15, Index: 3, Rank: 2, Shards: 16, Place: 2}, CursorLeaderboard, "2024-03-03-x"},
	{"LeaderboardZeroPoints", Cursor{Kind: CursorLeaderboard, Owner: "2024-03-03-x", ID: "amy", Points: 0, Index: 9, Rank: 4, Shards: 1, Place: 4}, CursorLeaderboard, "2024-03-03-x"},
	{"LeaderboardAnswerCounted", Cursor{Kind: CursorLeaderboard, Owner: "2024-03-03-x", ID: "amy", Points: 15, Index: 5, Rank: 2, Shards: 16,
		Tiebreak: "000000201", Answer: ptr(300), Place: 4, Guess: ptr(320)}, CursorLeaderboard, "2024-03-03-x"},
	{"LeaderboardAnswerCountedNoGuess", Cursor{Kind: CursorLeaderboard, Owner: "2024-03-03-x", ID: "amy", Points: 15, Index: 5, Rank: 2, Shards: 1,
		Tiebreak: "100000000", Answer: ptr(300), Place: 5}, CursorLeaderboard, "2024-03-03-x"},
	{"LeaderboardKeyWithTiebreakBeforeItCounts", Cursor{Kind: CursorLeaderboard, Owner: "2024-03-03-x", ID: "amy", Points: 15, Index: 5, Rank: 2, Shards: 16,
		Tiebreak: "000000000", Place: 2}, CursorLeaderboard, "2024-03-03-x"},
	{"LeaderboardLongest", Cursor{Kind: CursorLeaderboard, Owner: "2024-03-03-x", ID: strings.Repeat("z", domain.MaxUserIDLen), Points: MaxScore, Index: math.MaxInt32, Rank: math.MaxInt32 - 1, Shards: MaxShards,
		Tiebreak: "010000001", Answer: ptr(domain.MaxTiebreakerAnswer), Place: math.MaxInt32, Guess: ptr(domain.MaxTiebreakerAnswer)}, CursorLeaderboard, "2024-03-03-x"},
	{"Standings", Cursor{Kind: CursorStandings, Owner: "2024", ID: "zed", Points: MaxScore, Index: 1, Rank: 1, Shards: 1}, CursorStandings, "2024"},
	{"StandingsLargestRank", Cursor{Kind: CursorStandings, Owner: "2024", ID: strings.Repeat("z", domain.MaxUserIDLen), Points: MaxScore, Index: math.MaxInt32, Rank: math.MaxInt32, Shards: MaxShards}, CursorStandings, "2024"},
	{"AuditLog", Cursor{Kind: CursorAudit, Owner: "2024-03-03-x", ID: "2024-03-03T20:15:00.123456789Z#0123456789abcdef"}, CursorAudit, "2024-03-03-x"},
	{"ModerationLog", Cursor{Kind: CursorAudit, Owner: domain.AuditLogModeration, ID: "2024-03-03T20:15:00.000000000Z#ffffffffffffffff"}, CursorAudit, domain.AuditLogModeration},
	{"LongestEventID", Cursor{Kind: CursorPredictions, Owner: strings.Repeat("u", domain.MaxUserIDLen), ID: "2024-03-03-" + strings.Repeat("a", domain.MaxEventIDLen-11)}, CursorPredictions, strings.Repeat("u", domain.MaxUserIDLen)},
}

func TestCursorRoundTrip(t *testing.T) {
	t.Parallel()
	cc := testCodec()
	for _, tt := range codecCursors {
		t.Run(tt.name, func(t *testing.T) {
			s := cc.Encode(tt.c)
			if strings.ContainsAny(s, "+/=#") {
				t.Errorf("cursor %q is not URL-safe", s)
			}
			if len(s) > maxCursorLen {
				t.Errorf("cursor of %d bytes, over %d", len(s), maxCursorLen)
			}
			got, err := cc.Decode(s, tt.kind, tt.owner)
			mustOK(t, err)
			if !reflect.DeepEqual(got, tt.c) {
				t.Errorf("decode(encode(%+v)) = %+v", tt.c, got)
			}
		})
	}
}

// TestCursorTamperEvident: changing any bit of a cursor, or presenting it for another
// list, owner or key, is BAD_USER_INPUT.
func TestCursorTamperEvident(t *testing.T) {
	t.Parallel()
	cc := testCodec()
	for _, tt := range codecCursors {
		t.Run(tt.name, func(t *testing.T) {
			s := cc.Encode(tt.c)
			b, err := base64.RawURLEncoding.DecodeString(s)
			mustOK(t, err)
			for i := range b {
				for bit := range 8 {
					forged := append([]byte(nil), b...)
					forged[i] ^= 1 << bit
					_, err := cc.Decode(base64.RawURLEncoding.EncodeToString(forged), tt.kind, tt.owner)
					if domain.ErrorCode(err) != domain.CodeBadUserInput {
						t.Fatalf("byte %d bit %d flipped: err %v", i, bit, err)
					}
				}
			}
			for _, other := range []string{tt.owner + "x", "", "2030", "all"} {
				if other == tt.owner {
					continue
				}
				_, err := cc.Decode(s, tt.kind, other)
				wantCode(t, err, domain.CodeBadUserInput)
			}
			// Truncated and extended.
			for _, forged := range []string{s[:len(s)-1], s[:len(s)-4], s + "A", s + "AAAA", s[4:]} {
				_, err := cc.Decode(forged, tt.kind, tt.owner)
				wantCode(t, err, domain.CodeBadUserInput)
			}
		})
	}
}

// TestCursorRewrittenFields re-signs nothing: a cursor re-encoded with another owner,
// id or rank fields under an unknown key is refused.
func TestCursorRewrittenFields(t *testing.T) {
	t.Parallel()
	cc := testCodec()
	attacker := NewCursors(nil) // the attacker does not know the key
	lb := Cursor{Kind: CursorLeaderboard, Owner: "2024-03-03-x", ID: "amy", Points: 15, Index: 3, Rank: 2, Shards: 4}
	for name, c := range map[string]Cursor{
		"OwnerRewritten": {Kind: CursorLeaderboard, Owner: "2024-03-04-y", ID: "amy", Points: 15, Index: 3, Rank: 2, Shards: 4},
		"RankForged":     {Kind: CursorLeaderboard, Owner: lb.Owner, ID: "amy", Points: 15, Index: math.MaxInt32, Rank: math.MaxInt32, Shards: 4},
		"Identical":      lb,
	} {
		t.Run(name, func(t *testing.T) {
			_, err := cc.Decode(attacker.Encode(c), CursorLeaderboard, c.Owner)
			wantCode(t, err, domain.CodeBadUserInput)
		})
	}
	t.Run("OtherKindSameOwner", func(t *testing.T) {
		_, err := cc.Decode(cc.Encode(Cursor{Kind: CursorStandings, Owner: "2024", ID: "amy", Index: 1, Rank: 1}), CursorEvents, "2024")
		wantCode(t, err, domain.CodeBadUserInput)
	})
}

// TestCursorSignedButInvalid: even a cursor signed with the right key is checked
// (defence in depth), and ranks beyond GraphQL's 32-bit Int are refused.
func TestCursorSignedButInvalid(t *testing.T) {
	t.Parallel()
	cc := testCodec()
	for name, c := range map[string]Cursor{
		"EventIDForgesKey":   {Kind: CursorEvents, Owner: "all", ID: "2024-03-03-x#USER#amy"},
		"UserIDForgesKey":    {Kind: CursorStandings, Owner: "2024", ID: "amy#STANDINGS#2024", Index: 1, Rank: 1},
		"EmptyID":            {Kind: CursorPredictions, Owner: "amy"},
		"PointsOverflow":     {Kind: CursorStandings, Owner: "2024", ID: "amy", Points: MaxScore + 1, Index: 1, Rank: 1},
		"RankAboveIndex":     {Kind: CursorStandings, Owner: "2024", ID: "amy", Index: 2, Rank: 3},
		"RankedWithoutIndex": {Kind: CursorLeaderboard, Owner: "2024-03-03-x", ID: "amy", Shards: 1},
		"NoShards":           {Kind: CursorLeaderboard, Owner: "2024-03-03-x", ID: "amy", Index: 1, Rank: 1},
		"TooManyShards":      {Kind: CursorStandings, Owner: "2024", ID: "amy", Index: 1, Rank: 1, Shards: MaxShards + 1},
		"IndexOver32Bits":    {Kind: CursorStandings, Owner: "2024", ID: "amy", Index: math.MaxInt32 + 1, Rank: 1},
		"RankOver32Bits":     {Kind: CursorStandings, Owner: "2024", ID: "amy", Index: math.MaxInt32 + 1, Rank: math.MaxInt32 + 1},
		"TiebreakMalformed":  {Kind: CursorLeaderboard, Owner: "2024-03-03-x", ID: "amy", Index: 1, Rank: 1, Place: 1, Shards: 1, Tiebreak: "100000201"},
		"TiebreakTooLong":    {Kind: CursorLeaderboard, Owner: "2024-03-03-x", ID: "amy", Index: 1, Rank: 1, Place: 1, Shards: 1, Tiebreak: "1000000000"},
		"PlaceAboveRank":     {Kind: CursorLeaderboard, Owner: "2024-03-03-x", ID: "amy", Index: 3, Rank: 2, Place: 1, Shards: 1, Answer: ptr(5)},
		"PlaceAboveIndex":    {Kind: CursorLeaderboard, Owner: "2024-03-03-x", ID: "amy", Index: 3, Rank: 2, Place: 4, Shards: 1, Answer: ptr(5)},
		"AnswerOverLimit":    {Kind: CursorLeaderboard, Owner: "2024-03-03-x", ID: "amy", Index: 3, Rank: 2, Place: 2, Shards: 1, Answer: ptr(domain.MaxTiebreakerAnswer + 1)},
		"GuessOverLimit":     {Kind: CursorLeaderboard, Owner: "2024-03-03-x", ID: "amy", Index: 3, Rank: 2, Place: 2, Shards: 1, Answer: ptr(5), Guess: ptr(domain.MaxTiebreakerAnswer + 1)},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := cc.Decode(cc.Encode(c), c.Kind, c.Owner)
			wantCode(t, err, domain.CodeBadUserInput)
		})
	}
	t.Run("OrderOnlyOnLeaderboards", func(t *testing.T) {
		for _, c := range []Cursor{
			{Kind: CursorStandings, Owner: "2024", ID: "amy", Index: 1, Rank: 1, Shards: 1, Tiebreak: "000000000"},
			{Kind: CursorStandings, Owner: "2024", ID: "amy", Index: 1, Rank: 1, Shards: 1, Place: 1},
			{Kind: CursorLeague, Owner: "x/2024", ID: "amy", Index: 1, Rank: 1, Answer: ptr(1)},
		} {
			if c.check() == nil {
				t.Errorf("%+v passes check", c)
			}
		}
	})
	for name, s := range map[string]string{
		"Empty":         "",
		"Garbage":       "!!!not base64!!!",
		"Padded":        cc.Encode(codecCursors[0].c) + "==",
		"OldJSONFormat": base64.RawURLEncoding.EncodeToString([]byte(`{"k":"events","o":"all","i":"2024-03-03-x"}`)),
		"OverLong":      strings.Repeat("A", maxCursorLen+4),
	} {
		t.Run(name, func(t *testing.T) {
			_, err := cc.Decode(s, CursorEvents, "all")
			wantCode(t, err, domain.CodeBadUserInput)
		})
	}
}

// TestLeaderboardCursorWithoutOrderKeepsItsBytes: a leaderboard cursor without a tie-break
// component or an answer (every cursor of an event without a tie-breaker question) is the
// wire format's ranked fields and shard count alone, so cursors handed out before leaderboards
// had an order part still open their page.
func TestLeaderboardCursorWithoutOrderKeepsItsBytes(t *testing.T) {
	t.Parallel()
	cc := testCodec()
	c := Cursor{Kind: CursorLeaderboard, Owner: "2024-03-03-x", ID: "amy", Points: 15, Index: 300, Rank: 2, Shards: 16, Place: 2}
	b := []byte{cursorVersion, cursorKinds[CursorLeaderboard], 3, 'a', 'm', 'y', 15, 0xac, 0x02, 2, 16}
	want := base64.RawURLEncoding.EncodeToString(append(b, tag(cc.keys[0], b, c.Owner)...))
	if got := cc.Encode(c); got != want {
		t.Fatalf("Encode = %q, want %q", got, want)
	}
	got, err := cc.Decode(want, CursorLeaderboard, c.Owner)
	mustOK(t, err)
	if !reflect.DeepEqual(got, c) {
		t.Fatalf("Decode = %+v, want %+v (place = rank)", got, c)
	}
	pl := got.Placer()
	if pl.Answer != nil || pl.Place != 2 || pl.Ranker != (domain.Ranker{Index: 300, Rank: 2, Points: 15}) {
		t.Fatalf("Placer = %+v", pl)
	}
	if sk, err := got.ScoreKey(); err != nil || sk != "SCORE#999999984#amy" {
		t.Fatalf("ScoreKey = %q, %v", sk, err)
	}
}

// TestCursorScoreKeyCarriesTheTiebreak: a leaderboard cursor's position is the last row's
// whole key, its tie-break component included.
func TestCursorScoreKeyCarriesTheTiebreak(t *testing.T) {
	t.Parallel()
	c := Cursor{Kind: CursorLeaderboard, ID: "amy", Points: 15, Index: 5, Rank: 2, Shards: 1, Tiebreak: "000000201", Answer: ptr(300), Place: 4, Guess: ptr(320)}
	want := mustLeaderboardSK(t, 15, ptr(300), ptr(320), "amy")
	if sk, err := c.ScoreKey(); err != nil || sk != want {
		t.Fatalf("ScoreKey = %q, %v; want %q", sk, err, want)
	}
	if pl := c.Placer(); *pl.Answer != 300 || *pl.Guess != 320 || pl.Place != 4 || pl.Ranker.Index != 5 {
		t.Fatalf("Placer = %+v", pl)
	}
}

// TestCursorKeyRotation: the first key signs, every key verifies, an unknown key fails.
func TestCursorKeyRotation(t *testing.T) {
	t.Parallel()
	oldKey, newKey := []byte("old-cursor-key-0123456789abcdef0123"), []byte("new-cursor-key-0123456789abcdef0123")
	before := NewCursors([][]byte{oldKey})
	during := NewCursors([][]byte{newKey, oldKey})
	after := NewCursors([][]byte{newKey})
	c := codecCursors[3].c
	oldCursor, newCursor := before.Encode(c), during.Encode(c)
	if oldCursor == newCursor {
		t.Fatal("the first key does not sign")
	}
	for name, tc := range map[string]struct {
		cc *Cursors
		s  string
		ok bool
	}{
		"OldCursorDuringRotation": {during, oldCursor, true},
		"NewCursorDuringRotation": {during, newCursor, true},
		"NewCursorAfterRotation":  {after, newCursor, true},
		"OldCursorAfterRotation":  {after, oldCursor, false},
		"NewCursorOnOldServer":    {before, newCursor, false},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := tc.cc.Decode(tc.s, c.Kind, c.Owner)
			if tc.ok {
				mustOK(t, err)
			} else {
				wantCode(t, err, domain.CodeBadUserInput)
			}
		})
	}
	t.Run("CodecsWithoutKeysDisagree", func(t *testing.T) {
		a, b := NewCursors(nil), NewCursors(nil)
		_, err := b.Decode(a.Encode(c), c.Kind, c.Owner)
		wantCode(t, err, domain.CodeBadUserInput)
		shared := NewCursorKey()
		a, b = NewCursors([][]byte{shared}), NewCursors([][]byte{shared})
		_, err = b.Decode(a.Encode(c), c.Kind, c.Owner)
		mustOK(t, err)
	})
}

// FuzzCursorDecode: decoding never panics, and whatever it accepts is a valid cursor
// that encodes back to the same string.
func FuzzCursorDecode(f *testing.F) {
	cc := testCodec()
	for _, tt := range codecCursors {
		f.Add(cc.Encode(tt.c), tt.kind, tt.owner)
	}
	f.Add("", CursorEvents, "all")
	f.Add("AAAA", CursorStandings, "2024")
	f.Fuzz(func(t *testing.T, s, kind, owner string) {
		if _, known := cursorKinds[kind]; !known {
			kind = CursorEvents
		}
		c, err := cc.Decode(s, kind, owner)
		if err != nil {
			if domain.ErrorCode(err) != domain.CodeBadUserInput {
				t.Fatalf("code %s", domain.ErrorCode(err))
			}
			return
		}
		if c.check() != nil || c.Kind != kind || c.Owner != owner {
			t.Fatalf("accepted an invalid cursor %+v", c)
		}
		if again := cc.Encode(c); again != s {
			t.Fatalf("accepted %q, which re-encodes as %q", s, again)
		}
	})
}

// BenchmarkCursorEncode is the cost of one cursor (a 100-row page encodes 100).
func BenchmarkCursorEncode(b *testing.B) {
	cc := testCodec()
	c := Cursor{Kind: CursorLeaderboard, Owner: "2025-07-06-event-00", ID: "u00042", Points: 420, Index: 42, Rank: 40}
	b.ReportAllocs()
	for b.Loop() {
		_ = cc.Encode(c)
	}
}

// BenchmarkCursorDecode is the cost of checking one cursor.
func BenchmarkCursorDecode(b *testing.B) {
	cc := testCodec()
	c := Cursor{Kind: CursorLeaderboard, Owner: "2025-07-06-event-00", ID: "u00042", Points: 420, Index: 42, Rank: 40}
	s := cc.Encode(c)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := cc.Decode(s, c.Kind, c.Owner); err != nil {
			b.Fatal(err)
		}
	}
}
