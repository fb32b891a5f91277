package domain

// Score is what one prediction earns.
type Score struct {
	Points  int
	Correct int
	// Picks carries the prediction's picks with Correct set.
	Picks []Pick
}

// ScorePicks scores picks against a card whose matches all have results. A correct pick
// earns the match's points; a voided match (DRAW, NO_CONTEST) and a pick on a match no
// longer on the card earn nothing and are not correct.
func ScorePicks(card []Match, picks []Pick) Score {
	byID := make(map[string]Match, len(card))
	for _, m := range card {
		byID[m.ID] = m
	}
	s := Score{Picks: make([]Pick, len(picks))}
	for i, p := range picks {
		ok := false
		if m, found := byID[p.MatchID]; found && m.Result != nil && !m.Result.Void() &&
			m.Result.Winner != nil && *m.Result.Winner == p.Team {
			ok = true
			s.Points += m.Points
			s.Correct++
		}
		p.Correct = &ok
		s.Picks[i] = p
	}
	return s
}

// MissingResults returns the names of matches on the card without a result.
func MissingResults(card []Match) []string {
	var missing []string
	for _, m := range card {
		if m.Result == nil {
			missing = append(missing, m.Name)
		}
	}
	return missing
}

// Ranker assigns competition ranks (1, 2, 2, 4) to rows given highest points first. The
// zero value starts a list; a Ranker restored from a cursor continues one.
type Ranker struct {
	Index  int // rows seen so far
	Rank   int // rank of the last row
	Points int // points of the last row
}

// Next returns the rank of the next row, which has points.
func (r *Ranker) Next(points int) int {
	r.Index++
	if r.Index == 1 || points != r.Points {
		r.Rank = r.Index
	}
	r.Points = points
	return r.Rank
}
