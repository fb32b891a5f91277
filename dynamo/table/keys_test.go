package table

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
		{"UserPartition", UserPK("amy"), "USER#amy"},
		{"UserPartitionCognitoSub", UserPK("3f9c1a7e-0d2b-4c55-9a51-2b0c7e1d9f00"), "USER#3f9c1a7e-0d2b-4c55-9a51-2b0c7e1d9f00"},
		{"EventSortKey", EventSK("2024-03-03-aew-revolution"), "EVENT#2024-03-03-aew-revolution"},
		{"EventPartition", EventPK("2024-03-03-aew-revolution"), "EVENT#2024-03-03-aew-revolution"},
		{"MatchSortKey", MatchSK("0b7e8f4e-4a4f-4f8e-9a3c-1d2e3f4a5b6c"), "MATCH#0b7e8f4e-4a4f-4f8e-9a3c-1d2e3f4a5b6c"},
		{"SeasonSortKey", StandingSK(2024), "STANDINGS#2024"},
		{"SeasonIndexPartition", SeasonPK(2024), "STANDINGS#2024"},
		{"SeasonEventsPrefix", SeasonEventsPrefix(2024), "EVENT#2024-"},
		{"CardEventItem", eventCard, "CARD#000"},
		{"CardFirstMatch", CardSK(1), "CARD#001"},
		{"CardLastMatch", CardSK(domain.MaxMatches), "CARD#030"},
		{"Unscored", PendingSK("amy"), "UNSCORED#amy"},
		{"ScoreZero", mustScoreSK(t, 0, "amy"), "SCORE#999999999#amy"},
		{"ScorePadded", mustScoreSK(t, 140, "amy"), "SCORE#999999859#amy"},
		{"ScoreMax", mustScoreSK(t, MaxScore, "amy"), "SCORE#000000000#amy"},
		{"LeaderboardWithoutAnswerIsTheScoreKey", mustLeaderboardSK(t, 140, nil, ptr(300), "amy"), "SCORE#999999859#amy"},
		{"LeaderboardGuessUnder", mustLeaderboardSK(t, 140, ptr(300), ptr(280), "amy"), "SCORE#999999859#000000200#amy"},
		{"LeaderboardGuessOver", mustLeaderboardSK(t, 140, ptr(300), ptr(320), "amy"), "SCORE#999999859#000000201#amy"},
		{"LeaderboardGuessExact", mustLeaderboardSK(t, 140, ptr(300), ptr(300), "amy"), "SCORE#999999859#000000000#amy"},
		{"LeaderboardNoGuess", mustLeaderboardSK(t, 140, ptr(300), nil, "amy"), "SCORE#999999859#100000000#amy"},
		{"LeaderboardLargestDistance", mustLeaderboardSK(t, 0, ptr(0), ptr(domain.MaxTiebreakerAnswer), "amy"), "SCORE#999999999#010000001#amy"},
		{"EventOneShardIsTheCardPartition", EventShardPK("2024-03-03-aew-revolution", 0, 1), "EVENT#2024-03-03-aew-revolution"},
		{"EventShardFirst", EventShardPK("2024-03-03-aew-revolution", 0, 16), "EVENT#2024-03-03-aew-revolution#00"},
		{"EventShardLast", EventShardPK("2024-03-03-aew-revolution", 15, 16), "EVENT#2024-03-03-aew-revolution#15"},
		{"SeasonOneShardIsTheSeasonPartition", SeasonShardPK(2024, 0, 1), "STANDINGS#2024"},
		{"SeasonShard", SeasonShardPK(2024, 15, 16), "STANDINGS#2024#15"},
		{"SeasonItem", SeasonKey(2024)[attrPK].(*types.AttributeValueMemberS).Value + "/" + seasonSK, "STANDINGS#2024/SEASON"},
		{"SeasonItemIndexSortKeyBeforeScores", seasonInfo, "INFO"},
		{"ShardItemsPartition", ShardPK("2024-03-03-aew-revolution", 3), "EVENT#2024-03-03-aew-revolution#03"},
		{"SeasonShardItemsPartition", SeasonShardItemPK(2024, 3), "STANDINGS#2024#03"},
		{"LockCopyPartitionThreeDigits", LockPK("2024-03-03-aew-revolution", LockCopies(MaxShards)-1), "EVENT#2024-03-03-aew-revolution#255"},
		{"FirstLockCopyPartition", LockPK("2024-03-03-aew-revolution", 0), "EVENT#2024-03-03-aew-revolution#00"},
		{"LockCopySortKey", LockSK, "LOCK"},
		{"Checkpoint", CheckpointSK, "SCORING"},
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
	if LockCopies(1) != 1 || LockCopies(MaxShards) != 256 || LockCopies(MaxShards) > 1000 {
		t.Fatalf("lock copies: %d at 1 shard, %d at %d; want 1 and 256 (three digits at most)", LockCopies(1), LockCopies(MaxShards), MaxShards)
	}
	for shards := 1; shards <= MaxShards; shards++ {
		copies := LockCopies(shards)
		if copies%shards != 0 {
			t.Fatalf("%d shards: %d copies, not a multiple", shards, copies)
		}
		const players = 64_000
		perShard := make([]int, shards)
		perCopy := make([]int, copies)
		for i := range players {
			u := UserID(fmt.Sprintf("player-%d", i))
			c, s := u.LockCopy(copies), u.Shard(shards)
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
	if c, s := UserID("amy").LockCopy(64), UserID("amy").Shard(16); c != 30 || s != 14 {
		t.Errorf("amy: copy %d of 64, shard %d of 16; want 30, 14 (FNV-1a: changing the hash moves every key)", c, s)
	}
}

func mustScoreSK(t *testing.T, points int, u UserID) string {
	t.Helper()
	sk, err := ScoreSK(points, u)
	if err != nil {
		t.Fatalf("scoreSK(%d, %q): %v", points, u, err)
	}
	return sk
}

func mustLeaderboardSK(t *testing.T, points int, answer, guess *int, u UserID) string {
	t.Helper()
	sk, err := LeaderboardSK(points, answer, guess, u)
	if err != nil {
		t.Fatalf("LeaderboardSK(%d, %v, %v, %q): %v", points, answer, guess, u, err)
	}
	return sk
}

func ptr[T any](v T) *T { return &v }

func TestScoreKeyRejectsWhatDoesNotFit(t *testing.T) {
	t.Parallel()
	for _, points := range []int{-1, MaxScore + 1, 1 << 40} {
		if sk, err := ScoreSK(points, "amy"); err == nil {
			t.Errorf("scoreSK(%d) = %q, want an error", points, sk)
		} else {
			wantCode(t, err, domain.CodeInternal)
		}
		if sk, err := LeaderboardSK(points, ptr(5), ptr(5), "amy"); err == nil {
			t.Errorf("LeaderboardSK(%d) = %q, want an error", points, sk)
		}
	}
	for name, tc := range map[string]struct{ answer, guess *int }{
		"AnswerNegative":  {ptr(-1), ptr(5)},
		"AnswerOverLimit": {ptr(domain.MaxTiebreakerAnswer + 1), ptr(5)},
		"GuessNegative":   {ptr(5), ptr(-1)},
		"GuessOverLimit":  {ptr(5), ptr(domain.MaxTiebreakerAnswer + 1)},
	} {
		t.Run(name, func(t *testing.T) {
			sk, err := LeaderboardSK(10, tc.answer, tc.guess, "amy")
			if err == nil {
				t.Fatalf("= %q, want an error", sk)
			}
			wantCode(t, err, domain.CodeInternal)
		})
	}
}

func TestParseKeysRejectsForeignKeys(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		fn   func() error
	}{
		{"ScoreKeyWithoutPrefix", func() error { _, _, _, err := ParseScoreSK("STANDINGS#2024"); return err }},
		{"ScoreKeyShortDigits", func() error { _, _, _, err := ParseScoreSK("SCORE#12345#amy"); return err }},
		{"ScoreKeyNonDigits", func() error { _, _, _, err := ParseScoreSK("SCORE#99999985x#amy"); return err }},
		{"ScoreKeyNoUser", func() error { _, _, _, err := ParseScoreSK("SCORE#999999859#"); return err }},
		{"ScoreKeyForgedUser", func() error { _, _, _, err := ParseScoreSK("SCORE#999999859#amy#EVENT"); return err }},
		{"TiebreakShort", func() error { _, _, _, err := ParseScoreSK("SCORE#999999859#00000020#amy"); return err }},
		{"TiebreakNonDigits", func() error { _, _, _, err := ParseScoreSK("SCORE#999999859#0000002x0#amy"); return err }},
		{"TiebreakNoGuessWithDistance", func() error { _, _, _, err := ParseScoreSK("SCORE#999999859#100000200#amy"); return err }},
		{"TiebreakNoGuessOver", func() error { _, _, _, err := ParseScoreSK("SCORE#999999859#100000001#amy"); return err }},
		{"TiebreakOverAtZeroDistance", func() error { _, _, _, err := ParseScoreSK("SCORE#999999859#000000001#amy"); return err }},
		{"TiebreakNoneDigitTwo", func() error { _, _, _, err := ParseScoreSK("SCORE#999999859#200000000#amy"); return err }},
		{"TiebreakOverDigitTwo", func() error { _, _, _, err := ParseScoreSK("SCORE#999999859#000000202#amy"); return err }},
		{"TiebreakDistanceOverLimit", func() error { _, _, _, err := ParseScoreSK("SCORE#999999859#010000010#amy"); return err }},
		{"TiebreakNoUser", func() error { _, _, _, err := ParseScoreSK("SCORE#999999859#000000200#"); return err }},
		{"TiebreakForgedUser", func() error { _, _, _, err := ParseScoreSK("SCORE#999999859#000000200#amy#x"); return err }},
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
		PendingSK("zed"), mustScoreSK(t, 0, "amy"), CardSK(2), mustScoreSK(t, 15, "zed"),
		PendingSK("amy"), eventCard, mustScoreSK(t, 15, "amy"), CardSK(domain.MaxMatches), mustScoreSK(t, 18, "top"), CardSK(1),
	}
	want := []string{
		eventCard, CardSK(1), CardSK(2), CardSK(domain.MaxMatches),
		mustScoreSK(t, 18, "top"), mustScoreSK(t, 15, "amy"), mustScoreSK(t, 15, "zed"), mustScoreSK(t, 0, "amy"),
		PendingSK("amy"), PendingSK("zed"),
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
			t.Errorf("%q > %q = %v (the lower bound of what follows the card)", k, prefixCard+"~", got)
		}
	}
	// Seasons and event ids sort chronologically.
	if !(StandingSK(999+1) < StandingSK(2024) && StandingSK(2024) < StandingSK(9999)) {
		t.Error("season keys do not sort by year")
	}
	if !(EventSK("2024-03-03-b") < EventSK("2024-03-10-a")) {
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
		"SCORE#999999859#000000200#amy", "SCORE#999999859#100000000#amy", "SCORE#999999859#100000001#amy",
		"SCORE#999999859#010000001#amy", "SCORE#999999859#000000001#amy", "SCORE#999999859#00000020#amy",
	} {
		f.Add(s, 140)
	}
	f.Add("amy", -1)
	f.Add("amy", MaxScore+1)
	f.Fuzz(func(t *testing.T, s string, points int) {
		e, eErr := ParseEventID(s)
		u, uErr := ParseUserID(s)
		m, mErr := ParseMatchID(s)

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
			oneHash(EventSK(e))
			oneHash(EventPK(e))
			for key, digits := range map[string]int{LockPK(e, LockCopies(MaxShards)-1): len(fmt.Sprint(LockCopies(MaxShards) - 1)), EventShardPK(e, MaxShards-1, MaxShards): 2} {
				if !strings.HasPrefix(key, EventPK(e)+"#") || len(key) != len(EventPK(e))+1+digits {
					t.Fatalf("shard key %q is not the event's partition and %d digits", key, digits)
				}
			}
			if got, err := eventIDFromSK(EventSK(e)); err != nil || got != e {
				t.Fatalf("eventIDFromSK(eventSK(%q)) = %q, %v", e, got, err)
			}
			if !strings.HasPrefix(EventSK(e), SeasonEventsPrefix(mustAtoi(t, s[:4]))) {
				t.Fatalf("event %q is not under its season prefix", e)
			}
		}
		if uErr == nil {
			oneHash(UserPK(u))
			oneHash(PendingSK(u))
			if got, err := userIDFromPK(UserPK(u)); err != nil || got != u {
				t.Fatalf("userIDFromPK(userPK(%q)) = %q, %v", u, got, err)
			}
			sk, err := ScoreSK(points, u)
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
				gp, gt, gu, err := ParseScoreSK(sk)
				if err != nil || gp != points || gt != "" || gu != u {
					t.Fatalf("ParseScoreSK(scoreSK(%d, %q)) = %d, %q, %q, %v", points, u, gp, gt, gu, err)
				}
				if !(sk > prefixScore && sk < scoreUpper) {
					t.Fatalf("score key %q outside the scored range", sk)
				}
				// With a tie-breaker answer: one more '#', fixed width, parsed back, in range.
				answer, guess := points%(domain.MaxTiebreakerAnswer+1), (points/7)%(domain.MaxTiebreakerAnswer+1)
				for _, g := range []*int{&guess, nil} {
					lsk, err := LeaderboardSK(points, &answer, g, u)
					if err != nil {
						t.Fatalf("LeaderboardSK(%d, %d, %v, %q): %v", points, answer, g, u, err)
					}
					if n := strings.Count(lsk, "#"); n != 3 {
						t.Fatalf("leaderboard key %q has %d '#', want 3", lsk, n)
					}
					if len(lsk) != len(sk)+domain.TiebreakKeyLen+1 || !strings.HasPrefix(lsk, sk[:len(prefixScore)+scoreWidth+1]) {
						t.Fatalf("leaderboard key %q is not the score key %q's points, a fixed-width tie-break and the user", lsk, sk)
					}
					gp, gt, gu, err := ParseScoreSK(lsk)
					if err != nil || gp != points || gt != domain.TiebreakKey(&answer, g) || gu != u {
						t.Fatalf("ParseScoreSK(%q) = %d, %q, %q, %v", lsk, gp, gt, gu, err)
					}
					if !(lsk > prefixScore && lsk < scoreUpper) {
						t.Fatalf("leaderboard key %q outside the scored range", lsk)
					}
				}
			}
		}
		if mErr == nil {
			oneHash(MatchSK(m))
		}

		// Any string that parses as a score key is exactly the key of what it parsed to.
		if p, pt, pu, err := ParseScoreSK(s); err == nil {
			if again, err := scoreKey(p, pt, pu); err != nil || again != s {
				t.Fatalf("ParseScoreSK(%q) = %d, %q, %q: rebuilt %q, %v", s, p, pt, pu, again, err)
			}
		}
		if pu, err := userIDFromPK(s); err == nil && UserPK(pu) != s {
			t.Fatalf("userIDFromPK(%q) = %q does not rebuild the key", s, pu)
		}
		if pe, err := eventIDFromSK(s); err == nil && EventSK(pe) != s {
			t.Fatalf("eventIDFromSK(%q) = %q does not rebuild the key", s, pe)
		}
		// Audit logs: an event's log partition has the builder's '#' only; a string that
		// passes checkAuditSK is exactly the key AuditSK builds from its parts.
		if eErr == nil {
			oneHash(AuditPK(AuditLogID(e)))
		}
		if err := checkAuditSK(s); err == nil {
			at, nonce, _ := strings.Cut(s, "#")
			tm, _ := time.Parse(AuditTimeLayout, at)
			if again := AuditSK(tm, nonce); again != s {
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

// TestScoreKeysSortAsCompareStandings: the index's ranked keys, compared as strings, order
// players as domain.CompareStandings does.
func TestScoreKeysSortAsCompareStandings(t *testing.T) {
	t.Parallel()
	type row struct {
		points int
		user   UserID
	}
	rows := []row{{0, "amy"}, {90, "zed"}, {80, "bob"}, {80, "amy"}, {MaxScore, "c"}, {7, "amy2"}, {7, "amy"}}
	for _, a := range rows {
		for _, b := range rows {
			keys := strings.Compare(mustScoreSK(t, a.points, a.user), mustScoreSK(t, b.points, b.user))
			rule := domain.CompareStandings(a.points, string(a.user), b.points, string(b.user))
			if (keys < 0) != (rule < 0) || (keys > 0) != (rule > 0) {
				t.Errorf("%v vs %v: keys compare %d, CompareStandings %d", a, b, keys, rule)
			}
		}
	}
}

// TestLeaderboardKeysSortAsCompareLeaderboard: under a counted tie-breaker answer, the
// index's leaderboard keys, compared as strings, order rows as domain.CompareLeaderboard
// does (points high first, a guess before none, distance small first, at or under before
// over, then user id); without an answer, as domain.CompareStandings does. The shard merge
// and the cursors rely on it: a page is read and merged in key order.
func TestLeaderboardKeysSortAsCompareLeaderboard(t *testing.T) {
	t.Parallel()
	rows := []domain.LeaderboardRow{
		{Points: 80, Guess: ptr(300), UserID: "amy"}, {Points: 80, Guess: ptr(300), UserID: "bob"},
		{Points: 80, Guess: ptr(290), UserID: "cat"}, {Points: 80, Guess: ptr(310), UserID: "ann"},
		{Points: 80, Guess: ptr(305), UserID: "dan"}, {Points: 80, UserID: "aaa"}, {Points: 80, UserID: "zed"},
		{Points: 80, Guess: ptr(0), UserID: "eve"}, {Points: 80, Guess: ptr(domain.MaxTiebreakerAnswer), UserID: "max"},
		{Points: 90, UserID: "top"}, {Points: 0, Guess: ptr(300), UserID: "low"}, {Points: 80, Guess: ptr(300), UserID: "amy2"},
	}
	for _, answer := range []*int{nil, ptr(300), ptr(0), ptr(domain.MaxTiebreakerAnswer)} {
		for _, a := range rows {
			for _, b := range rows {
				keys := strings.Compare(mustLeaderboardSK(t, a.Points, answer, a.Guess, UserID(a.UserID)), mustLeaderboardSK(t, b.Points, answer, b.Guess, UserID(b.UserID)))
				rule := domain.CompareLeaderboard(answer, a, b)
				if (keys < 0) != (rule < 0) || (keys > 0) != (rule > 0) {
					t.Errorf("answer %v: %+v vs %+v: keys compare %d, CompareLeaderboard %d", deref(answer), a, b, keys, rule)
				}
			}
		}
	}
}

func deref(p *int) any {
	if p == nil {
		return nil
	}
	return *p
}
