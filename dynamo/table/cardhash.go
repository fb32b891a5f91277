package table

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"slices"
	"sort"

	"github.com/pickem/api/domain"
)

// CardHash is a digest of everything the match rows of a card hold (ids, positions,
// names, points, method points, preshow, championships, teams, results with their
// methods), in card order. Method points and result methods are hashed after every match,
// and only on a card with some: a card without them hashes as it always has, so the hashes
// stored on events that do not use them stay valid. The event row
// carries the hash of its card (EventRow.CardHash), written in the same transaction as the
// matches, so any reader can tell whether an event row and a set of match rows belong to
// the same moment: an index read may show the event row of one transaction with match rows
// of another, and two reads in parallel may straddle a card change. 128 bits of SHA-256,
// base64url.
func CardHash(matches []domain.Match) string {
	ms := make([]domain.Match, len(matches))
	copy(ms, matches)
	sort.SliceStable(ms, func(i, j int) bool {
		if ms[i].Position != ms[j].Position {
			return ms[i].Position < ms[j].Position
		}
		return ms[i].ID < ms[j].ID
	})
	var b []byte
	str := func(s string) {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	num := func(n int) { b = binary.AppendVarint(b, int64(n)) }
	flag := func(v bool) {
		if v {
			b = append(b, 1)
		} else {
			b = append(b, 0)
		}
	}
	num(len(ms))
	for _, m := range ms {
		str(m.ID)
		num(m.Position)
		str(m.Name)
		num(m.Points)
		flag(m.Preshow)
		num(len(m.Championships))
		for _, c := range m.Championships {
			str(c)
		}
		num(len(m.Teams))
		for _, t := range m.Teams {
			flag(t.Name != nil)
			if t.Name != nil {
				str(*t.Name)
			}
			num(len(t.Members))
			for _, mem := range t.Members {
				str(mem)
			}
			flag(t.Champion)
		}
		flag(m.Result != nil)
		if m.Result != nil {
			str(string(m.Result.Outcome))
			flag(m.Result.Winner != nil)
			if m.Result.Winner != nil {
				num(*m.Result.Winner)
			}
		}
	}
	if slices.ContainsFunc(ms, usesMethods) {
		flag(true)
		for _, m := range ms {
			num(m.MethodPoints)
			method := ""
			if m.Result != nil && m.Result.Method != nil {
				method = string(*m.Result.Method)
			}
			str(method)
		}
	}
	sum := sha256.Sum256(b)
	return base64.RawURLEncoding.EncodeToString(sum[:16])
}

// usesMethods reports whether m offers a method pick or has a result with a method.
func usesMethods(m domain.Match) bool {
	return m.MethodPoints != 0 || (m.Result != nil && m.Result.Method != nil)
}

// CardOf returns the event of row with the matches of rows in card order, and whether
// they belong together (the event row's CardHash is the hash of those matches).
func CardOf(row EventRow, rows []MatchRow) (domain.Event, bool, error) {
	ev, err := row.ToDomain()
	if err != nil {
		return domain.Event{}, false, err
	}
	ev.Matches = make([]domain.Match, len(rows))
	for i, m := range rows {
		ev.Matches[i] = m.ToDomain()
	}
	sort.SliceStable(ev.Matches, func(i, j int) bool { return ev.Matches[i].Position < ev.Matches[j].Position })
	return ev, row.CardHash == CardHash(ev.Matches), nil
}
