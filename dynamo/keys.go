package dynamo

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/pickem/api/domain"
)

// Table layout. This file is the only place that knows key attribute names and formats.
//
//	item        PK                  SK              GSI_PK                    GSI_SK
//	user        USER#<uid>          USER            -                         -
//	event       EVENT               EVENT#<eid>     EVENT#<eid>               CARD#000
//	match       EVENT#<eid>         MATCH#<uuid>    EVENT#<eid>               CARD#<pos, 3 digits>
//	prediction  USER#<uid>          EVENT#<eid>     <the event's shard>       UNSCORED#<uid> | SCORE#<inv>#<uid>
//	standing    USER#<uid>          STANDINGS#<y>   <the season's shard>      SCORE#<inv>#<uid>
//	season      STANDINGS#<y>       SEASON          STANDINGS#<y>             INFO
//	lock copy   EVENT#<eid>#<cc>    LOCK            -                         -
//	checkpoint  EVENT#<eid>#<ss>    SCORING         -                         -
//	histogram   EVENT#<eid>#<ss>    RANKS           -                         -   (shard ss's scores)
//	histogram   STANDINGS#<y>#<ss>  RANKS           -                         -
//	rank table  EVENT#<eid>         RANKS           -                         -   (the shards summed)
//	rank table  STANDINGS#<y>       RANKS           -                         -
//	league      LEAGUE#<lid>        LEAGUE          -                         -
//	member      LEAGUE#<lid>        MEMBER#<uid>    -                         -
//	invite      INVITE#<code>       INVITE          -                         -
//	membership  USER#<uid>          @LEAGUE#<lid>   -                         -
//	league count USER#<uid>         @LEAGUES        -                         -
//	audit entry AUDIT#<log>         <at>#<nonce>    -                         -   (dynamo/audit.go)
//
// <inv> is 999999999 − points, nine digits, so that ascending order is highest first and
// ties sort by user id. In an index partition the card ("CARD#…") sorts first, then the
// scored predictions ("SCORE#…"), then the unscored ones ("UNSCORED#…"): the card is one key
// range whatever the number of players, and the card with the top of a leaderboard is
// another.
//
// Shards. An event's predictions and a season's standings are spread over K index
// partitions, K being the event's or the season's own shard count (eventRow.Shards,
// seasonRow.Shards), fixed when it is created (WithScoreShards) and never changed. A
// player's shard is playerHash mod K. With K = 1 the one shard is the event's (or the
// season's) own index partition: the card and a leaderboard page are one Query, as is a
// standings page. With K > 1 shard ss is EVENT#<eid>#<ss> (STANDINGS#<y>#<ss>), and a page
// is K Queries merged by score key (shardmerge.go). Scoring writes the shards at once, and
// keeps one checkpoint and one score histogram per shard in a main-table partition of the
// shard's own (EVENT#<eid>#<ss>), so that no item is written by every batch.
//
// Lock copies. An event has lockCopies(K) copies of what a submit's condition reads
// (lockRow), each in a partition of its own: a submit's transaction checks (and on a first
// prediction counts on) its player's copy, playerHash mod copies, never the event item, so
// concurrent submits of a big event are spread over many items. With K = 1 there is one.
const (
	attrPK    = "PK"
	attrSK    = "SK"
	attrGSIPK = "GSI_PK"
	attrGSISK = "GSI_SK"
	attrType  = "type"

	// IndexName is the name of the table's one global secondary index.
	IndexName = "GSI"

	eventsPK      = "EVENT"
	userSK        = "USER"
	prefixUser    = "USER#"
	prefixEvent   = "EVENT#"
	prefixMatch   = "MATCH#"
	prefixSeason  = "STANDINGS#"
	prefixCard    = "CARD#"
	prefixScore   = "SCORE#"
	prefixPending = "UNSCORED#"
	// lockSK is the sort key of an event's lock copies.
	lockSK = "LOCK"
	// checkpointSK is the sort key of a shard's scoring checkpoint.
	checkpointSK = "SCORING"
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

// copiesPerShard is how many lock copies an event of more than one shard has per shard.
// The partition-throughput model (make scale, bench/results/scale.md) on the modelled peak
// of a 1,000,000-player event (1M submits in the last hour, a 10× peak minute: ~2,800
// submits/s): 256 copies let no submit reach its player as UNAVAILABLE; fewer let some.
const copiesPerShard = 16

// lockCopies is how many lock copies an event of shards shards has: one for a single
// shard, copiesPerShard per shard otherwise (a multiple of shards, so that a copy belongs
// to one shard: copy c is of shard c mod shards).
func lockCopies(shards int) int {
	if shards <= 1 {
		return 1
	}
	return copiesPerShard * shards
}

// MaxLockCopyBatches is how many transactions (or BatchGetItems) of at most 100 items all
// the lock copies of an event of MaxShards shards take: what an admin change that reads,
// creates or syncs every copy may make (server.FieldCosts).
const MaxLockCopyBatches = (copiesPerShard*MaxShards + maxTransactItems - 1) / maxTransactItems

// Typed ids: a value of these types has been validated and can be put in a key.
type (
	eventID string
	userID  string
	matchID string
)

func parseEventID(s string) (eventID, error) {
	if err := domain.ValidateEventID(s); err != nil {
		return "", err
	}
	return eventID(s), nil
}

func parseUserID(s string) (userID, error) {
	if err := domain.ValidateUserID(s); err != nil {
		return "", err
	}
	return userID(s), nil
}

func parseMatchID(s string) (matchID, error) {
	if err := domain.ValidateMatchID(s); err != nil {
		return "", err
	}
	return matchID(s), nil
}

func userPK(u userID) string               { return prefixUser + string(u) }
func eventSK(e eventID) string             { return prefixEvent + string(e) } // event item SK, prediction SK
func eventPK(e eventID) string             { return prefixEvent + string(e) } // match PK, event GSI partition
func matchSK(m matchID) string             { return prefixMatch + string(m) }
func seasonPK(season int) string           { return fmt.Sprintf("%s%04d", prefixSeason, season) } // season item, season index partition
func standingSK(season int) string         { return seasonPK(season) }
func cardSK(position int) string           { return fmt.Sprintf("%s%03d", prefixCard, position) }
func pendingSK(u userID) string            { return prefixPending + string(u) }
func seasonEventsPrefix(season int) string { return fmt.Sprintf("%s%04d-", prefixEvent, season) }

// playerHash is FNV-1a of a user id: it places the player's lock copy and score shards.
func playerHash(u userID) uint32 {
	h := fnv.New32a()
	_, _ = h.Write([]byte(u))
	return h.Sum32()
}

// shardOf is the shard (0..shards-1) of user u's prediction or standing in an event or a
// season of shards shards.
func shardOf(u userID, shards int) int { return int(playerHash(u) % uint32(max(shards, 1))) }

// lockCopy is the lock copy (0..copies-1) of user u's predictions on an event with copies
// lock copies. copies being a multiple of the event's shards, lockCopy mod shards is the
// player's shard.
func lockCopy(u userID, copies int) int { return int(playerHash(u) % uint32(copies)) }

// eventShardPK is the index partition of shard s of an event of shards shards: the event's
// own (the card's) with one shard.
func eventShardPK(e eventID, s, shards int) string {
	if shards <= 1 {
		return eventPK(e)
	}
	return fmt.Sprintf("%s%s#%02d", prefixEvent, e, s)
}

// seasonShardPK is the index partition of shard s of a season of shards shards: the
// season's own with one shard.
func seasonShardPK(season, s, shards int) string {
	if shards <= 1 {
		return seasonPK(season)
	}
	return fmt.Sprintf("%s%04d#%02d", prefixSeason, season, s)
}

// eventShardPKs returns the index partitions of an event's shards.
func eventShardPKs(e eventID, shards int) []string {
	pks := make([]string, max(shards, 1))
	for s := range pks {
		pks[s] = eventShardPK(e, s, shards)
	}
	return pks
}

// seasonShardPKs returns the index partitions of a season's shards.
func seasonShardPKs(season, shards int) []string {
	pks := make([]string, max(shards, 1))
	for s := range pks {
		pks[s] = seasonShardPK(season, s, shards)
	}
	return pks
}

// shardPK is the main-table partition of shard s's own items (its checkpoint, its score
// histogram, the lock copy of the same number) of an event.
func shardPK(e eventID, s int) string { return fmt.Sprintf("%s%s#%02d", prefixEvent, e, s) }

// seasonShardItemPK is the main-table partition of a season shard's score histogram.
func seasonShardItemPK(season, s int) string {
	return fmt.Sprintf("%s%04d#%02d", prefixSeason, season, s)
}

// lockPK is the partition of an event's lock copy c.
func lockPK(e eventID, c int) string { return shardPK(e, c) }

// LockCopyKey returns the key (PK, SK) of the lock copy of event, an event of shards
// shards, that user's submits check and count on: for tests and tools that must reach that
// item (fault injection). It does not check the ids.
func LockCopyKey(event, user string, shards int) (pk, sk string) {
	return lockPK(eventID(event), lockCopy(userID(user), lockCopies(shards))), lockSK
}

// ShardOf is the shard of user's prediction in an event (or standing in a season) of
// shards shards: for tests and tools that reason about partitions and scoring batches (a
// batch holds players of one shard). It does not check the id.
func ShardOf(user string, shards int) int { return shardOf(userID(user), shards) }

// ranksSK is the sort key of score histograms (dynamo/ranks.go) and rank tables: shard s's
// histogram of an event's predictions or a season's standings is in the shard's own
// main-table partition, and the rank table that sums them in the event's or the season's.
const ranksSK = "RANKS"

func eventRanksKey(e eventID, s int) map[string]types.AttributeValue {
	return pkKey(shardPK(e, s), ranksSK)
}
func seasonRanksKey(season, s int) map[string]types.AttributeValue {
	return pkKey(seasonShardItemPK(season, s), ranksSK)
}
func eventRankTableKey(e eventID) map[string]types.AttributeValue { return pkKey(eventPK(e), ranksSK) }
func seasonRankTableKey(season int) map[string]types.AttributeValue {
	return pkKey(seasonPK(season), ranksSK)
}

// checkpointKey is the key of the scoring checkpoint of an event's shard s.
func checkpointKey(e eventID, s int) map[string]types.AttributeValue {
	return pkKey(shardPK(e, s), checkpointSK)
}

// seasonKey is the key of a season's item.
func seasonKey(season int) map[string]types.AttributeValue { return pkKey(seasonPK(season), seasonSK) }

// histogramAttr is the histogram attribute counting the players with points.
func histogramAttr(points int) string { return "p" + strconv.Itoa(points) }

// histogramPoints parses a histogram attribute name; ok is false for other attributes.
func histogramPoints(attr string) (points int, ok bool) {
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

// scoreSK is the GSI sort key of a scored prediction or a standing.
func scoreSK(points int, u userID) (string, error) {
	if points < 0 || points > MaxScore {
		return "", domain.Errorf(domain.CodeInternal, "score %d does not fit the score key", points)
	}
	return fmt.Sprintf("%s%0*d#%s", prefixScore, scoreWidth, MaxScore-points, u), nil
}

// parseScoreSK splits a score key into points and user id.
func parseScoreSK(sk string) (int, userID, error) {
	rest, ok := strings.CutPrefix(sk, prefixScore)
	if !ok || len(rest) < scoreWidth+2 || rest[scoreWidth] != '#' {
		return 0, "", fmt.Errorf("not a score key: %q", sk)
	}
	inv := 0
	for _, c := range rest[:scoreWidth] {
		if c < '0' || c > '9' {
			return 0, "", fmt.Errorf("not a score key: %q", sk)
		}
		inv = inv*10 + int(c-'0')
	}
	u, err := parseUserID(rest[scoreWidth+1:])
	if err != nil {
		return 0, "", err
	}
	return MaxScore - inv, u, nil
}

// userIDFromPK returns the user id of a USER#<uid> partition key.
func userIDFromPK(pk string) (userID, error) {
	rest, ok := strings.CutPrefix(pk, prefixUser)
	if !ok {
		return "", fmt.Errorf("not a user key: %q", pk)
	}
	return parseUserID(rest)
}

// eventIDFromSK returns the event id of an EVENT#<eid> sort key.
func eventIDFromSK(sk string) (eventID, error) {
	rest, ok := strings.CutPrefix(sk, prefixEvent)
	if !ok {
		return "", fmt.Errorf("not an event key: %q", sk)
	}
	return parseEventID(rest)
}

// League keys (dynamo/leagues.go). A league's partition holds the league item and one
// member row per member, so every write of a league touches its own partition only; a
// player's memberships and their league count are in the player's partition. Their sort
// keys start with "@", below "EVENT#": the profile's descending Query (USER, STANDINGS#…,
// EVENT#…, bounded by SK ≥ "EVENT#") never reads them. None of these items is indexed.
const (
	prefixLeague     = "LEAGUE#"
	leagueSK         = "LEAGUE"
	prefixMember     = "MEMBER#"
	prefixInvite     = "INVITE#"
	inviteSK         = "INVITE"
	prefixMembership = "@LEAGUE#"
	leagueCountSK    = "@LEAGUES"
)

// leagueID is a validated league id.
type leagueID string

func parseLeagueID(s string) (leagueID, error) {
	if err := domain.ValidateLeagueID(s); err != nil {
		return "", err
	}
	return leagueID(s), nil
}

func leaguePK(l leagueID) string     { return prefixLeague + string(l) }
func memberSK(u userID) string       { return prefixMember + string(u) }
func invitePK(code string) string    { return prefixInvite + code } // code: domain.CleanInviteCode
func membershipSK(l leagueID) string { return prefixMembership + string(l) }

// Audit keys (dynamo/audit.go). Each audit log (an event id, or domain.AuditLogModeration)
// has a partition of its own, apart from every partition players read or write, so admin
// changes never add load to an event's hot partitions. Sort keys order entries by time:
// the store's clock to the nanosecond (fixed width, UTC) then a random nonce, so two
// entries written in the same instant never share a key. Not indexed.
const (
	prefixAudit = "AUDIT#"
	// auditTimeLayout is the fixed-width time of an audit sort key: string order is time
	// order (from year 0001 to 9999).
	auditTimeLayout = "2006-01-02T15:04:05.000000000Z"
	// auditNonceLen is the length of the nonce after the time: 16 hex digits (64 bits).
	auditNonceLen = 16
)

// auditLogID is a validated audit log id (domain.ValidateAuditLogID).
type auditLogID string

func parseAuditLogID(s string) (auditLogID, error) {
	if err := domain.ValidateAuditLogID(s); err != nil {
		return "", err
	}
	return auditLogID(s), nil
}

func auditPK(l auditLogID) string { return prefixAudit + string(l) }

// auditSK is the sort key of an entry written at t with nonce (auditNonceLen hex digits).
func auditSK(t time.Time, nonce string) string {
	return t.UTC().Format(auditTimeLayout) + "#" + nonce
}

// checkAuditSK reports whether sk has the form auditSK writes.
func checkAuditSK(sk string) error {
	at, nonce, ok := strings.Cut(sk, "#")
	if !ok || len(at) != len(auditTimeLayout) || len(nonce) != auditNonceLen {
		return fmt.Errorf("not an audit key: %q", sk)
	}
	if t, err := time.Parse(auditTimeLayout, at); err != nil || t.Format(auditTimeLayout) != at {
		return fmt.Errorf("not an audit key: %q", sk)
	}
	for _, c := range nonce {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return fmt.Errorf("not an audit key: %q", sk)
		}
	}
	return nil
}
