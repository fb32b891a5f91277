package dynamo

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"math"

	"github.com/pickem/api/domain"
)

// Cursor kinds. A cursor is only valid for the list (and owner) it came from.
const (
	cursorEvents      = "events"
	cursorLeaderboard = "leaderboard"
	cursorStandings   = "standings"
	cursorPredictions = "predictions"
	cursorLeague      = "league" // a league's standings in a season (owner "<league id>/<season>")
	cursorAudit       = "audit"  // an audit log (owner: the log's id; ID: the last entry's sort key)
)

// cursor is the decoded form of an opaque page cursor: the position of the last item of a
// page plus the rank state needed to continue ranking on the next page. Keys are rebuilt
// from validated ids, never taken from the cursor as they are.
type cursor struct {
	Kind   string
	Owner  string // event id, season, user id or events filter: signed, not stored
	ID     string // last item: event id or user id
	Points int    // last item's points (ranked lists)
	Index  int    // rows before and including the last item
	Rank   int    // rank of the last item
	Shards int    // the list's shard count (sharded kinds: a leaderboard, standings)
}

func (c cursor) ranker() domain.Ranker {
	return domain.Ranker{Index: c.Index, Rank: c.Rank, Points: c.Points}
}

// Cursor wire format, version 2, base64url without padding:
//
//	version (1 byte) | kind (1 byte) | uvarint len(ID) | ID | [uvarint Points | uvarint Index | uvarint Rank] | [uvarint Shards] | tag (12 bytes)
//
// The rank fields are present for ranked kinds only, the shard count for sharded ones. tag is the first 12 bytes of
// HMAC-SHA256(key, everything before the tag || owner): the owner (event, season, user,
// filter) is bound by the tag without being stored, so a cursor only opens the list it
// came from, and any edit of any field fails the tag.
const (
	cursorVersion    = 2
	cursorTagLen     = 12
	maxCursorLen     = 256 // encoded; the longest valid cursor is about 200
	cursorKeyMinLen  = 32
	cursorRandKeyLen = 32
)

var cursorKinds = map[string]byte{cursorEvents: 1, cursorLeaderboard: 2, cursorStandings: 3, cursorPredictions: 4, cursorLeague: 5, cursorAudit: 6}

func rankedKind(kind string) bool {
	return kind == cursorLeaderboard || kind == cursorStandings || kind == cursorLeague
}

func shardedKind(kind string) bool { return kind == cursorLeaderboard || kind == cursorStandings }

// cursorCodec signs cursors with its first key and accepts cursors signed by any of its
// keys (rotation: put the new key first, keep the old one until its cursors are stale).
type cursorCodec struct {
	keys [][]byte
}

func newCursorCodec(keys [][]byte) *cursorCodec {
	if len(keys) == 0 {
		keys = [][]byte{NewCursorKey()}
	}
	c := &cursorCodec{keys: make([][]byte, len(keys))}
	for i, k := range keys {
		c.keys[i] = append([]byte(nil), k...)
	}
	return c
}

// NewCursorKey returns a fresh random cursor signing key (32 bytes).
func NewCursorKey() []byte {
	k := make([]byte, cursorRandKeyLen)
	_, _ = rand.Read(k)
	return k
}

// CursorKeyMinLen is the length a cursor signing key should have at least.
const CursorKeyMinLen = cursorKeyMinLen

// tag returns the tag of payload||owner under key.
func tag(key, payload []byte, owner string) []byte {
	h := hmac.New(sha256.New, key)
	h.Write(payload)
	h.Write([]byte(owner))
	return h.Sum(nil)[:cursorTagLen]
}

// encode returns c as an opaque, signed, URL-safe string.
func (cc *cursorCodec) encode(c cursor) string {
	b := []byte{cursorVersion, cursorKinds[c.Kind]}
	b = binary.AppendUvarint(b, uint64(len(c.ID)))
	b = append(b, c.ID...)
	if rankedKind(c.Kind) {
		b = binary.AppendUvarint(b, uint64(c.Points))
		b = binary.AppendUvarint(b, uint64(c.Index))
		b = binary.AppendUvarint(b, uint64(c.Rank))
	}
	if shardedKind(c.Kind) {
		b = binary.AppendUvarint(b, uint64(c.Shards))
	}
	b = append(b, tag(cc.keys[0], b, c.Owner)...)
	return base64.RawURLEncoding.EncodeToString(b)
}

// errBadCursor is the answer to any cursor that does not decode, verify or check.
var errBadCursor = domain.BadInput("invalid cursor for this list")

// decode parses s and checks that one of the keys signed it for kind and owner;
// anything else is BAD_USER_INPUT.
func (cc *cursorCodec) decode(s, kind, owner string) (cursor, error) {
	if len(s) > maxCursorLen {
		return cursor{}, errBadCursor
	}
	raw, err := base64.RawURLEncoding.Strict().DecodeString(s)
	if err != nil || len(raw) < 3+cursorTagLen {
		return cursor{}, errBadCursor
	}
	b, sig := raw[:len(raw)-cursorTagLen], raw[len(raw)-cursorTagLen:]
	if b[0] != cursorVersion || b[1] != cursorKinds[kind] || !cc.verify(b, sig, owner) {
		return cursor{}, errBadCursor
	}
	c := cursor{Kind: kind, Owner: owner}
	rest := b[2:]
	idLen, k := binary.Uvarint(rest)
	if k <= 0 || idLen > uint64(len(rest)-k) {
		return cursor{}, errBadCursor
	}
	c.ID, rest = string(rest[k:k+int(idLen)]), rest[k+int(idLen):]
	if rankedKind(kind) {
		var fields [3]uint64
		for i := range fields {
			v, k := binary.Uvarint(rest)
			if k <= 0 || v > math.MaxInt32 {
				return cursor{}, errBadCursor
			}
			fields[i], rest = v, rest[k:]
		}
		c.Points, c.Index, c.Rank = int(fields[0]), int(fields[1]), int(fields[2])
	}
	if shardedKind(kind) {
		v, k := binary.Uvarint(rest)
		if k <= 0 || v > MaxShards {
			return cursor{}, errBadCursor
		}
		c.Shards, rest = int(v), rest[k:]
	}
	if len(rest) != 0 || c.check() != nil {
		return cursor{}, errBadCursor
	}
	return c, nil
}

// verify reports whether sig is the tag of payload||owner under any key.
func (cc *cursorCodec) verify(payload, sig []byte, owner string) bool {
	for _, key := range cc.keys {
		if hmac.Equal(tag(key, payload, owner), sig) {
			return true
		}
	}
	return false
}

// check validates a signed cursor's fields (defence in depth: a signed cursor was valid
// when it was made). Ranks stay within GraphQL's 32-bit Int.
func (c cursor) check() error {
	bad := errBadCursor
	if c.Points < 0 || c.Points > MaxScore || c.Index < 0 || c.Rank < 0 || c.Rank > c.Index || c.Index > math.MaxInt32 {
		return bad
	}
	switch c.Kind {
	case cursorEvents, cursorPredictions:
		if _, err := parseEventID(c.ID); err != nil {
			return bad
		}
	case cursorLeaderboard, cursorStandings, cursorLeague:
		if _, err := parseUserID(c.ID); err != nil || c.Index < 1 || c.Rank < 1 {
			return bad
		}
		if shardedKind(c.Kind) && (c.Shards < 1 || c.Shards > MaxShards) {
			return bad
		}
	case cursorAudit:
		if checkAuditSK(c.ID) != nil {
			return bad
		}
	}
	return nil
}
