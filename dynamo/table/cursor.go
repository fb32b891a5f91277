package table

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
	CursorEvents      = "events"
	CursorLeaderboard = "leaderboard"
	CursorStandings   = "standings"
	CursorPredictions = "predictions"
	CursorLeague      = "league" // a league's standings in a season (owner "<league id>/<season>")
	CursorAudit       = "audit"  // an audit log (owner: the log's id; ID: the last entry's sort key)
)

// Cursor is the decoded form of an opaque page cursor: the position of the last item of a
// page plus the rank state needed to continue ranking on the next page. Keys are rebuilt
// from validated ids, never taken from the cursor as they are.
type Cursor struct {
	Kind   string
	Owner  string // event id, season, user id or events filter: signed, not stored
	ID     string // last item: event id or user id
	Points int    // last item's points (ranked lists)
	Index  int    // rows before and including the last item
	Rank   int    // rank of the last item
	Shards int    // the list's shard count (sharded kinds: a leaderboard, standings)
}

// Ranker is the rank state to go on ranking from after c's row.
func (c Cursor) Ranker() domain.Ranker {
	return domain.Ranker{Index: c.Index, Rank: c.Rank, Points: c.Points}
}

// Cursor wire format, version 2, base64url without padding:
//
//	version (1 byte) | kind (1 byte) | uvarint len(ID) | ID | [uvarint Points | uvarint Index | uvarint Rank] | [uvarint Shards] | tag (12 bytes)
//
// The rank fields are present for ranked kinds only, the shard count for sharded ones. tag
// is the first 12 bytes of HMAC-SHA256(key, everything before the tag || owner): the owner
// (event, season, user, filter) is bound by the tag without being stored, so a cursor only
// opens the list it came from, and any edit of any field fails the tag.
const (
	cursorVersion    = 2
	cursorTagLen     = 12
	maxCursorLen     = 256 // encoded; the longest valid cursor is about 200
	cursorKeyMinLen  = 32
	cursorRandKeyLen = 32
)

var cursorKinds = map[string]byte{CursorEvents: 1, CursorLeaderboard: 2, CursorStandings: 3, CursorPredictions: 4, CursorLeague: 5, CursorAudit: 6}

func rankedKind(kind string) bool {
	return kind == CursorLeaderboard || kind == CursorStandings || kind == CursorLeague
}

func shardedKind(kind string) bool { return kind == CursorLeaderboard || kind == CursorStandings }

// Cursors signs cursors with its first key and accepts cursors signed by any of its
// keys (rotation: put the new key first, keep the old one until its cursors are stale).
type Cursors struct {
	keys [][]byte
}

// NewCursors returns a codec signing with keys[0] and accepting any of keys; without
// keys, with a random key of its own.
func NewCursors(keys [][]byte) *Cursors {
	if len(keys) == 0 {
		keys = [][]byte{NewCursorKey()}
	}
	c := &Cursors{keys: make([][]byte, len(keys))}
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

// Encode returns c as an opaque, signed, URL-safe string.
func (cc *Cursors) Encode(c Cursor) string {
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

// ErrBadCursor is the answer to any cursor that does not decode, verify or check.
var ErrBadCursor = domain.BadInput("invalid cursor for this list")

// Decode parses s and checks that one of the keys signed it for kind and owner;
// anything else is BAD_USER_INPUT.
func (cc *Cursors) Decode(s, kind, owner string) (Cursor, error) {
	if len(s) > maxCursorLen {
		return Cursor{}, ErrBadCursor
	}
	raw, err := base64.RawURLEncoding.Strict().DecodeString(s)
	if err != nil || len(raw) < 3+cursorTagLen {
		return Cursor{}, ErrBadCursor
	}
	b, sig := raw[:len(raw)-cursorTagLen], raw[len(raw)-cursorTagLen:]
	if b[0] != cursorVersion || b[1] != cursorKinds[kind] || !cc.verify(b, sig, owner) {
		return Cursor{}, ErrBadCursor
	}
	c := Cursor{Kind: kind, Owner: owner}
	rest := b[2:]
	idLen, k := binary.Uvarint(rest)
	if k <= 0 || idLen > uint64(len(rest)-k) {
		return Cursor{}, ErrBadCursor
	}
	c.ID, rest = string(rest[k:k+int(idLen)]), rest[k+int(idLen):]
	if rankedKind(kind) {
		var fields [3]uint64
		for i := range fields {
			v, k := binary.Uvarint(rest)
			if k <= 0 || v > math.MaxInt32 {
				return Cursor{}, ErrBadCursor
			}
			fields[i], rest = v, rest[k:]
		}
		c.Points, c.Index, c.Rank = int(fields[0]), int(fields[1]), int(fields[2])
	}
	if shardedKind(kind) {
		v, k := binary.Uvarint(rest)
		if k <= 0 || v > MaxShards {
			return Cursor{}, ErrBadCursor
		}
		c.Shards, rest = int(v), rest[k:]
	}
	if len(rest) != 0 || c.check() != nil {
		return Cursor{}, ErrBadCursor
	}
	return c, nil
}

// verify reports whether sig is the tag of payload||owner under any key.
func (cc *Cursors) verify(payload, sig []byte, owner string) bool {
	for _, key := range cc.keys {
		if hmac.Equal(tag(key, payload, owner), sig) {
			return true
		}
	}
	return false
}

// check validates a signed cursor's fields (defence in depth: a signed cursor was valid
// when it was made). Ranks stay within GraphQL's 32-bit Int.
func (c Cursor) check() error {
	bad := ErrBadCursor
	if c.Points < 0 || c.Points > MaxScore || c.Index < 0 || c.Rank < 0 || c.Rank > c.Index || c.Index > math.MaxInt32 {
		return bad
	}
	switch c.Kind {
	case CursorEvents, CursorPredictions:
		if _, err := ParseEventID(c.ID); err != nil {
			return bad
		}
	case CursorLeaderboard, CursorStandings, CursorLeague:
		if _, err := ParseUserID(c.ID); err != nil || c.Index < 1 || c.Rank < 1 {
			return bad
		}
		if shardedKind(c.Kind) && (c.Shards < 1 || c.Shards > MaxShards) {
			return bad
		}
	case CursorAudit:
		if checkAuditSK(c.ID) != nil {
			return bad
		}
	}
	return nil
}
