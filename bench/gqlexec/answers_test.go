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
// (status, Content-Type and body) over the canned store. The files were written by the
// handler as it was before the execution-speed work of issue 10 (commit eb72d50); changes
// that make execution cheaper must not change a byte. Rewrite them with -update only for
// a change that is meant to change answers, and say so in the commit.
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
