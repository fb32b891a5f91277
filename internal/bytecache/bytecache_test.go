package bytecache

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestBoundedInBytes(t *testing.T) {
	c := New[string](10_000, 0, nil)
	add := func(k, v string) { c.Add(k, v, len(k)+len(v)) }
	big := strings.Repeat("x", 3_000)
	for i := range 10 {
		add(fmt.Sprint(i), big)
		if c.Bytes() > 10_000 {
			t.Fatalf("after %d adds: %d bytes used", i+1, c.Bytes())
		}
	}
	for i, want := range []bool{false, false, false, false, false, false, false, true, true, true} {
		if _, ok := c.Get(fmt.Sprint(i)); ok != want {
			t.Fatalf("entry %d cached = %v, want %v (least recently used go first)", i, ok, want)
		}
	}
	c.Get("7") // 7 becomes the most recent: 8 goes next
	add("new", big)
	if _, ok := c.Get("8"); ok {
		t.Fatal("the least recently used entry stayed")
	}
	if _, ok := c.Get("7"); !ok {
		t.Fatal("a recently used entry went")
	}
	add("huge", strings.Repeat("x", 20_000))
	if _, ok := c.Get("huge"); ok || c.Bytes() > 10_000 {
		t.Fatal("an entry larger than the cache was stored")
	}
	add("7", "small") // replacing an entry releases its weight
	if c.Bytes() != len("9")+len(big)+len("new")+len(big)+len("7small") {
		t.Fatalf("%d bytes used after replacing an entry", c.Bytes())
	}
	c.Remove(func(k string) bool { return k == "new" || k == "9" })
	if c.Len() != 1 || c.Bytes() != len("7small") {
		t.Fatalf("after Remove: %d entries, %d bytes", c.Len(), c.Bytes())
	}
}

func TestExpiresAfterTTL(t *testing.T) {
	now := time.Date(2030, 6, 1, 20, 0, 0, 0, time.UTC)
	c := New[int](1_000, 2*time.Second, func() time.Time { return now })
	c.Add("card", 1, 10)
	now = now.Add(1999 * time.Millisecond)
	if v, ok := c.Get("card"); !ok || v != 1 {
		t.Fatal("an entry younger than the TTL was not served")
	}
	now = now.Add(time.Millisecond)
	if _, ok := c.Get("card"); ok {
		t.Fatal("an entry as old as the TTL was served")
	}
	if c.Len() != 0 || c.Bytes() != 0 {
		t.Fatalf("an expired entry stayed: %d entries, %d bytes", c.Len(), c.Bytes())
	}
	c.Add("card", 2, 10) // a new value starts a new TTL
	now = now.Add(time.Second)
	if v, ok := c.Get("card"); !ok || v != 2 {
		t.Fatal("a re-added entry was not served")
	}
}
