package model

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestMarshalTimeWritesQuotedRFC3339: MarshalTime writes strconv.Quote of the UTC RFC 3339
// form (what it wrote before it formatted on the stack), into a bytes.Buffer and into any
// other writer, for times in other zones, with nanoseconds, and at the ends of the years.
func TestMarshalTimeWritesQuotedRFC3339(t *testing.T) {
	zone := time.FixedZone("UTC-5", -5*3600)
	for _, tm := range []time.Time{
		{},
		time.Date(2026, 11, 23, 20, 0, 0, 0, time.UTC),
		time.Date(2026, 11, 23, 20, 0, 0, 123456789, zone),
		time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC),
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC),
	} {
		want := strconv.Quote(tm.UTC().Format(time.RFC3339))
		var buf bytes.Buffer
		MarshalTime(tm).MarshalGQL(&buf)
		var sb strings.Builder
		MarshalTime(tm).MarshalGQL(&sb)
		if buf.String() != want || sb.String() != want {
			t.Errorf("MarshalTime(%v) wrote %s (bytes.Buffer) and %s (other writer), want %s", tm, buf.String(), sb.String(), want)
		}
	}
}
