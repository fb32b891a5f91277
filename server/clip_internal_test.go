package server

import (
	"strings"
	"testing"
)

func TestClipMessage(t *testing.T) {
	long := strings.Repeat("9", 5000)
	for in, want := range map[string]string{
		"short message": "short message",
		`Cannot query field "` + long + `" on "Query"`:                                  `Cannot query field "` + long[:maxQuoted] + `…" on "Query"`,
		"Int cannot represent value: " + long:                                           "Int cannot represent value: " + long[:maxQuoted] + "…",
		`event "2026-12-06-wrestlemania-41-night-2" has matches without a result: A, B`: `event "2026-12-06-wrestlemania-41-night-2" has matches without a result: A, B`,
		`unterminated "` + long:                                                         `unterminated ` + `"` + long[:maxQuoted-1] + "…",
	} {
		if got := clipMessage(in); got != want {
			t.Errorf("clipMessage(%.60q…) = %.200q, want %.200q", in, got, want)
		}
	}
	if got := clipMessage(strings.Repeat("word ", 1000)); len(got) > maxMessage+len("…") {
		t.Errorf("%d bytes", len(got))
	}
}
