package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/truora/minidyn/types"
)

// TestQueryAnswerJSON: a Query's answer written by appendJSON is byte for byte what
// json.Encoder (EscapeHTML off, as ServeHTTP) writes for its QueryOutput, over random items
// with values of every type, nil and empty fields, and strings that need escaping.
func TestQueryAnswerJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := range 3000 {
		items := randomItems(r, 3)
		a := &queryAnswer{items: items, count: int32(len(items)), last: randomItem(r, 1)}
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(a.output()); err != nil {
			t.Fatal(err)
		}
		got, err := a.appendJSON(nil)
		if err != nil {
			t.Fatal(err)
		}
		if string(append(got, '\n')) != want.String() {
			t.Fatalf("case %d:\n got %s\nwant %s", n, got, want.Bytes())
		}
	}
}

var tricky = []string{"", "plain", "quote\"", "back\\slash", "tab\tnew\nline", "\x00\x1f", "<&>", "é ü", "\u2028\u2029", "bad \xff utf8", "emoji 🤼"}

func randomString(r *rand.Rand) string { return tricky[r.IntN(len(tricky))] }

func ptr[T any](v T) *T { return &v }

func randomItems(r *rand.Rand, depth int) []map[string]*types.Item {
	switch r.IntN(5) {
	case 0:
		return nil
	case 1:
		return []map[string]*types.Item{}
	}
	items := make([]map[string]*types.Item, r.IntN(4))
	for i := range items {
		items[i] = randomItem(r, depth)
	}
	return items
}

func randomItem(r *rand.Rand, depth int) map[string]*types.Item {
	switch r.IntN(6) {
	case 0:
		return nil
	case 1:
		return map[string]*types.Item{}
	}
	m := map[string]*types.Item{}
	for i := range r.IntN(40) {
		if i >= 4 && r.IntN(8) > 0 {
			m[fmt.Sprintf("k%02d", i)] = randomValue(r, 0)
			continue
		}
		m[randomString(r)] = randomValue(r, depth)
	}
	return m
}

func randomValue(r *rand.Rand, depth int) *types.Item {
	if r.IntN(12) == 0 {
		return nil
	}
	v := &types.Item{}
	// Usually one type, as DynamoDB sends; sometimes several or none, to cover every field.
	for range 1 + r.IntN(2) {
		switch r.IntN(10) {
		case 0:
			v.B = [][]byte{nil, {}, []byte("bin\x00\xff")}[r.IntN(3)]
		case 1:
			v.BOOL = ptr(r.IntN(2) == 0)
		case 2:
			v.BS = [][]byte{[]byte("a"), nil, {}}[:r.IntN(4)]
		case 3:
			if depth > 0 {
				v.L = []*types.Item{randomValue(r, depth-1), nil, randomValue(r, depth-1)}[:r.IntN(4)]
			}
		case 4:
			if depth > 0 {
				v.M = randomItem(r, depth-1)
			}
		case 5:
			v.N = ptr([]string{"0", "-1.5e3", "12345678901234567890"}[r.IntN(3)])
		case 6:
			v.NS = []*string{ptr("1"), nil, ptr("2.5")}[:r.IntN(4)]
		case 7:
			v.NULL = ptr(r.IntN(2) == 0)
		case 8:
			v.S = ptr(randomString(r))
		case 9:
			v.SS = []*string{ptr(randomString(r)), nil}[:r.IntN(3)]
		}
	}
	return v
}
