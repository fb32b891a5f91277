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
//	item        PK                 SK                 GSI_PK                   GSI_SK
//	user        USER#<uid>         USER               -                        -
//	event       EVENT              EVENT#<eid>        EVENT#<eid>              CARD#000
//	match       EVENT#<eid>        MATCH#<uuid>       EVENT#<eid>              CARD#<pos, 3 digits>
//	prediction  USER#<uid>         EVENT#<eid>        EVENT#<eid>#<ss>         UNSCORED#<uid> | SCORE#<inv>#<uid>
//	standing    USER#<uid>         STANDINGS#<yyyy>   STANDINGS#<yyyy>#<ss>    SCORE#<inv>#<uid>
//	lock copy   EVENT#<eid>#<cc>   LOCK               -                        -
//	checkpoint  EVENT#<eid>        SCORING#<ss>       -                        -
//	ranks       EVENT#<eid>#<ss>   RANKS              -                        -   (shard s's score histogram)
//	ranks       STANDINGS#<yyyy>#<ss> RANKS           -                        -
//	rank table  EVENT#<eid>        RANKS              -                        -   (the shards summed)
//	rank table  STANDINGS#<yyyy>   RANKS              -                        -
//	count       EVENT#<eid>        COUNT#<shard>      -                        -   (before issue 12)
//	league      LEAGUE#<lid>       LEAGUE             -                        -
//	member      LEAGUE#<lid>       MEMBER#<uid>       -                        -
//	invite      INVITE#<code>      INVITE             -                        -
//	membership  USER#<uid>         @LEAGUE#<lid>      -                        -
//	league count USER#<uid>        @LEAGUES           -                        -
//	audit entry AUDIT#<log>        <at>#<nonce>       -                        -   (dynamo/audit.go)
//
// <inv> is 999999999 − points, nine digits, so that ascending order is highest first and
// ties sort by user id. The card ("CARD#…") has the event's GSI partition to itself: it is
// one key range whatever the number of players.
//
// Predictions and standings are written across scoreShards index partitions (<ss>, two
// digits): a player's shard is scoreShard(uid), the same for their predictions and their
// standings, so scoring (which moves a player's prediction and standing keys together)
// writes scoreShards partitions at once instead of one, and a leaderboard or standings
// page is scoreShards Queries merged by GSI_SK. In each shard scored predictions
// ("SCORE#…") sort before unscored ones ("UNSCORED#…").
//
// An event has lock copies (<cc>, two digits or more; how many is the event's own count,
// eventRow.LockCopies), each in a partition of its own:
// the fields a submit's condition needs (state, start, name, card version) mirrored from
// the event row, and the count of predictions of the players of that copy (lockCopy).
// A submit's transaction checks and counts on its player's copy, never on the event item,
// so concurrent submits spread over that many items. Scoring keeps one checkpoint per
// shard in the event's partition (where a shard's scoring pass has got to, for which card
// version). Count items (COUNT#…) are what events written before issue 12 counted their
// predictions with; admin migrate folds them into the copies.
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
	// pendingUpper is just above every "UNSCORED#…" key.
	pendingUpper = "UNSCORED$"
	prefixCount  = "COUNT#"
	// lockSK is the sort key of an event's lock copies.
	lockSK = "LOCK"
	// prefixCheckpoint starts the sort keys of an event's scoring checkpoints.
	prefixCheckpoint = "SCORING#"
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

func userPK(u userID) string     { return prefixUser + string(u) }
func eventSK(e eventID) string   { return prefixEvent + string(e) } // event item SK, prediction SK
func eventPK(e eventID) string   { return prefixEvent + string(e) } // match PK, event GSI partition
func matchSK(m matchID) string   { return prefixMatch + string(m) }
func seasonSK(season int) string { return fmt.Sprintf("%s%04d", prefixSeason, season) }
func seasonGSIPK(season int) string {
	return seasonSK(season)
}
func cardSK(position int) string           { return fmt.Sprintf("%s%03d", prefixCard, position) }
func pendingSK(u userID) string            { return prefixPending + string(u) }
func countSK(shard int) string             { return fmt.Sprintf("%s%02d", prefixCount, shard) }
func seasonEventsPrefix(season int) string { return fmt.Sprintf("%s%04d-", prefixEvent, season) }

// countShards is how many count items (COUNT#00…) an event written before issue 12
// counted its predictions on; admin migrate folds them into the lock copies.
const countShards = 8

// scoreShards is how many index partitions an event's predictions and a season's
// standings are written across (K). Chosen with the partition-throughput model (bench/README):
// scoring 1,000,000 predictions in under 5 minutes moves every prediction's and standing's
// index key (a delete and a put each) — with K shards each shard partition takes 1/K of
// it. A leaderboard or standings page costs K Queries, so K is no larger than that needs.
// Changing it changes every key built from it: existing data needs admin migrate.
const scoreShards = 16

// DefaultLockCopies is how many lock copies an event gets at creation unless the store is
// configured otherwise (WithLockCopies): every submit's transaction checks (and on a first
// prediction, counts on) the copy of its player, so at the peak submit rate each copy sees
// 1/copies of the submits. On AWS two transactions that include one item at the same time
// cancel each other (TransactionConflict). The partition-throughput model (make scale,
// bench/results/scale.md) on the modelled peak (1M submits in the last hour, a 10× peak
// minute: ~2,800 submits/s): 64 copies let ~1,800 submits reach players as UNAVAILABLE after
// the store's retries, 96 → 83, 128 → 9, 192 and 256 → 0; 256 keeps a margin.
//
// The count is a property of each event, chosen when it is created and stored on its row
// (eventRow.LockCopies; events created before it was stored have legacyLockCopies): every
// copy is addressed through the event's own count, so changing the store's configuration
// never moves an existing event's copies. More copies cost admin changes more writes (a
// lifecycle flip writes every copy, in transactions of 100, locks.go), so tests and the
// demo data create events with fewer (WithLockCopies(scoreShards)).
const DefaultLockCopies = 256

// LockCopyBatches is how many transactions (or BatchGetItems) of at most 100 items all the
// copies of an event with DefaultLockCopies take: what an admin change that reads, creates
// or syncs every copy plans (server.FieldCosts).
const LockCopyBatches = (DefaultLockCopies + maxTransactItems - 1) / maxTransactItems

// legacyLockCopies is the count of an event row without one: the events created with the
// sharded layout before the count was stored per event had 64.
const legacyLockCopies = 64

// WithLockCopies sets how many lock copies the events this store creates get (default
// DefaultLockCopies; admin migrate gives a migrated event as many). n must be a positive
// multiple of scoreShards (copy c belongs to shard c mod scoreShards: a shard's count is the
// sum of its copies); any other value panics, as a programming error.
func WithLockCopies(n int) Option {
	if n <= 0 || n%scoreShards != 0 {
		panic(fmt.Sprintf("dynamo: WithLockCopies(%d): want a positive multiple of %d", n, scoreShards))
	}
	return func(s *Store) { s.lockCopies = n }
}

// playerHash is FNV-1a of a user id: it places the player's lock copy and score shard.
func playerHash(u userID) uint32 {
	h := fnv.New32a()
	_, _ = h.Write([]byte(u))
	return h.Sum32()
}

// lockCopy is the lock copy (0..copies-1) of user u's predictions on an event with copies
// lock copies. Since copies is a multiple of scoreShards, lockCopy(u, n) mod scoreShards is
// scoreShard(u) whatever n is.
func lockCopy(u userID, copies int) int { return int(playerHash(u) % uint32(copies)) }

// scoreShard is the index shard (0..scoreShards-1) of user u's predictions and standings.
// It does not depend on any event's lock-copy count.
func scoreShard(u userID) int { return int(playerHash(u) % scoreShards) }

// ScoreShardOf is scoreShard for tests and tools that reason about partitions and scoring
// batches (a batch holds players of one shard). It does not check the id.
func ScoreShardOf(user string) int { return scoreShard(userID(user)) }

// eventShardPK is the GSI partition of shard s of an event's predictions.
func eventShardPK(e eventID, s int) string { return fmt.Sprintf("%s%s#%02d", prefixEvent, e, s) }

// seasonShardPK is the GSI partition of shard s of a season's standings.
func seasonShardPK(season, s int) string { return fmt.Sprintf("%s%04d#%02d", prefixSeason, season, s) }

// lockPK is the partition of an event's lock copy c.
func lockPK(e eventID, c int) string { return fmt.Sprintf("%s%s#%02d", prefixEvent, e, c) }

// LockCopyKey returns the key (PK, SK) of the lock copy of event, which has copies lock
// copies, that user's submits check and count on: for tests and tools that must reach that
// item (fault injection). It does not check the ids.
func LockCopyKey(event, user string, copies int) (pk, sk string) {
	return lockPK(eventID(event), lockCopy(userID(user), copies)), lockSK
}

// predictionPartitions lists the GSI partitions that may hold an event's predictions: its
// shards and, if legacy, the one partition of the layout before issue 12 (the event's card
// partition, where predictions not yet moved by admin migrate are).
func predictionPartitions(e eventID, legacy bool) []string {
	pks := make([]string, 0, scoreShards+1)
	for s := range scoreShards {
		pks = append(pks, eventShardPK(e, s))
	}
	if legacy {
		pks = append(pks, eventPK(e))
	}
	return pks
}

// checkpointSK is the sort key of the scoring checkpoint of shard s (in the event's
// partition, eventPK).
func checkpointSK(s int) string { return fmt.Sprintf("%s%02d", prefixCheckpoint, s) }

// ranksSK is the sort key of score histograms (dynamo/ranks.go): shard s's histogram of an
// event's predictions or a season's standings is in the main-table partition named like the
// shard's index partition, and the rank table that sums them in the list's own partition.
const ranksSK = "RANKS"

func eventRanksKey(e eventID, s int) map[string]types.AttributeValue {
	return pkKey(eventShardPK(e, s), ranksSK)
}
func seasonRanksKey(season, s int) map[string]types.AttributeValue {
	return pkKey(seasonShardPK(season, s), ranksSK)
}
func eventRankTableKey(e eventID) map[string]types.AttributeValue { return pkKey(eventPK(e), ranksSK) }
func seasonRankTableKey(season int) map[string]types.AttributeValue {
	return pkKey(seasonGSIPK(season), ranksSK)
}

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
