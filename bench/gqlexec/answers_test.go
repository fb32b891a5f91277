package gqlexec

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/answers/*.json from the current handler")

// TestAnswersAreByteIdentical pins the exact bytes of every benchmark screen's answer
// (status, Content-Type and body) over the canned store; changes that make execution
// cheaper must not change a byte. Rewrite them with -update only for a change that is meant
// to change answers, and say so in the commit.
func TestAnswersAreByteIdentical(t *testing.T) {
	s := NewStore()
	h := newHandler(s)
	for _, sc := range screens(s) {
		t.Run(sc.name, func(t *testing.T) {
			body, err := json.Marshal(sc.req)
			if err != nil {
				t.Fatal(err)
			}
			w := do(h, body, sc.caller)
			var got bytes.Buffer
			got.WriteString(w.Result().Status + "\n")
			got.WriteString("Content-Type: " + w.Header().Get("Content-Type") + "\n\n")
			got.Write(w.Body.Bytes())
			file := filepath.Join("testdata", "answers", sc.name+".txt")
			if *update {
				if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(file, got.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want) {
				t.Errorf("answer changed:\n got %s\nwant %s", got.Bytes(), want)
			}
		})
	}
}

func TestParseGC(t *testing.T) {
	for _, c := range []struct {
		gogc, limit string
		want        GC
		ok          bool
	}{
		{"400", "400MiB", GC{400, 400 << 20}, true},
		{"off", "1GiB", GC{-1, 1 << 30}, true},
		{"100", "1048576", GC{100, 1 << 20}, true},
		{"100", "64KiB", GC{100, 64 << 10}, true},
		{"-5", "1MiB", GC{}, false},
		{"400", "400MB", GC{}, false},
		{"400", "", GC{}, false},
	} {
		got, err := ParseGC(c.gogc, c.limit)
		if (err == nil) != c.ok || c.ok && got != c.want {
			t.Errorf("ParseGC(%q, %q) = %v, %v; want %v ok=%v", c.gogc, c.limit, got, err, c.want, c.ok)
		}
	}
	if _, err := DeployedGC(filepath.Join("..", "..", "deploy", "template.yaml")); err != nil {
		t.Fatal(err)
	}
}
