package dynamo

import (
	"encoding/base64"
	"math"
	"strings"
	"testing"

	"github.com/pickem/api/domain"
)

func testCodec() *cursorCodec {
	return newCursorCodec([][]byte{[]byte("cursor-test-key-0123456789abcdef0123")})
}

var codecCursors = []struct {
	name        string
	c           cursor
	kind, owner string
}{
	{"Events", cursor{Kind: cursorEvents, Owner: "all", ID: "2024-03-03-aew-revolution"}, cursorEvents, "all"},
	{"EventsOfSeason", cursor{Kind: cursorEvents, Owner: "2024", ID: "2024-03-03-aew-revolution"}, cursorEvents, "2024"},
	{"Predictions", cursor{Kind: cursorPredictions, Owner: "amy", ID: "2024-03-03-aew-revolution"}, cursorPredictions, "amy"},
	{"Leaderboard", cursor{Kind: cursorLeaderboard, Owner: "2024-03-03-x", ID: "amy", Points: 15, Index: 3, Rank: 2, Shards: 16}, cursorLeaderboard, "2024-03-03-x"},
	{"LeaderboardZeroPoints", cursor{Kind: cursorLeaderboard, Owner: "2024-03-03-x", ID: "amy", Points: 0, Index: 9, Rank: 4, Shards: 1}, cursorLeaderboard, "2024-03-03-x"},
	{"Standings", cursor{Kind: cursorStandings, Owner: "2024", ID: "zed", Points: MaxScore, Index: 1, Rank: 1, Shards: 1}, cursorStandings, "2024"},
	{"StandingsLargestRank", cursor{Kind: cursorStandings, Owner: "2024", ID: strings.Repeat("z", domain.MaxUserIDLen), Points: MaxScore, Index: math.MaxInt32, Rank: math.MaxInt32, Shards: MaxShards}, cursorStandings, "2024"},
	{"AuditLog", cursor{Kind: cursorAudit, Owner: "2024-03-03-x", ID: "2024-03-03T20:15:00.123456789Z#0123456789abcdef"}, cursorAudit, "2024-03-03-x"},
	{"ModerationLog", cursor{Kind: cursorAudit, Owner: domain.AuditLogModeration, ID: "2024-03-03T20:15:00.000000000Z#ffffffffffffffff"}, cursorAudit, domain.AuditLogModeration},
	{"LongestEventID", cursor{Kind: cursorPredictions, Owner: strings.Repeat("u", domain.MaxUserIDLen), ID: "2024-03-03-" + strings.Repeat("a", domain.MaxEventIDLen-11)}, cursorPredictions, strings.Repeat("u", domain.MaxUserIDLen)},
}

func TestCursorRoundTrip(t *testing.T) {
	t.Parallel()
	cc := testCodec()
	for _, tt := range codecCursors {
		t.Run(tt.name, func(t *testing.T) {
			s := cc.encode(tt.c)
			if strings.ContainsAny(s, "+/=#") {
				t.Errorf("cursor %q is not URL-safe", s)
			}
			if len(s) > maxCursorLen {
				t.Errorf("cursor of %d bytes, over %d", len(s), maxCursorLen)
			}
			got, err := cc.decode(s, tt.kind, tt.owner)
			mustOK(t, err)
			if got != tt.c {
				t.Errorf("decode(encode(%+v)) = %+v", tt.c, got)
			}
		})
	}
}

// TestCursorTamperEvident: changing any bit of a cursor, or presenting it for another
// list, owner or key, is BAD_USER_INPUT (issue 9, row 6).
func TestCursorTamperEvident(t *testing.T) {
	t.Parallel()
	cc := testCodec()
	for _, tt := range codecCursors {
		t.Run(tt.name, func(t *testing.T) {
			s := cc.encode(tt.c)
			b, err := base64.RawURLEncoding.DecodeString(s)
			mustOK(t, err)
			for i := range b {
				for bit := range 8 {
					forged := append([]byte(nil), b...)
					forged[i] ^= 1 << bit
					_, err := cc.decode(base64.RawURLEncoding.EncodeToString(forged), tt.kind, tt.owner)
					if domain.ErrorCode(err) != domain.CodeBadUserInput {
						t.Fatalf("byte %d bit %d flipped: err %v", i, bit, err)
					}
				}
			}
			for _, other := range []string{tt.owner + "x", "", "2030", "all"} {
				if other == tt.owner {
					continue
				}
				_, err := cc.decode(s, tt.kind, other)
				wantCode(t, err, domain.CodeBadUserInput)
			}
			// Truncated and extended.
			for _, forged := range []string{s[:len(s)-1], s[:len(s)-4], s + "A", s + "AAAA", s[4:]} {
				_, err := cc.decode(forged, tt.kind, tt.owner)
				wantCode(t, err, domain.CodeBadUserInput)
			}
		})
	}
}

// TestCursorRewrittenFields re-signs nothing: a cursor re-encoded with another owner,
// id or rank fields under an unknown key is refused, as issue 9's row 6 did by hand.
func TestCursorRewrittenFields(t *testing.T) {
	t.Parallel()
	cc := testCodec()
	attacker := newCursorCodec(nil) // the attacker does not know the key
	lb := cursor{Kind: cursorLeaderboard, Owner: "2024-03-03-x", ID: "amy", Points: 15, Index: 3, Rank: 2, Shards: 4}
	for name, c := range map[string]cursor{
		"OwnerRewritten": {Kind: cursorLeaderboard, Owner: "2024-03-04-y", ID: "amy", Points: 15, Index: 3, Rank: 2, Shards: 4},
		"RankForged":     {Kind: cursorLeaderboard, Owner: lb.Owner, ID: "amy", Points: 15, Index: math.MaxInt32, Rank: math.MaxInt32, Shards: 4},
		"Identical":      lb,
	} {
		t.Run(name, func(t *testing.T) {
			_, err := cc.decode(attacker.encode(c), cursorLeaderboard, c.Owner)
			wantCode(t, err, domain.CodeBadUserInput)
		})
	}
	t.Run("OtherKindSameOwner", func(t *testing.T) {
		_, err := cc.decode(cc.encode(cursor{Kind: cursorStandings, Owner: "2024", ID: "amy", Index: 1, Rank: 1}), cursorEvents, "2024")
		wantCode(t, err, domain.CodeBadUserInput)
	})
}

// TestCursorSignedButInvalid: even a cursor signed with the right key is checked
// (defence in depth), and ranks beyond GraphQL's 32-bit Int are refused.
func TestCursorSignedButInvalid(t *testing.T) {
	t.Parallel()
	cc := testCodec()
	for name, c := range map[string]cursor{
		"EventIDForgesKey":   {Kind: cursorEvents, Owner: "all", ID: "2024-03-03-x#USER#amy"},
		"UserIDForgesKey":    {Kind: cursorStandings, Owner: "2024", ID: "amy#STANDINGS#2024", Index: 1, Rank: 1},
		"EmptyID":            {Kind: cursorPredictions, Owner: "amy"},
		"PointsOverflow":     {Kind: cursorStandings, Owner: "2024", ID: "amy", Points: MaxScore + 1, Index: 1, Rank: 1},
		"RankAboveIndex":     {Kind: cursorStandings, Owner: "2024", ID: "amy", Index: 2, Rank: 3},
		"RankedWithoutIndex": {Kind: cursorLeaderboard, Owner: "2024-03-03-x", ID: "amy", Shards: 1},
		"NoShards":           {Kind: cursorLeaderboard, Owner: "2024-03-03-x", ID: "amy", Index: 1, Rank: 1},
		"TooManyShards":      {Kind: cursorStandings, Owner: "2024", ID: "amy", Index: 1, Rank: 1, Shards: MaxShards + 1},
		"IndexOver32Bits":    {Kind: cursorStandings, Owner: "2024", ID: "amy", Index: math.MaxInt32 + 1, Rank: 1},
		"RankOver32Bits":     {Kind: cursorStandings, Owner: "2024", ID: "amy", Index: math.MaxInt32 + 1, Rank: math.MaxInt32 + 1},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := cc.decode(cc.encode(c), c.Kind, c.Owner)
			wantCode(t, err, domain.CodeBadUserInput)
		})
	}
	for name, s := range map[string]string{
		"Empty":         "",
		"Garbage":       "!!!not base64!!!",
		"Padded":        cc.encode(codecCursors[0].c) + "==",
		"OldJSONFormat": base64.RawURLEncoding.EncodeToString([]byte(`{"k":"events","o":"all","i":"2024-03-03-x"}`)),
		"OverLong":      strings.Repeat("A", maxCursorLen+4),
	} {
		t.Run(name, func(t *testing.T) {
			_, err := cc.decode(s, cursorEvents, "all")
			wantCode(t, err, domain.CodeBadUserInput)
		})
	}
}

// TestCursorKeyRotation: the first key signs, every key verifies, an unknown key fails.
func TestCursorKeyRotation(t *testing.T) {
	t.Parallel()
	oldKey, newKey := []byte("old-cursor-key-0123456789abcdef0123"), []byte("new-cursor-key-0123456789abcdef0123")
	before := newCursorCodec([][]byte{oldKey})
	during := newCursorCodec([][]byte{newKey, oldKey})
	after := newCursorCodec([][]byte{newKey})
	c := codecCursors[3].c
	oldCursor, newCursor := before.encode(c), during.encode(c)
	if oldCursor == newCursor {
		t.Fatal("the first key does not sign")
	}
	for name, tc := range map[string]struct {
		cc *cursorCodec
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
			_, err := tc.cc.decode(tc.s, c.Kind, c.Owner)
			if tc.ok {
				mustOK(t, err)
			} else {
				wantCode(t, err, domain.CodeBadUserInput)
			}
		})
	}
	t.Run("StoresWithoutKeysDisagree", func(t *testing.T) {
		a, b := New(nil, "t"), New(nil, "t")
		_, err := b.cursors.decode(a.cursors.encode(c), c.Kind, c.Owner)
		wantCode(t, err, domain.CodeBadUserInput)
		shared := NewCursorKey()
		a, b = New(nil, "t", WithCursorKeys(shared)), New(nil, "t", WithCursorKeys(shared))
		_, err = b.cursors.decode(a.cursors.encode(c), c.Kind, c.Owner)
		mustOK(t, err)
	})
}

// FuzzCursorDecode: decoding never panics, and whatever it accepts is a valid cursor
// that encodes back to the same string.
func FuzzCursorDecode(f *testing.F) {
	cc := testCodec()
	for _, tt := range codecCursors {
		f.Add(cc.encode(tt.c), tt.kind, tt.owner)
	}
	f.Add("", cursorEvents, "all")
	f.Add("AAAA", cursorStandings, "2024")
	f.Fuzz(func(t *testing.T, s, kind, owner string) {
		if _, known := cursorKinds[kind]; !known {
			kind = cursorEvents
		}
		c, err := cc.decode(s, kind, owner)
		if err != nil {
			if domain.ErrorCode(err) != domain.CodeBadUserInput {
				t.Fatalf("code %s", domain.ErrorCode(err))
			}
			return
		}
		if c.check() != nil || c.Kind != kind || c.Owner != owner {
			t.Fatalf("accepted an invalid cursor %+v", c)
		}
		if again := cc.encode(c); again != s {
			t.Fatalf("accepted %q, which re-encodes as %q", s, again)
		}
	})
}

// BenchmarkCursorEncode is the cost of one cursor (a 100-row page encodes 100).
func BenchmarkCursorEncode(b *testing.B) {
	cc := testCodec()
	c := cursor{Kind: cursorLeaderboard, Owner: "2025-07-06-event-00", ID: "u00042", Points: 420, Index: 42, Rank: 40}
	b.ReportAllocs()
	for b.Loop() {
		_ = cc.encode(c)
	}
}

// BenchmarkCursorDecode is the cost of checking one cursor.
func BenchmarkCursorDecode(b *testing.B) {
	cc := testCodec()
	c := cursor{Kind: cursorLeaderboard, Owner: "2025-07-06-event-00", ID: "u00042", Points: 420, Index: 42, Rank: 40}
	s := cc.encode(c)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := cc.decode(s, c.Kind, c.Owner); err != nil {
			b.Fatal(err)
		}
	}
}
