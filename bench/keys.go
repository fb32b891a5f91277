package bench

import (
	"fmt"
	"hash/fnv"
)

// Key formats and item shapes, replicated from dynamo/keys.go and dynamo/rows.go on
// purpose. The floor of a screen is the raw DynamoDB call it cannot avoid, written by hand
// against the table layout the way a minimal implementation would; and the loader writes
// the items with BatchWriteItem, which the store never uses. Neither may reach into the
// store's unexported code, so a change of layout in dynamo/ must be mirrored here: the
// suite checks every screen's answer, so a mismatch fails the run instead of skewing it.
const (
	attrPK    = "PK"
	attrSK    = "SK"
	attrGSIPK = "GSI_PK"
	attrGSISK = "GSI_SK"
	indexName = "GSI"

	eventsPK   = "EVENT"
	userSK     = "USER"
	cardPrefix = "CARD#"
	// scoreUpper is just above every "SCORE#…" sort key: GSI_SK < scoreUpper is an event's
	// card followed by its scored predictions, best first.
	scoreUpper  = "SCORE$"
	scorePrefix = "SCORE#"
	maxScore    = 999_999_999
	// ranksSK is the sort key of an event's rank table (in PK = EVENT#<id>) and of a
	// season's (in PK = STANDINGS#<yyyy>), written when a scoring run completes.
	ranksSK = "RANKS"

	// Page arithmetic of the store's reads (dynamo/reads.go): a card has at most 30
	// matches plus the event item; a profile reads the user, up to 4 standings, then
	// predictions; every list asks one row more to learn whether a next page exists.
	maxMatches        = 30
	seasonsPerProfile = 4
)

// Shards (dynamo/keys.go): a player's predictions and standings are written in index
// shard scoreShard(uid) of their event and season; their first prediction of an event is
// counted on the event's lock copy lockCopy(uid).
const (
	scoreShards = 16
	// lockCopies is how many lock copies the bench's events have: the store's default.
	lockCopies = 256
	lockSK     = "LOCK"
)

func lockCopy(uid string) int {
	h := fnv.New32a()
	_, _ = h.Write([]byte(uid))
	return int(h.Sum32() % lockCopies)
}

func scoreShard(uid string) int { return lockCopy(uid) % scoreShards } // lockCopies is a multiple of scoreShards

func eventShardPK(eid string, s int) string { return fmt.Sprintf("EVENT#%s#%02d", eid, s) }

func seasonShardPK(season, s int) string { return fmt.Sprintf("STANDINGS#%04d#%02d", season, s) }

// shardPKs are the index partitions of an event's predictions, shard by shard.
func shardPKs(eid string) []string {
	pks := make([]string, scoreShards)
	for s := range pks {
		pks[s] = eventShardPK(eid, s)
	}
	return pks
}

// shardSizes is how many of players 0..n-1 each score shard holds.
func shardSizes(n int) []int {
	sizes := make([]int, scoreShards)
	for p := range n {
		sizes[scoreShard(playerID(p))]++
	}
	return sizes
}

// shardRows is the rows a ranked page of first reads from shards of those sizes: first+1
// at most from each.
func shardRows(sizes []int, first int) int {
	n := 0
	for _, k := range sizes {
		n += min(k, first+1)
	}
	return n
}

func lockPK(eid string, c int) string { return fmt.Sprintf("EVENT#%s#%02d", eid, c) }

func userPK(uid string) string     { return "USER#" + uid }
func eventSK(eid string) string    { return "EVENT#" + eid }
func eventGSIPK(eid string) string { return "EVENT#" + eid }
func seasonSK(season int) string   { return fmt.Sprintf("STANDINGS#%04d", season) }
func pendingSK(uid string) string  { return "UNSCORED#" + uid }
func scoreSK(points int, uid string) string {
	return fmt.Sprintf("SCORE#%09d#%s", maxScore-points, uid)
}

// timeLayout is how the store writes instants.
const timeLayout = "2006-01-02T15:04:05Z"

// userItem mirrors dynamo's userRow.
type userItem struct {
	PK          string `dynamodbav:"PK"`
	SK          string `dynamodbav:"SK"`
	Type        string `dynamodbav:"type"`
	ID          string `dynamodbav:"id"`
	Name        string `dynamodbav:"name"`
	NameVersion int    `dynamodbav:"nameVersion"`
	CreatedAt   string `dynamodbav:"createdAt"`
}

// pickItem mirrors dynamo's pickRow.
type pickItem struct {
	MatchID string `dynamodbav:"matchId"`
	Team    int    `dynamodbav:"team"`
}

// predictionItem mirrors dynamo's predictionRow (unscored: scoring adds points, correct,
// correctIds and moves GSI_SK).
type predictionItem struct {
	PK              string     `dynamodbav:"PK"`
	SK              string     `dynamodbav:"SK"`
	GSIPK           string     `dynamodbav:"GSI_PK"`
	GSISK           string     `dynamodbav:"GSI_SK"`
	Type            string     `dynamodbav:"type"`
	UserID          string     `dynamodbav:"userId"`
	UserName        string     `dynamodbav:"userName"`
	UserNameVersion int        `dynamodbav:"userNameVersion"`
	EventID         string     `dynamodbav:"eventId"`
	EventName       string     `dynamodbav:"eventName"`
	EventStartsAt   string     `dynamodbav:"eventStartsAt"`
	Season          int        `dynamodbav:"season"`
	Picks           []pickItem `dynamodbav:"picks"`
	Points          *int       `dynamodbav:"points,omitempty"`
	Correct         *int       `dynamodbav:"correct,omitempty"`
	CorrectIDs      []string   `dynamodbav:"correctIds,omitempty"`
	ScoredWith      *int       `dynamodbav:"scoredWith,omitempty"`
	UpdatedAt       string     `dynamodbav:"updatedAt"`
	Version         int        `dynamodbav:"version"`
	Counted         bool       `dynamodbav:"counted,omitempty"`
}

// standingItem mirrors dynamo's standingRow.
type standingItem struct {
	PK              string `dynamodbav:"PK"`
	SK              string `dynamodbav:"SK"`
	GSIPK           string `dynamodbav:"GSI_PK"`
	GSISK           string `dynamodbav:"GSI_SK"`
	Type            string `dynamodbav:"type"`
	UserID          string `dynamodbav:"userId"`
	UserName        string `dynamodbav:"userName"`
	UserNameVersion int    `dynamodbav:"userNameVersion"`
	Season          int    `dynamodbav:"season"`
	Points          int    `dynamodbav:"points"`
	Correct         int    `dynamodbav:"correct"`
	EventsPlayed    int    `dynamodbav:"eventsPlayed"`
	Version         int    `dynamodbav:"version"`
}

// matchItem is the part of dynamo's matchRow that scoring needs.
type matchItem struct {
	Type   string `dynamodbav:"type"`
	ID     string `dynamodbav:"id"`
	Points int    `dynamodbav:"points"`
	Result *struct {
		Outcome string `dynamodbav:"outcome"`
		Winner  *int   `dynamodbav:"winner,omitempty"`
	} `dynamodbav:"result,omitempty"`
}

// eventItem is the part of dynamo's eventRow that scoring needs.
type eventItem struct {
	Type        string `dynamodbav:"type"`
	ID          string `dynamodbav:"id"`
	CardVersion int    `dynamodbav:"cardVersion"`
}
