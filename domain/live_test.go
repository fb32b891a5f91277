package domain

import (
	"strings"
	"testing"
)

// eventIDFromLive undoes LiveChannel: the segments after the namespace without their
// first and last letter, joined.
func eventIDFromLive(t *testing.T, channel string) string {
	t.Helper()
	segments := strings.Split(strings.TrimPrefix(channel, "/"), "/")
	var id strings.Builder
	for _, s := range segments[1:] {
		if !strings.HasPrefix(s, liveWrap) || !strings.HasSuffix(s, liveWrap) || len(s) < 3 {
			t.Fatalf("segment %q of %q is not X<piece>X", s, channel)
		}
		id.WriteString(s[1 : len(s)-1])
	}
	return id.String()
}

func TestLiveChannel(t *testing.T) {
	id48 := "2024-03-03-" + strings.Repeat("a", 37)
	id100 := "2024-03-03-" + strings.Repeat("b", 88) + "-"
	tests := []struct {
		name, namespace, id, want string
	}{
		{"ShortID", "pickem", "2024-03-03-aew-revolution", "/pickem/X2024-03-03-aew-revolutionX"},
		{"TrailingDash", "pickem", "2024-03-03-show-", "/pickem/X2024-03-03-show-X"},
		{"DashesOnly", "pickem", "2024-03-03---", "/pickem/X2024-03-03---X"},
		{"FortyEightFitOneSegment", "pickem", id48, "/pickem/X" + id48 + "X"},
		{"FortyNineTakeTwo", "pickem", id48 + "c", "/pickem/X" + id48 + "X/XcX"},
		{"DashStartsTheSecondPiece", "pickem", id48 + "-z", "/pickem/X" + id48 + "X/X-zX"},
		{"LongestIDTakesThree", "live", id100, "/live/X" + id100[:48] + "X/X" + id100[48:96] + "X/X" + id100[96:] + "X"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := LiveChannel(tt.namespace, tt.id)
			if err != nil || got != tt.want {
				t.Fatalf("LiveChannel(%q, %q) = %q, %v; want %q", tt.namespace, tt.id, got, err, tt.want)
			}
			if !ValidChannel(got) {
				t.Fatalf("%q is not a valid channel", got)
			}
			if back := eventIDFromLive(t, got); back != tt.id {
				t.Fatalf("channel %q decodes to %q, want %q", got, back, tt.id)
			}
		})
	}
	if len(id100) != MaxEventIDLen {
		t.Fatalf("longest id has %d characters, want %d", len(id100), MaxEventIDLen)
	}
}

func TestLiveChannelRefuses(t *testing.T) {
	tests := []struct {
		name, namespace, id string
	}{
		{"EmptyID", "pickem", ""},
		{"IDWithoutDate", "pickem", "aew-revolution"},
		{"UppercaseID", "pickem", "2024-03-03-AEW"},
		{"IDWithSlash", "pickem", "2024-03-03-a/b"},
		{"IDTooLong", "pickem", "2024-03-03-" + strings.Repeat("a", 90)},
		{"EmptyNamespace", "", "2024-03-03-show"},
		{"NamespaceWithSlash", "a/b", "2024-03-03-show"},
		{"NamespaceEndingInDash", "pickem-", "2024-03-03-show"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := LiveChannel(tt.namespace, tt.id)
			if ErrorCode(err) != CodeBadUserInput || got != "" {
				t.Fatalf("LiveChannel(%q, %q) = %q, %v; want BAD_USER_INPUT", tt.namespace, tt.id, got, err)
			}
		})
	}
}

func TestValidChannel(t *testing.T) {
	seg50 := "a" + strings.Repeat("-", 48) + "z"
	tests := []struct {
		name    string
		channel string
		want    bool
	}{
		{"LeadingSlash", "/pickem/abc", true},
		{"NoLeadingSlash", "pickem/abc", true},
		{"NamespaceOnly", "/pickem", true},
		{"FiveSegments", "/a/b/c/d/e", true},
		{"SegmentOfFifty", "/a/" + seg50, true},
		{"DigitsAndCase", "/A1/b-2/C", true},
		{"Empty", "", false},
		{"SlashOnly", "/", false},
		{"SixSegments", "/a/b/c/d/e/f", false},
		{"SegmentOfFiftyOne", "/a/" + seg50 + "z", false},
		{"EmptySegment", "/a//b", false},
		{"TrailingSlash", "/a/b/", false},
		{"SegmentStartsWithDash", "/a/-b", false},
		{"SegmentEndsWithDash", "/a/b-", false},
		{"Wildcard", "/a/*", false},
		{"Underscore", "/a/b_c", false},
		{"Unicode", "/a/é", false},
		{"TwoLeadingSlashes", "//a/b", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ValidChannel(tt.channel); got != tt.want {
				t.Fatalf("ValidChannel(%q) = %v, want %v", tt.channel, got, tt.want)
			}
		})
	}
}

// fuzzEventID turns any string into a valid event id: a date, then the string's bytes
// mapped onto lowercase letters, digits and dashes, up to MaxEventIDLen characters.
func fuzzEventID(s string) string {
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789-"
	b := []byte("2024-03-03-")
	for i := 0; i < len(s) && len(b) < MaxEventIDLen; i++ {
		b = append(b, alphabet[int(s[i])%len(alphabet)])
	}
	if len(b) == len("2024-03-03-") {
		b = append(b, '-')
	}
	return string(b)
}

// FuzzLiveChannel: every valid event id maps to a valid channel of at most
// MaxChannelSegments segments that decodes back to the id (so two ids never share a
// channel); anything else is refused.
func FuzzLiveChannel(f *testing.F) {
	f.Add("aew-revolution", "aew-revolution-", "2024-03-03-aew")
	f.Add(strings.Repeat("-", 48), strings.Repeat("-", 49), "2024-02-30-x")
	f.Add(strings.Repeat("z", 100), "", "2024-03-03-a#b")
	f.Fuzz(func(t *testing.T, a, b, raw string) {
		idA, idB := fuzzEventID(a), fuzzEventID(b)
		chA, errA := LiveChannel("pickem", idA)
		chB, errB := LiveChannel("pickem", idB)
		if errA != nil || errB != nil {
			t.Fatalf("valid ids %q, %q refused: %v, %v", idA, idB, errA, errB)
		}
		for id, ch := range map[string]string{idA: chA, idB: chB} {
			if !ValidChannel(ch) || strings.Count(ch, "/") > MaxChannelSegments {
				t.Fatalf("id %q: channel %q is not a valid channel", id, ch)
			}
			if back := eventIDFromLive(t, ch); back != id {
				t.Fatalf("id %q: channel %q decodes to %q", id, ch, back)
			}
		}
		if (idA == idB) != (chA == chB) {
			t.Fatalf("ids %q, %q give channels %q, %q", idA, idB, chA, chB)
		}
		ch, err := LiveChannel("pickem", raw)
		if (err == nil) != (ValidateEventID(raw) == nil) || err == nil && !ValidChannel(ch) {
			t.Fatalf("LiveChannel(%q) = %q, %v", raw, ch, err)
		}
	})
}
