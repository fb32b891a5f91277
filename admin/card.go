package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/goccy/go-yaml"
)

// cardFile is an event card as written in a YAML or JSON file. Its shape is the API's
// EventInput, so it is sent as it is.
type cardFile struct {
	ID       *string      `json:"id,omitempty"`
	Name     string       `json:"name"`
	StartsAt string       `json:"startsAt"`
	Matches  []matchInput `json:"matches"`
	// The game settings; left out, the API's defaults (no jokers, no bonus, no question).
	Jokers           *bool   `json:"jokers,omitempty"`
	PerfectCardBonus *int    `json:"perfectCardBonus,omitempty"`
	Tiebreaker       *string `json:"tiebreaker,omitempty"`
}

type matchInput struct {
	Name          string      `json:"name"`
	Points        int         `json:"points"`
	MethodPoints  int         `json:"methodPoints,omitempty"`
	Preshow       bool        `json:"preshow"`
	Championships []string    `json:"championships,omitempty"`
	Teams         []teamInput `json:"teams"`
}

type teamInput struct {
	Name     *string  `json:"name,omitempty"`
	Members  []string `json:"members"`
	Champion bool     `json:"champion"`
}

// readCard reads a card file: .json as JSON, anything else as YAML. Unknown fields are
// errors, so a typo cannot silently drop data.
func readCard(path string) (cardFile, error) {
	var c cardFile
	data, err := os.ReadFile(path)
	if err != nil {
		return c, err
	}
	if strings.EqualFold(filepath.Ext(path), ".json") {
		dec := json.NewDecoder(strings.NewReader(string(data)))
		dec.DisallowUnknownFields()
		err = dec.Decode(&c)
	} else {
		err = yaml.UnmarshalWithOptions(data, &c, yaml.Strict())
	}
	if err != nil {
		return c, fmt.Errorf("%s: %w", path, err)
	}
	if c.Name == "" {
		return c, fmt.Errorf("%s: the card needs a name", path)
	}
	if _, err := time.Parse(time.RFC3339, c.StartsAt); err != nil {
		return c, fmt.Errorf("%s: startsAt %q: want RFC 3339 with an offset, e.g. 2025-04-20T22:00:00Z", path, c.StartsAt)
	}
	if len(c.Matches) == 0 {
		return c, fmt.Errorf("%s: the card has no matches", path)
	}
	return c, nil
}

// event is what the admin command reads back about an event and its card.
type event struct {
	ID               string      `json:"id"`
	Name             string      `json:"name"`
	StartsAt         string      `json:"startsAt"`
	State            string      `json:"state"`
	Locked           bool        `json:"locked"`
	Jokers           bool        `json:"jokers"`
	PerfectCardBonus int         `json:"perfectCardBonus"`
	Tiebreaker       *tiebreaker `json:"tiebreaker"`
	Matches          []match     `json:"matches"`
}

type tiebreaker struct {
	Question string `json:"question"`
	Answer   *int   `json:"answer"`
}

type match struct {
	ID            string   `json:"id"`
	Position      int      `json:"position"`
	Name          string   `json:"name"`
	Points        int      `json:"points"`
	MethodPoints  int      `json:"methodPoints"`
	Preshow       bool     `json:"preshow"`
	Championships []string `json:"championships"`
	Teams         []team   `json:"teams"`
	Result        *result  `json:"result"`
}

type team struct {
	Name     *string  `json:"name"`
	Members  []string `json:"members"`
	Champion bool     `json:"champion"`
}

type result struct {
	Outcome string  `json:"outcome"`
	Winner  *int    `json:"winner"`
	Method  *string `json:"method"`
}

func (t team) String() string {
	s := strings.Join(t.Members, " & ")
	if t.Name != nil {
		s = *t.Name + " (" + s + ")"
	}
	if t.Champion {
		s += " (c)"
	}
	return s
}

func (m match) resultText() string {
	switch {
	case m.Result == nil:
		return "no result yet"
	case m.Result.Outcome == "WIN" && m.Result.Winner != nil && *m.Result.Winner < len(m.Teams):
		s := fmt.Sprintf("WIN: team %d, %s", *m.Result.Winner, m.Teams[*m.Result.Winner])
		if m.Result.Method != nil {
			s += " by " + *m.Result.Method
		}
		return s
	default:
		return m.Result.Outcome + " (void: nobody scores it)"
	}
}

// printCard prints an event and its card with the ids and team numbers that set-result and
// submitPrediction take.
func printCard(w io.Writer, e event) {
	fmt.Fprintf(w, "%s\n  id       %s\n  starts   %s\n  state    %s\n", e.Name, e.ID, e.StartsAt, e.State)
	if e.Jokers {
		fmt.Fprintln(w, "  jokers   on: a joker pick scores double, or loses its match's points")
	}
	if e.PerfectCardBonus > 0 {
		fmt.Fprintf(w, "  perfect  +%d for a perfect card\n", e.PerfectCardBonus)
	}
	if t := e.Tiebreaker; t != nil {
		answer := "not counted yet"
		if t.Answer != nil {
			answer = strconv.Itoa(*t.Answer)
		}
		fmt.Fprintf(w, "  question %s (answer: %s)\n", t.Question, answer)
	}
	for _, m := range e.Matches {
		fmt.Fprintf(w, "\n%d. %s — %d points", m.Position, m.Name, m.Points)
		if m.MethodPoints > 0 {
			fmt.Fprintf(w, ", +%d for the method", m.MethodPoints)
		}
		if m.Preshow {
			fmt.Fprint(w, ", preshow")
		}
		fmt.Fprintln(w)
		if len(m.Championships) > 0 {
			fmt.Fprintf(w, "   for      %s\n", strings.Join(m.Championships, ", "))
		}
		fmt.Fprintf(w, "   match    %s\n", m.ID)
		for i, t := range m.Teams {
			fmt.Fprintf(w, "   team %d   %s\n", i, t)
		}
		fmt.Fprintf(w, "   result   %s\n", m.resultText())
	}
}
