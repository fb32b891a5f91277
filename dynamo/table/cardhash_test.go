package table

import (
	"testing"

	"github.com/pickem/api/domain"
)

// hashCard is a card of two matches, out of card order, with a named team, championships,
// a WIN and a DRAW.
func hashCard() []domain.Match {
	w := 0
	name := "The Team"
	return []domain.Match{
		{ID: "00000000-0000-4000-8000-000000000002", Position: 2, Name: "Main", Points: 30, Championships: []string{"World"},
			Teams:  []domain.Team{{Name: &name, Members: []string{"A", "B"}, Champion: true}, {Members: []string{"C"}}},
			Result: &domain.MatchResult{Outcome: domain.OutcomeWin, Winner: &w}},
		{ID: "00000000-0000-4000-8000-000000000001", Position: 1, Name: "Opener", Points: 10, Preshow: true,
			Teams: []domain.Team{{Members: []string{"D"}}, {Members: []string{"E"}}}, Result: &domain.MatchResult{Outcome: domain.OutcomeDraw}},
	}
}

// TestCardHash: a card without method points or result methods hashes to the value stored
// on events written before either existed (pinned), so their rows still match their
// matches; every change a card edit can make, method points and a result's method
// included, changes the hash.
func TestCardHash(t *testing.T) {
	const stored = "bnZvf-45dwN394zAYbRuZw"
	if got := CardHash(hashCard()); got != stored {
		t.Fatalf("CardHash of a plain card = %q, want the stored %q", got, stored)
	}
	pin, sub := domain.MethodPinfall, domain.MethodSubmission
	for name, edit := range map[string]func(c []domain.Match){
		"MethodPoints":      func(c []domain.Match) { c[0].MethodPoints = 5 },
		"OtherMethodPoints": func(c []domain.Match) { c[1].MethodPoints = 5 },
		"ResultMethod":      func(c []domain.Match) { c[0].Result.Method = &pin },
		"Points":            func(c []domain.Match) { c[0].Points = 31 },
		"Winner":            func(c []domain.Match) { w := 1; c[0].Result.Winner = &w },
	} {
		t.Run(name, func(t *testing.T) {
			c := hashCard()
			edit(c)
			if CardHash(c) == stored {
				t.Errorf("the hash did not change")
			}
		})
	}
	t.Run("MethodsTellApart", func(t *testing.T) {
		a, b := hashCard(), hashCard()
		a[0].Result.Method, b[0].Result.Method = &pin, &sub
		c := hashCard()
		c[0].MethodPoints, c[1].MethodPoints = 5, 0
		d := hashCard()
		d[0].MethodPoints, d[1].MethodPoints = 0, 5
		if CardHash(a) == CardHash(b) || CardHash(c) == CardHash(d) {
			t.Errorf("different methods or method points on different matches hash the same")
		}
	})
}
