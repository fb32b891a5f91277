package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pickem/api/operations"
)

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	doc := "query Q { me { id } }"
	for _, tc := range []struct{ name, content, want string }{
		{"Valid", `{"sha256:` + operations.Hash(doc) + `": "` + doc + `"}`, "1 documents"},
		{"WrongHash", `{"` + strings.Repeat("0", 64) + `": "` + doc + `"}`, "entry 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, tc.name+".json")
			if err := os.WriteFile(p, []byte(tc.content), 0o600); err != nil {
				t.Fatal(err)
			}
			report, err := check(p)
			got := report
			if err != nil {
				got = err.Error()
			}
			if (err == nil) != (tc.name == "Valid") || !strings.Contains(got, tc.want) || !strings.Contains(got, p) {
				t.Fatalf("report %q, err %v: want %q naming %s", report, err, tc.want, p)
			}
		})
	}
}
