package dynamo

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/pickem/api/domain"
)

func TestKeyBuilders(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, got, want string
	}{
		{"UserPartition", userPK("amy"), "USER#amy"},
		{"UserPartitionCognitoSub", userPK("3f9c1a7e-0d2b-4c55-9a51-2b0c7e1d9f00"), "USER#3f9c1a7e-0d2b-4c55-9a51-2b0c7e1d9f00"},
		{"EventSortKey", eventSK("2024-03-03-aew-revolution"), "EVENT#2024-03-03-aew-revolution"},
		{"EventPartition", eventPK("2024-03-03-aew-revolution"), "EVENT#2024-03-03-aew-revolution"},
		{"MatchSortKey", matchSK("0b7e8f4e-4a4f-4f8e-9a3c-1d2e3f4a5b6c"), "MATCH#0b7e8f4e-4a4f-4f8e-9a3c-1d2e3f4a5b6c"},
		{"SeasonSortKey", standingSK(2024), "STANDINGS#2024"},
		{"SeasonIndexPartition", seasonPK(2024), "STANDINGS#2024"},
		{"SeasonEventsPrefix", seasonEventsPrefix(2024), "EVENT#2024-"},
		{"CardEventItem", eventCard, "CARD#000"},
		{"CardFirstMatch", cardSK(1), "CARD#001"},
		{"CardLastMatch", cardSK(domain.MaxMatches), "CARD#030"},
		{"Unscored", pendingSK("amy"), "UNSCORED#amy"},
		{"ScoreZero", mustScoreSK(t, 0, "amy"), "SCORE#999999999#amy"},
		{"ScorePadded", mustScoreSK(t, 140, "amy"), "SCORE#999999859#amy"},
		{"ScoreMax", mustScoreSK(t, MaxScore, "amy"), "SCORE#000000000#amy"},
		{"EventOneShardIsTheCardPartition", eventShardPK("2024-03-03-aew-revolution", 0, 1), "EVENT#2024-03-03-aew-revolution"},
		{"EventShardFirst", eventShardPK("2024-03-03-aew-revolution", 0, 16), "EVENT#2024-03-03-aew-revolution#00"},
		{"EventShardLast", eventShardPK("2024-03-03-aew-revolution", 15, 16), "EVENT#2024-03-03-aew-revolution#15"},
		{"SeasonOneShardIsTheSeasonPartition", seasonShardPK(2024, 0, 1), "STANDINGS#2024"},
		{"SeasonShard", seasonShardPK(2024, 15, 16), "STANDINGS#2024#15"},
		{"SeasonItem", seasonKey(2024)[attrPK].(*types.AttributeValueMemberS).Value + "/" + seasonSK, "STANDINGS#2024/SEASON"},
		{"SeasonItemIndexSortKeyBeforeScores", seasonInfo, "INFO"},
		{"ShardItemsPartition", shardPK("2024-03-03-aew-revolution", 3), "EVENT#2024-03-03-aew-revolution#03"},
		{"SeasonShardItemsPartition", seasonShardItemPK(2024, 3), "STANDINGS#2024#03"},
		{"LockCopyPartitionThreeDigits", lockPK("2024-03-03-aew-revolution", lockCopies(MaxShards)-1), "EVENT#2024-03-03-aew-revolution#255"},
		{"FirstLockCopyPartition", lockPK("2024-03-03-aew-revolution", 0), "EVENT#2024-03-03-aew-revolution#00"},
		{"LockCopySortKey", lockSK, "LOCK"},
		{"Checkpoint", checkpointSK, "SCORING"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("got %q, want %q", tt.got, tt.want)
			}
		})
	}
}

// TestShards: a player's prediction and standing shard is their lock copy mod the shard
// count, for every count from 1 to MaxShards; players spread evenly over shards and copies
// (the model assumes every shard takes 1/K of the load); every copy belongs to one shard.
func TestShards(t *testing.T) {
	t.Parallel()
	if lockCopies(1) != 1 || lockCopies(MaxShards) != 256 || lockCopies(MaxShards) > 1000 {
		t.Fatalf("lock copies: %d at 1 shard, %d at %d; want 1 and 256 (three digits at most)", lockCopies(1), lockCopies(MaxShards), MaxShards)
	}
	for shards := 1; shards <= MaxShards; shards++ {
		copies := lockCopies(shards)
		if copies%shards != 0 {
			t.Fatalf("%d shards: %d copies, not a multiple", shards, copies)
		}
		const players = 64_000
		perShard := make([]int, shards)
		perCopy := make([]int, copies)
		for i := range players {
			u := userID(fmt.Sprintf("player-%d", i))
			c, s := lockCopy(u, copies), shardOf(u, shards)
			if c < 0 || c >= copies || s != c%shards {
				t.Fatalf("%d shards: user %s: copy %d, shard %d", shards, u, c, s)
			}
			perShard[s]++
			perCopy[c]++
		}
		for name, counts := range map[string][]int{"shard": perShard, "copy": perCopy} {
			want := players / len(counts)
			for i, n := range counts {
				if n < want*80/100 || n > want*120/100 {
					t.Errorf("%d shards: %s %d holds %d players, want %d ± 20%%", shards, name, i, n, want)
				}
			}
		}
	}
	// Stable across releases: the shard of a player is in their keys.
	if c, s := lockCopy("amy", 64), shardOf("amy", 16); c != 30 || s != 14 {
		t.Errorf("amy: copy %d of 64, shard %d of 16; want 30, 14 (FNV-1a: changing the hash moves every key)", c, s)
	}
}

// TestWithScoreShards: the count is 1 by default and must be 1 to MaxShards.
func TestWithScoreShards(t *testing.T) {
	t.Parallel()
	if s := New(nil, "t"); s.shards != 1 {
		t.Errorf("default %d shards, want 1", s.shards)
	}
	if s := New(nil, "t", WithScoreShards(MaxShards)); s.shards != MaxShards {
		t.Errorf("WithScoreShards(%d): %d", MaxShards, s.shards)
	}
	for _, n := range []int{0, -1, MaxShards + 1} {
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

func mustScoreSK(t *testing.T, points int, u userID) string {
	t.Helper()
	sk, err := scoreSK(points, u)
	if err != nil {
		t.Fatalf("scoreSK(%d, %q): %v", points, u, err)
	}
	return sk
}

func TestScoreKeyRejectsWhatDoesNotFit(t *testing.T) {
	t.Parallel()
	for _, points := range []int{-1, MaxScore + 1, 1 << 40} {
		if sk, err := scoreSK(points, "amy"); err == nil {
			t.Errorf("scoreSK(%d) = %q, want an error", points, sk)
		} else {
			wantCode(t, err, domain.CodeInternal)
		}
	}
}

func TestParseKeysRejectsForeignKeys(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		fn   func() error
	}{
		{"ScoreKeyWithoutPrefix", func() error { _, _, err := parseScoreSK("STANDINGS#2024"); return err }},
		{"ScoreKeyShortDigits", func() error { _, _, err := parseScoreSK("SCORE#12345#amy"); return err }},
		{"ScoreKeyNonDigits", func() error { _, _, err := parseScoreSK("SCORE#99999985x#amy"); return err }},
		{"ScoreKeyNoUser", func() error { _, _, err := parseScoreSK("SCORE#999999859#"); return err }},
		{"ScoreKeyForgedUser", func() error { _, _, err := parseScoreSK("SCORE#999999859#amy#EVENT"); return err }},
		{"UserKeyWrongPrefix", func() error { _, err := userIDFromPK("EVENT#amy"); return err }},
		{"UserKeyForged", func() error { _, err := userIDFromPK("USER#amy#EVENT#x"); return err }},
		{"EventKeyWrongPrefix", func() error { _, err := eventIDFromSK("USER#2024-03-03-x"); return err }},
		{"EventKeyBadDate", func() error { _, err := eventIDFromSK("EVENT#2024-02-30-x"); return err }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.fn(); err == nil {
				t.Error("parsed, want an error")
			}
		})
	}
}

// TestKeyOrder checks the sort-order contract of keys.go: in an event's index partition the
// card sorts first in card order, then scored predictions highest first with ties by user
// id, then unscored ones; the card range and the card+scored range have fixed bounds.
func TestKeyOrder(t *testing.T) {
	t.Parallel()
	keys := []string{
		pendingSK("zed"), mustScoreSK(t, 0, "amy"), cardSK(2), mustScoreSK(t, 15, "zed"),
		pendingSK("amy"), eventCard, mustScoreSK(t, 15, "amy"), cardSK(domain.MaxMatches), mustScoreSK(t, 18, "top"), cardSK(1),
	}
	want := []string{
		eventCard, cardSK(1), cardSK(2), cardSK(domain.MaxMatches),
		mustScoreSK(t, 18, "top"), mustScoreSK(t, 15, "amy"), mustScoreSK(t, 15, "zed"), mustScoreSK(t, 0, "amy"),
		pendingSK("amy"), pendingSK("zed"),
	}
	sort.Strings(keys)
	if strings.Join(keys, " ") != strings.Join(want, " ") {
		t.Fatalf("sorted keys\n got %v\nwant %v", keys, want)
	}
	for _, k := range want {
		card := strings.HasPrefix(k, prefixCard)
		if got := k < scoreUpper; got != (card || strings.HasPrefix(k, prefixScore)) {
			t.Errorf("%q < scoreUpper = %v", k, got)
		}
		if got := k > prefixCard+"~"; got == card {
			t.Errorf("%q > %q = %v (propagateEventRef's lower bound)", k, prefixCard+"~", got)
		}
	}
	// Seasons and event ids sort chronologically.
	if !(standingSK(999+1) < standingSK(2024) && standingSK(2024) < standingSK(9999)) {
		t.Error("season keys do not sort by year")
	}
	if !(eventSK("2024-03-03-b") < eventSK("2024-03-10-a")) {
		t.Error("event keys do not sort by date")
	}
}

// FuzzKeys checks that ids reaching a key are validated: anything with '#', empty, too long
// or not matching the id grammar is rejected, and accepted ids round-trip through the key
// builders without forging another key.
func FuzzKeys(f *testing.F) {
	for _, s := range []string{
		"", "#", "amy", "amy#EVENT", "USER#amy", "a#b#c", "ünïcödé", "amy\x00", "amy\n", " amy", "amy ",
		"auth0|123", "3f9c1a7e-0d2b-4c55-9a51-2b0c7e1d9f00", "3F9C1A7E-0D2B-4C55-9A51-2B0C7E1D9F00",
		"{3f9c1a7e-0d2b-4c55-9a51-2b0c7e1d9f00}", "urn:uuid:3f9c1a7e-0d2b-4c55-9a51-2b0c7e1d9f00",
		"3f9c1a7e-0d2b-4c55-9a51-2b0c7e1d9f0#", "2024-03-03-aew-revolution", "2024-03-03-aew#revolution",
		"2024-02-30-x", "2030-03-01T12:00:00.000000000Z#0123456789abcdef", "2030-03-01T12:00:00.000000000Z#0123456789ABCDEF", "2024-03-03-", "2024-03-03-A", "2024-03-03-x\n", "２０２４-03-03-x", "0000-01-01-x",
		"2024-03-03-" + strings.Repeat("a", 89), "2024-03-03-" + strings.Repeat("a", 90),
		strings.Repeat("u", domain.MaxUserIDLen), strings.Repeat("u", domain.MaxUserIDLen+1),
		"SCORE#999999859#amy", "SCORE#000000000#a#b", "SCORE#-00000001#amy", "SCORE#99999985#amy",
	} {
		f.Add(s, 140)
	}
	f.Add("amy", -1)
	f.Add("amy", MaxScore+1)
	f.Fuzz(func(t *testing.T, s string, points int) {
		e, eErr := parseEventID(s)
		u, uErr := parseUserID(s)
		m, mErr := parseMatchID(s)

		// What must be rejected.
		reject := map[string]bool{
			"containsHash":   strings.Contains(s, "#"),
			"empty":          s == "",
			"overLong":       len(s) > domain.MaxUserIDLen,
			"notPrintASCII7": strings.IndexFunc(s, func(r rune) bool { return r < 0x21 || r > 0x7e }) >= 0,
		}
		for why, bad := range reject {
			if !bad {
				continue
			}
			if eErr == nil || uErr == nil || mErr == nil {
				t.Fatalf("%q (%s) accepted: event %v, user %v, match %v", s, why, eErr == nil, uErr == nil, mErr == nil)
			}
		}
		if len(s) > domain.MaxEventIDLen && eErr == nil {
			t.Fatalf("over-long event id %q accepted", s)
		}
		for _, err := range []error{eErr, uErr, mErr} {
			if err != nil {
				wantCode(t, err, domain.CodeBadUserInput)
			}
		}

		// Accepted ids round-trip and put exactly the builder's own '#' in a key.
		oneHash := func(key string) {
			if n := strings.Count(key, "#"); n != 1 {
				t.Fatalf("key %q has %d '#', want 1", key, n)
			}
		}
		if eErr == nil {
			oneHash(eventSK(e))
			oneHash(eventPK(e))
			for key, digits := range map[string]int{lockPK(e, lockCopies(MaxShards)-1): len(fmt.Sprint(lockCopies(MaxShards) - 1)), eventShardPK(e, MaxShards-1, MaxShards): 2} {
				if !strings.HasPrefix(key, eventPK(e)+"#") || len(key) != len(eventPK(e))+1+digits {
					t.Fatalf("shard key %q is not the event's partition and %d digits", key, digits)
				}
			}
			if got, err := eventIDFromSK(eventSK(e)); err != nil || got != e {
				t.Fatalf("eventIDFromSK(eventSK(%q)) = %q, %v", e, got, err)
			}
			if !strings.HasPrefix(eventSK(e), seasonEventsPrefix(mustAtoi(t, s[:4]))) {
				t.Fatalf("event %q is not under its season prefix", e)
			}
		}
		if uErr == nil {
			oneHash(userPK(u))
			oneHash(pendingSK(u))
			if got, err := userIDFromPK(userPK(u)); err != nil || got != u {
				t.Fatalf("userIDFromPK(userPK(%q)) = %q, %v", u, got, err)
			}
			sk, err := scoreSK(points, u)
			if points < 0 || points > MaxScore {
				if err == nil {
					t.Fatalf("scoreSK(%d) = %q, want an error", points, sk)
				}
			} else {
				if err != nil {
					t.Fatalf("scoreSK(%d, %q): %v", points, u, err)
				}
				if n := strings.Count(sk, "#"); n != 2 {
					t.Fatalf("score key %q has %d '#', want 2", sk, n)
				}
				if len(sk) != len(prefixScore)+scoreWidth+1+len(u) {
					t.Fatalf("score key %q is not fixed width", sk)
				}
				gp, gu, err := parseScoreSK(sk)
				if err != nil || gp != points || gu != u {
					t.Fatalf("parseScoreSK(scoreSK(%d, %q)) = %d, %q, %v", points, u, gp, gu, err)
				}
				if !(sk > prefixScore && sk < scoreUpper) {
					t.Fatalf("score key %q outside the scored range", sk)
				}
			}
		}
		if mErr == nil {
			oneHash(matchSK(m))
		}

		// Any string that parses as a score key is exactly the key of what it parsed to.
		if p, pu, err := parseScoreSK(s); err == nil {
			if again, err := scoreSK(p, pu); err != nil || again != s {
				t.Fatalf("parseScoreSK(%q) = %d, %q: rebuilt %q, %v", s, p, pu, again, err)
			}
		}
		if pu, err := userIDFromPK(s); err == nil && userPK(pu) != s {
			t.Fatalf("userIDFromPK(%q) = %q does not rebuild the key", s, pu)
		}
		if pe, err := eventIDFromSK(s); err == nil && eventSK(pe) != s {
			t.Fatalf("eventIDFromSK(%q) = %q does not rebuild the key", s, pe)
		}
		// Audit logs: an event's log partition has the builder's '#' only; a string that
		// passes checkAuditSK is exactly the key auditSK builds from its parts.
		if eErr == nil {
			oneHash(auditPK(auditLogID(e)))
		}
		if err := checkAuditSK(s); err == nil {
			at, nonce, _ := strings.Cut(s, "#")
			tm, _ := time.Parse(auditTimeLayout, at)
			if again := auditSK(tm, nonce); again != s {
				t.Fatalf("checkAuditSK(%q) accepted a key auditSK rebuilds as %q", s, again)
			}
		}
	})
}

func mustAtoi(t *testing.T, s string) int {
	t.Helper()
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			t.Fatalf("not a number: %q", s)
		}
		n = n*10 + int(c-'0')
	}
	return n
}
