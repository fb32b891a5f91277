package table

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/pickem/api/domain"
)

// Key attribute names, the index and the fixed parts of keys. AttrType is the attribute
// naming an item's type (the Type* constants).
const (
	attrPK    = "PK"
	attrSK    = "SK"
	attrGSIPK = "GSI_PK"
	attrGSISK = "GSI_SK"
	AttrType  = "type"

	// IndexName is the name of the table's one global secondary index.
	IndexName = "GSI"

	eventsPK         = "EVENT"
	UserSK           = "USER"
	UserKeyPrefix    = "USER#"
	prefixEvent      = "EVENT#"
	MatchKeyPrefix   = "MATCH#"
	SeasonKeyPrefix  = "STANDINGS#"
	prefixCard       = "CARD#"
	prefixScore      = "SCORE#"
	PendingKeyPrefix = "UNSCORED#"
	// LockSK is the sort key of an event's lock copies.
	LockSK = "LOCK"
	// CheckpointSK is the sort key of a shard's scoring checkpoint.
	CheckpointSK = "SCORING"
	// seasonSK is the sort key of a season's item; seasonInfo its index sort key, below
	// every standing's ("SCORE#…"), so that a standings page at one shard reads it first.
	seasonSK   = "SEASON"
	seasonInfo = "INFO"
	// scoreUpper is just above every "SCORE#…" key: GSI_SK < scoreUpper is the card plus
	// the scored predictions.
	scoreUpper = "SCORE$"
	// cardUpper is just above every "CARD#…" key. The card is read as the range
	// BETWEEN "CARD#" AND cardUpper rather than begins_with: the same items and cost, but
	// DynamoDB Local evaluates begins_with over the whole partition.
	cardUpper = "CARD$"
	eventCard = "CARD#000"

	// MaxScore is the largest total a score key can hold.
	MaxScore   = 999_999_999
	scoreWidth = 9
)

// MaxShards is the largest shard count an event or a season can have.
const MaxShards = 16

// MaxLockCopies is how many lock copies an event of MaxShards shards has.
const MaxLockCopies = copiesPerShard * MaxShards

// copiesPerShard is how many lock copies an event of more than one shard has per shard.
// The partition-throughput model (make scale, bench/results/scale.md) on the modelled peak
// of a 1,000,000-player event (1M submits in the last hour, a 10× peak minute: ~2,800
// submits/s): 256 copies let no submit reach its player as UNAVAILABLE; fewer let some.
const copiesPerShard = 16

// LockCopies is how many lock copies an event of shards shards has: one for a single
// shard, copiesPerShard per shard otherwise (a multiple of shards, so that a copy belongs
// to one shard: copy c is of shard c mod shards).
func LockCopies(shards int) int {
	if shards <= 1 {
		return 1
	}
	return copiesPerShard * shards
}

// Typed ids: a value of these types has been validated and can be put in a key.
type (
	EventID string
	UserID  string
	MatchID string
)

// ParseEventID returns s as an event id, or BAD_USER_INPUT if it is not one
// (domain.ValidateEventID).
func ParseEventID(s string) (EventID, error) {
	if err := domain.ValidateEventID(s); err != nil {
		return "", err
	}
	return EventID(s), nil
}

// ParseUserID returns s as a user id, or BAD_USER_INPUT if it is not one
// (domain.ValidateUserID).
func ParseUserID(s string) (UserID, error) {
	if err := domain.ValidateUserID(s); err != nil {
		return "", err
	}
	return UserID(s), nil
}

// ParseMatchID returns s as a match id, or BAD_USER_INPUT if it is not one
// (domain.ValidateMatchID).
func ParseMatchID(s string) (MatchID, error) {
	if err := domain.ValidateMatchID(s); err != nil {
		return "", err
	}
	return MatchID(s), nil
}

// UserPK is a player's partition: profile, standings, predictions, league rows.
func UserPK(u UserID) string { return UserKeyPrefix + string(u) }

// EventSK is the sort key of an event's item and of a prediction for it.
func EventSK(e EventID) string { return prefixEvent + string(e) }

// EventPK is an event's partition (its matches) and its index partition (its card).
func EventPK(e EventID) string { return prefixEvent + string(e) }

// MatchSK is the sort key of a match's item.
func MatchSK(m MatchID) string { return MatchKeyPrefix + string(m) }

// SeasonPK is a season's partition (its item) and its index partition.
func SeasonPK(season int) string { return fmt.Sprintf("%s%04d", SeasonKeyPrefix, season) }

// StandingSK is the sort key of a player's standing in season.
func StandingSK(season int) string { return SeasonPK(season) }

// CardSK is the index sort key of the match at position on its card.
func CardSK(position int) string { return fmt.Sprintf("%s%03d", prefixCard, position) }

// PendingSK is the index sort key of an unscored prediction.
func PendingSK(u UserID) string { return PendingKeyPrefix + string(u) }

// SeasonEventsPrefix is the sort key prefix of the items of a season's events.
func SeasonEventsPrefix(season int) string { return fmt.Sprintf("%s%04d-", prefixEvent, season) }

// playerHash is FNV-1a of a user id: it places the player's lock copy and score shards.
func playerHash(u UserID) uint32 {
	h := fnv.New32a()
	_, _ = h.Write([]byte(u))
	return h.Sum32()
}

// Shard is the shard (0..shards-1) of the player's prediction or standing in an event or a
// season of shards shards.
func (u UserID) Shard(shards int) int { return int(playerHash(u) % uint32(max(shards, 1))) }

// LockCopy is the lock copy (0..copies-1) of the player's predictions on an event with
// copies lock copies. copies being a multiple of the event's shards, LockCopy mod shards
// is the player's shard.
func (u UserID) LockCopy(copies int) int { return int(playerHash(u) % uint32(copies)) }

// EventShardPK is the index partition of shard s of an event of shards shards: the event's
// own (the card's) with one shard.
func EventShardPK(e EventID, s, shards int) string {
	if shards <= 1 {
		return EventPK(e)
	}
	return fmt.Sprintf("%s%s#%02d", prefixEvent, e, s)
}

// SeasonShardPK is the index partition of shard s of a season of shards shards: the
// season's own with one shard.
func SeasonShardPK(season, s, shards int) string {
	if shards <= 1 {
		return SeasonPK(season)
	}
	return fmt.Sprintf("%s%04d#%02d", SeasonKeyPrefix, season, s)
}

// EventShardPKs returns the index partitions of an event's shards.
func EventShardPKs(e EventID, shards int) []string {
	pks := make([]string, max(shards, 1))
	for s := range pks {
		pks[s] = EventShardPK(e, s, shards)
	}
	return pks
}

// SeasonShardPKs returns the index partitions of a season's shards.
func SeasonShardPKs(season, shards int) []string {
	pks := make([]string, max(shards, 1))
	for s := range pks {
		pks[s] = SeasonShardPK(season, s, shards)
	}
	return pks
}

// ShardPK is the main-table partition of shard s's own items (its checkpoint, its score
// histogram, the lock copy of the same number) of an event.
func ShardPK(e EventID, s int) string { return fmt.Sprintf("%s%s#%02d", prefixEvent, e, s) }

// SeasonShardItemPK is the main-table partition of a season shard's score histogram.
func SeasonShardItemPK(season, s int) string {
	return fmt.Sprintf("%s%04d#%02d", SeasonKeyPrefix, season, s)
}

// LockPK is the partition of an event's lock copy c.
func LockPK(e EventID, c int) string { return ShardPK(e, c) }

// LockCopyKey returns the key (PK, SK) of the lock copy of event, an event of shards
// shards, that user's submits check and count on: for tests and tools that must reach that
// item (fault injection). It does not check the ids.
func LockCopyKey(event, user string, shards int) (pk, sk string) {
	return LockPK(EventID(event), UserID(user).LockCopy(LockCopies(shards))), LockSK
}

// ShardOf is the shard of user's prediction in an event (or standing in a season) of
// shards shards: for tests and tools that reason about partitions and scoring batches (a
// batch holds players of one shard). It does not check the id.
func ShardOf(user string, shards int) int { return UserID(user).Shard(shards) }

// ranksSK is the sort key of score histograms (package scoring) and rank tables: shard s's
// histogram of an event's predictions or a season's standings is in the shard's own
// main-table partition, and the rank table that sums them in the event's or the season's.
const ranksSK = "RANKS"

// EventRanksKey is the key of the score histogram of shard s of an event's predictions.
func EventRanksKey(e EventID, s int) map[string]types.AttributeValue {
	return Key(ShardPK(e, s), ranksSK)
}

// SeasonRanksKey is the key of the score histogram of shard s of a season's standings.
func SeasonRanksKey(season, s int) map[string]types.AttributeValue {
	return Key(SeasonShardItemPK(season, s), ranksSK)
}
func eventRankTableKey(e EventID) map[string]types.AttributeValue { return Key(EventPK(e), ranksSK) }
func seasonRankTableKey(season int) map[string]types.AttributeValue {
	return Key(SeasonPK(season), ranksSK)
}

// CheckpointKey is the key of the scoring checkpoint of an event's shard s.
func CheckpointKey(e EventID, s int) map[string]types.AttributeValue {
	return Key(ShardPK(e, s), CheckpointSK)
}

// SeasonKey is the key of a season's item.
func SeasonKey(season int) map[string]types.AttributeValue { return Key(SeasonPK(season), seasonSK) }

// HistogramAttr is the histogram attribute counting the players with points.
func HistogramAttr(points int) string { return "p" + strconv.Itoa(points) }

// HistogramPoints parses a histogram attribute name; ok is false for other attributes.
func HistogramPoints(attr string) (points int, ok bool) {
	rest, found := strings.CutPrefix(attr, "p")
	if !found || rest == "" || len(rest) > scoreWidth || (len(rest) > 1 && rest[0] == '0') {
		return 0, false
	}
	for _, c := range rest {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	n, err := strconv.Atoi(rest)
	return n, err == nil
}

// ScoreSK is the GSI sort key of a scored prediction or a standing:
// SCORE#<inverted points>#<user id>, highest points first, ties by user id
// (domain.CompareStandings).
func ScoreSK(points int, u UserID) (string, error) { return scoreKey(points, "", u) }

// LeaderboardSK is the GSI sort key of a scored prediction with points and the tie-breaker
// guess guess (nil: none), of an event whose tie-breaker answer as set is answer (nil: none
// is set, or the event has no question). With answer nil it is ScoreSK; otherwise
// SCORE#<inverted points>#<domain.TiebreakKey(answer, guess)>#<user id>, whose byte order
// is domain.CompareLeaderboard's under answer. answer and guess must be within
// 0..domain.MaxTiebreakerAnswer (as stored ones are): INTERNAL otherwise.
func LeaderboardSK(points int, answer, guess *int, u UserID) (string, error) {
	if answer == nil {
		return ScoreSK(points, u)
	}
	for _, v := range []*int{answer, guess} {
		if v != nil && domain.ValidTiebreakerValue("tie-breaker value", *v) != nil {
			return "", domain.Errorf(domain.CodeInternal, "tie-breaker value %d does not fit the score key", *v)
		}
	}
	return scoreKey(points, domain.TiebreakKey(answer, guess), u)
}

// scoreKey is the score key of points and user u with the tie-break component tiebreak
// ("": a key without one; otherwise a domain.TiebreakKey).
func scoreKey(points int, tiebreak string, u UserID) (string, error) {
	if points < 0 || points > MaxScore {
		return "", domain.Errorf(domain.CodeInternal, "score %d does not fit the score key", points)
	}
	if tiebreak != "" {
		return fmt.Sprintf("%s%0*d#%s#%s", prefixScore, scoreWidth, MaxScore-points, tiebreak, u), nil
	}
	return fmt.Sprintf("%s%0*d#%s", prefixScore, scoreWidth, MaxScore-points, u), nil
}

// ParseScoreSK splits a score key (ScoreSK's or LeaderboardSK's) into its points, its
// tie-break component ("" for a key without one) and its user id. It accepts exactly the
// keys the builders make.
func ParseScoreSK(sk string) (points int, tiebreak string, u UserID, err error) {
	rest, ok := strings.CutPrefix(sk, prefixScore)
	if !ok || len(rest) < scoreWidth+2 || rest[scoreWidth] != '#' || !allDigits(rest[:scoreWidth]) {
		return 0, "", "", fmt.Errorf("not a score key: %q", sk)
	}
	inv, _ := strconv.Atoi(rest[:scoreWidth])
	rest = rest[scoreWidth+1:]
	if t, user, found := strings.Cut(rest, "#"); found {
		if !validTiebreak(t) {
			return 0, "", "", fmt.Errorf("not a score key: %q", sk)
		}
		tiebreak, rest = t, user
	}
	if u, err = ParseUserID(rest); err != nil {
		return 0, "", "", err
	}
	return MaxScore - inv, tiebreak, u, nil
}

// validTiebreak reports whether s is a tie-break component domain.TiebreakKey makes: a
// digit for no guess (0 or 1), a distance of 7 digits up to domain.MaxTiebreakerAnswer, a
// digit for over the answer (0 or 1); without a guess, the distance and the over digit are
// 0; over the answer, the distance is at least 1.
func validTiebreak(s string) bool {
	if len(s) != domain.TiebreakKeyLen || !allDigits(s) {
		return false
	}
	none, over := s[0], s[len(s)-1]
	distance, _ := strconv.Atoi(s[1 : len(s)-1])
	switch {
	case none > '1' || over > '1' || distance > domain.MaxTiebreakerAnswer:
		return false
	case none == '1':
		return distance == 0 && over == '0'
	case over == '1':
		return distance > 0
	}
	return true
}

// userIDFromPK returns the user id of a USER#<uid> partition key.
func userIDFromPK(pk string) (UserID, error) {
	rest, ok := strings.CutPrefix(pk, UserKeyPrefix)
	if !ok {
		return "", fmt.Errorf("not a user key: %q", pk)
	}
	return ParseUserID(rest)
}

// eventIDFromSK returns the event id of an EVENT#<eid> sort key.
func eventIDFromSK(sk string) (EventID, error) {
	rest, ok := strings.CutPrefix(sk, prefixEvent)
	if !ok {
		return "", fmt.Errorf("not an event key: %q", sk)
	}
	return ParseEventID(rest)
}

// League keys (package leagues). A league's partition holds the league item and one
// member row per member, so every write of a league touches its own partition only; a
// player's memberships and their league count are in the player's partition. Their sort
// keys start with "@", below "EVENT#": the profile's descending Query (USER, STANDINGS#…,
// EVENT#…, bounded by SK ≥ "EVENT#") never reads them. None of these items is indexed.
const (
	prefixLeague        = "LEAGUE#"
	LeagueSK            = "LEAGUE"
	MemberKeyPrefix     = "MEMBER#"
	prefixInvite        = "INVITE#"
	InviteSK            = "INVITE"
	MembershipKeyPrefix = "@LEAGUE#"
	LeagueCountSK       = "@LEAGUES"
)

// LeagueID is a validated league id.
type LeagueID string

// ParseLeagueID returns s as a league id, or BAD_USER_INPUT if it is not one
// (domain.ValidateLeagueID).
func ParseLeagueID(s string) (LeagueID, error) {
	if err := domain.ValidateLeagueID(s); err != nil {
		return "", err
	}
	return LeagueID(s), nil
}

// LeaguePK is a league's partition: the league item and its member rows.
func LeaguePK(l LeagueID) string { return prefixLeague + string(l) }

// MemberSK is the sort key of a member's row in a league's partition.
func MemberSK(u UserID) string { return MemberKeyPrefix + string(u) }

// InvitePK is the partition of an invite code's item (code: domain.CleanInviteCode).
func InvitePK(code string) string { return prefixInvite + code }

// MembershipSK is the sort key of a player's membership of league l, in their partition.
func MembershipSK(l LeagueID) string { return MembershipKeyPrefix + string(l) }

// Audit keys (AuditRow). Each audit log (an event id, or domain.AuditLogModeration)
// has a partition of its own, apart from every partition players read or write, so admin
// changes never add load to an event's hot partitions. Sort keys order entries by time:
// the store's clock to the nanosecond (fixed width, UTC) then a random nonce, so two
// entries written in the same instant never share a key. Not indexed.
const (
	prefixAudit = "AUDIT#"
	// AuditTimeLayout is the fixed-width time of an audit sort key: string order is time
	// order (from year 0001 to 9999).
	AuditTimeLayout = "2006-01-02T15:04:05.000000000Z"
	// auditNonceLen is the length of the nonce after the time: 16 hex digits (64 bits).
	auditNonceLen = 16
)

// AuditLogID is a validated audit log id (domain.ValidateAuditLogID).
type AuditLogID string

// ParseAuditLogID returns s as an audit log id, or BAD_USER_INPUT if it is not one
// (domain.ValidateAuditLogID).
func ParseAuditLogID(s string) (AuditLogID, error) {
	if err := domain.ValidateAuditLogID(s); err != nil {
		return "", err
	}
	return AuditLogID(s), nil
}

// AuditPK is the partition of audit log l.
func AuditPK(l AuditLogID) string { return prefixAudit + string(l) }

// AuditSK is the sort key of an entry written at t with nonce (auditNonceLen hex digits).
func AuditSK(t time.Time, nonce string) string {
	return t.UTC().Format(AuditTimeLayout) + "#" + nonce
}

// checkAuditSK reports whether sk has the form AuditSK writes.
func checkAuditSK(sk string) error {
	at, nonce, ok := strings.Cut(sk, "#")
	if !ok || len(at) != len(AuditTimeLayout) || len(nonce) != auditNonceLen {
		return fmt.Errorf("not an audit key: %q", sk)
	}
	if t, err := time.Parse(AuditTimeLayout, at); err != nil || t.Format(AuditTimeLayout) != at {
		return fmt.Errorf("not an audit key: %q", sk)
	}
	for _, c := range nonce {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return fmt.Errorf("not an audit key: %q", sk)
		}
	}
	return nil
}

// LockKeys are the keys of the copies of an event that has copies lock copies, copy c at
// index c.
func LockKeys(eid EventID, copies int) []map[string]types.AttributeValue {
	ks := make([]map[string]types.AttributeValue, copies)
	for c := range copies {
		ks[c] = Key(LockPK(eid, c), LockSK)
	}
	return ks
}
