package table

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"strings"

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
	// A leaderboard's order and places (domain.Placer):
	//   - Tiebreak is the tie-break component of the last row's score key
	//     (table.LeaderboardSK; "": a key without one): with Points and ID, the position;
	//   - Answer is the counted tie-breaker answer the page was placed under
	//     (domain.Event.CountedAnswer; nil: none, and Place is Rank): a page after the
	//     cursor continues that order only;
	//   - Place and Guess are the last row's place and tie-breaker guess.
	Tiebreak string
	Answer   *int
	Place    int
	Guess    *int
}

// Ranker is the rank state to go on ranking from after c's row.
func (c Cursor) Ranker() domain.Ranker {
	return domain.Ranker{Index: c.Index, Rank: c.Rank, Points: c.Points}
}

// Placer is the rank and place state to go on placing a leaderboard from after c's row.
func (c Cursor) Placer() domain.Placer {
	return domain.Placer{Answer: c.Answer, Ranker: c.Ranker(), Place: c.Place, Guess: c.Guess}
}

// ScoreKey is the index sort key of the last row of a ranked list's cursor (a leaderboard's
// with its tie-break component): a page after it reads the keys above it in every shard.
// The key is rebuilt from the checked fields.
func (c Cursor) ScoreKey() (string, error) {
	return scoreKey(c.Points, c.Tiebreak, UserID(c.ID))
}

// Cursor wire format, version 2, base64url without padding:
//
//	version (1 byte) | kind (1 byte) | uvarint len(ID) | ID | [uvarint Points | uvarint Index | uvarint Rank] | [uvarint Shards] | [order] | tag (12 bytes)
//	order: flags (1 byte) | [uvarint Tiebreak] | [uvarint Answer | uvarint Place] | [uvarint Guess]
//
// The rank fields are present for ranked kinds only, the shard count for sharded ones. A
// leaderboard's order part is present only when the cursor has a tie-break component or an
// answer (so a leaderboard cursor of an event without a tie-breaker is the same bytes as
// one of a list without order): flags says which of its fields follow (orderTiebreak: the
// component as its 9-digit number; orderAnswer: the answer and the place; orderGuess: the
// guess, only with an answer). tag
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

// The flags of a leaderboard cursor's order part.
const (
	orderTiebreak = 1 << iota
	orderAnswer
	orderGuess
	orderFlags = orderTiebreak | orderAnswer | orderGuess
)

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
	if c.Kind == CursorLeaderboard {
		b = appendOrder(b, c)
	}
	b = append(b, tag(cc.keys[0], b, c.Owner)...)
	return base64.RawURLEncoding.EncodeToString(b)
}

// ErrBadCursor is the answer to any cursor that does not decode, verify or check.
var ErrBadCursor = domain.BadInput("invalid cursor for this list")

// Decode parses s and checks that one of the keys signed it for kind and owner;
// anything else is BAD_USER_INPUT.
func (cc *Cursors) Decode(s, kind, owner string) (Cursor, error) {
	// The decoder skips line breaks: a cursor is one encoding only.
	if len(s) > maxCursorLen || strings.ContainsAny(s, "\r\n") {
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
	if kind == CursorLeaderboard {
		var ok bool
		if c, rest, ok = readOrder(c, rest); !ok {
			return Cursor{}, ErrBadCursor
		}
	}
	if len(rest) != 0 || c.check() != nil {
		return Cursor{}, ErrBadCursor
	}
	return c, nil
}

// appendOrder appends a leaderboard cursor's order part (see the wire format), nothing when
// it has neither a tie-break component nor an answer.
func appendOrder(b []byte, c Cursor) []byte {
	flags := byte(0)
	if c.Tiebreak != "" {
		flags |= orderTiebreak
	}
	if c.Answer != nil {
		flags |= orderAnswer
		if c.Guess != nil {
			flags |= orderGuess
		}
	}
	if flags == 0 {
		return b
	}
	b = append(b, flags)
	if c.Tiebreak != "" {
		n, _ := strconv.Atoi(c.Tiebreak) // checked digits: check
		b = binary.AppendUvarint(b, uint64(n))
	}
	if c.Answer != nil {
		b = binary.AppendUvarint(b, uint64(*c.Answer))
		b = binary.AppendUvarint(b, uint64(c.Place))
		if c.Guess != nil {
			b = binary.AppendUvarint(b, uint64(*c.Guess))
		}
	}
	return b
}

// readOrder reads a leaderboard cursor's order part from rest into c; without one, the
// cursor has no tie-break component, no answer, and its place is its rank. ok is false
// when the part is malformed (unknown or no flags, a truncated field).
func readOrder(c Cursor, rest []byte) (Cursor, []byte, bool) {
	c.Place = c.Rank
	if len(rest) == 0 {
		return c, rest, true
	}
	flags := rest[0]
	rest = rest[1:]
	if flags == 0 || flags&^orderFlags != 0 || (flags&orderGuess != 0 && flags&orderAnswer == 0) {
		return c, rest, false
	}
	next := func() (int, bool) {
		v, k := binary.Uvarint(rest)
		if k <= 0 || v > math.MaxInt32 {
			return 0, false
		}
		rest = rest[k:]
		return int(v), true
	}
	if flags&orderTiebreak != 0 {
		n, ok := next()
		if !ok {
			return c, rest, false
		}
		c.Tiebreak = fmt.Sprintf("%0*d", domain.TiebreakKeyLen, n)
	}
	if flags&orderAnswer != 0 {
		answer, ok1 := next()
		place, ok2 := next()
		if !ok1 || !ok2 {
			return c, rest, false
		}
		c.Answer, c.Place = &answer, place
		if flags&orderGuess != 0 {
			guess, ok := next()
			if !ok {
				return c, rest, false
			}
			c.Guess = &guess
		}
	}
	return c, rest, true
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
		if c.Kind == CursorLeaderboard && c.checkOrder() != nil {
			return bad
		}
	case CursorAudit:
		if checkAuditSK(c.ID) != nil {
			return bad
		}
	}
	if c.Kind != CursorLeaderboard && (c.Tiebreak != "" || c.Answer != nil || c.Place != 0 || c.Guess != nil) {
		return bad
	}
	return nil
}

// checkOrder validates a leaderboard cursor's order fields: a tie-break component as the
// keys hold them; without an answer, the place is the rank and there is no guess; with one,
// answer and guess are tie-breaker values and the place lies between the rank and the
// rows so far (a place splits ties: never above the rank).
func (c Cursor) checkOrder() error {
	if c.Tiebreak != "" && !validTiebreak(c.Tiebreak) {
		return ErrBadCursor
	}
	if c.Answer == nil {
		if c.Place != c.Rank || c.Guess != nil {
			return ErrBadCursor
		}
		return nil
	}
	if domain.ValidTiebreakerValue("answer", *c.Answer) != nil || (c.Guess != nil && domain.ValidTiebreakerValue("guess", *c.Guess) != nil) ||
		c.Place < c.Rank || c.Place > c.Index {
		return ErrBadCursor
	}
	return nil
}
