package server_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/pickem/api/server"
)

// fieldCostsTable renders server.FieldCosts as the README shows it.
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

// TestREADMEFieldCosts: the README's table of per-field costs is server.FieldCosts. Run
// with PICKEM_UPDATE_README=1 to rewrite it.
func TestREADMEFieldCosts(t *testing.T) {
	const begin, end = "<!-- fieldcosts:begin -->\n", "<!-- fieldcosts:end -->"
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	i, j := strings.Index(readme, begin), strings.Index(readme, end)
	if i < 0 || j < i {
		t.Fatalf("README.md has no %q … %q section", begin, end)
	}
	want := fieldCostsTable()
	if got := readme[i+len(begin) : j]; got != want {
		if os.Getenv("PICKEM_UPDATE_README") != "" {
			readme = readme[:i+len(begin)] + want + readme[j:]
			if err := os.WriteFile("../README.md", []byte(readme), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		t.Fatalf("README.md's field costs differ from server.FieldCosts; run PICKEM_UPDATE_README=1 go test ./server -run TestREADMEFieldCosts\nwant:\n%s", want)
	}
}
