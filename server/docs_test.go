package server_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/pickem/api/server"
)

// fieldCostsTable renders server.FieldCosts as docs/api.md shows it.
func fieldCostsTable() string {
	var b strings.Builder
	b.WriteString("| field | DynamoDB calls | how |\n|---|---|---|\n")
	for _, c := range server.FieldCosts {
		calls := fmt.Sprint(c.Calls)
		if c.Calls < 0 {
			calls = "all"
		}
		b.WriteString(fmt.Sprintf("| `%s` | %s | %s |\n", c.Field, calls, c.Note))
	}
	return b.String()
}

// TestDocsFieldCosts: the table of per-field costs in docs/api.md ("Cost per request") is
// server.FieldCosts. Run with PICKEM_UPDATE_DOCS=1 to rewrite it.
func TestDocsFieldCosts(t *testing.T) {
	const doc = "../docs/api.md"
	const begin, end = "<!-- fieldcosts:begin -->\n", "<!-- fieldcosts:end -->"
	b, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	i, j := strings.Index(text, begin), strings.Index(text, end)
	if i < 0 || j < i {
		t.Fatalf("%s has no %q … %q section", doc, begin, end)
	}
	want := fieldCostsTable()
	if got := text[i+len(begin) : j]; got != want {
		if os.Getenv("PICKEM_UPDATE_DOCS") != "" {
			text = text[:i+len(begin)] + want + text[j:]
			if err := os.WriteFile(doc, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		t.Fatalf("%s's field costs differ from server.FieldCosts; run PICKEM_UPDATE_DOCS=1 go test ./server -run TestDocsFieldCosts\nwant:\n%s", doc, want)
	}
}
