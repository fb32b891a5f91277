package capacity

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestItemSize(t *testing.T) {
	tests := []struct {
		name string
		item string
		want int
	}{
		{"Strings", `{"PK":{"S":"abc"},"SK":{"S":"é"}}`, 2 + 3 + 2 + 2},
		{"Number", `{"n":{"N":"12345"}}`, 1 + (5+1)/2 + 1},
		{"NumberZerosAndSign", `{"n":{"N":"-0.00120"}}`, 1 + (2+1)/2 + 1},
		{"BoolAndNull", `{"b":{"BOOL":true},"z":{"NULL":true}}`, 1 + 1 + 1 + 1},
		{"Binary", `{"b":{"B":"AAECAw=="}}`, 1 + 4},
		{"List", `{"l":{"L":[{"S":"ab"},{"N":"1"}]}}`, 1 + 3 + 2 + 2 + 2},
		{"Map", `{"m":{"M":{"k":{"S":"v"}}}}`, 1 + 3 + 1 + 1 + 1},
		{"StringSet", `{"s":{"SS":["a","bc"]}}`, 1 + 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var it Item
			if err := json.Unmarshal([]byte(tt.item), &it); err != nil {
				t.Fatal(err)
			}
			got, err := ItemSize(it)
			if err != nil || got != tt.want {
				t.Fatalf("ItemSize = %d, %v; want %d", got, err, tt.want)
			}
		})
	}
}

func TestUnits(t *testing.T) {
	for _, tt := range []struct {
		size       int
		write      float64
		consistent float64
	}{{0, 1, 1}, {1, 1, 1}, {1024, 1, 1}, {1025, 2, 1}, {4096, 4, 1}, {4097, 5, 2}, {400 * 1024, 400, 100}} {
		if w := WriteUnits(tt.size); w != tt.write {
			t.Errorf("WriteUnits(%d) = %v, want %v", tt.size, w, tt.write)
		}
		if r := ReadUnits(tt.size, true); r != tt.consistent {
			t.Errorf("ReadUnits(%d, consistent) = %v, want %v", tt.size, r, tt.consistent)
		}
		if r := ReadUnits(tt.size, false); r != tt.consistent/2 {
			t.Errorf("ReadUnits(%d, eventual) = %v, want %v", tt.size, r, tt.consistent/2)
		}
	}
}

// An index key change costs a delete at the old entry and a put at the new one; a
// transaction doubles the table's write, not the index's.
func TestAddWriteOf(t *testing.T) {
	in := func(p, s string) *Image {
		return &Image{Size: 1500, IndexKeys: map[string]IndexKey{"GSI": {Partition: p, Sort: s}}}
	}
	tests := []struct {
		name     string
		old, new *Image
		want     map[Partition]float64
	}{
		{"Insert", nil, in("A", "1"), map[Partition]float64{{"t", "", "pk"}: 2, {"t", "GSI", "A"}: 2}},
		{"SameIndexKey", in("A", "1"), in("A", "1"), map[Partition]float64{{"t", "", "pk"}: 2, {"t", "GSI", "A"}: 2}},
		{"SortKeyMoves", in("A", "1"), in("A", "2"), map[Partition]float64{{"t", "", "pk"}: 2, {"t", "GSI", "A"}: 4}},
		{"PartitionMoves", in("A", "1"), in("B", "1"), map[Partition]float64{{"t", "", "pk"}: 2, {"t", "GSI", "A"}: 2, {"t", "GSI", "B"}: 2}},
		{"LeavesIndex", in("A", "1"), &Image{Size: 10}, map[Partition]float64{{"t", "", "pk"}: 2, {"t", "GSI", "A"}: 2}},
		{"Delete", in("A", "1"), nil, map[Partition]float64{{"t", "", "pk"}: 2, {"t", "GSI", "A"}: 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Demand{}
			d.AddWriteOf("t", "pk", tt.old, tt.new, 1)
			if len(d) != len(tt.want) {
				t.Fatalf("demand %v, want %v", d, tt.want)
			}
			for p, w := range tt.want {
				if d[p].Write != w {
					t.Errorf("%s: %v WCU, want %v", p, d[p].Write, w)
				}
			}
			tx := Demand{}
			tx.AddWriteOf("t", "pk", tt.old, tt.new, Transaction)
			for p, w := range tt.want {
				if p.Index == "" {
					w *= Transaction
				}
				if tx[p].Write != w {
					t.Errorf("in a transaction, %s: %v WCU, want %v", p, tx[p].Write, w)
				}
			}
		})
	}
}

// IndexWrites names each write: kind, index key, size and units.
func TestIndexWrites(t *testing.T) {
	in := func(sk string, size int) *Image {
		return &Image{Size: size, IndexKeys: map[string]IndexKey{"GSI": {Partition: "EVENT#e", Sort: sk}}}
	}
	ws := IndexWrites(in("UNSCORED#u", 700), in("SCORE#1#u", 1100))
	want := []IndexWrite{
		{Index: "GSI", Kind: IndexDelete, Key: IndexKey{"EVENT#e", "UNSCORED#u"}, Size: 700, Units: 1},
		{Index: "GSI", Kind: IndexPut, Key: IndexKey{"EVENT#e", "SCORE#1#u"}, Size: 1100, Units: 2},
	}
	if len(ws) != 2 || ws[0] != want[0] || ws[1] != want[1] {
		t.Errorf("key change: %+v, want %+v", ws, want)
	}
	if ws := IndexWrites(in("A", 10), in("A", 3000)); len(ws) != 1 || ws[0].Kind != IndexUpdate || ws[0].Units != 3 {
		t.Errorf("same key: %+v, want one update of the larger image (3 WCU)", ws)
	}
	if ws := IndexWrites(&Image{Size: 10}, &Image{Size: 20}); len(ws) != 0 {
		t.Errorf("not in the index: %+v", ws)
	}
	if u := CheckUnits(200); u != 2 {
		t.Errorf("a condition check of a 200-byte item: %v WCU, want 2 (a transactional write)", u)
	}
}

func TestMeter(t *testing.T) {
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	m := NewMeter(Uniform(Rate{Write: 10}), func() time.Time { return now })
	p, q := Partition{Table: "t", Key: "a"}, Partition{Table: "t", Key: "b"}
	take := func(d Demand) *Shortage {
		s := m.Reserve(d)
		if s == nil {
			m.Settle(d, d)
		}
		return s
	}
	if s := take(Demand{p: {Write: 10}}); s != nil {
		t.Fatalf("a full second's units refused: %+v", s)
	}
	if s := take(Demand{p: {Write: 1}, q: {Write: 1}}); s == nil || s.Partition != p || !s.Write {
		t.Fatalf("shortage %+v, want partition a short of writes", s)
	}
	if u := m.Used()[q]; u.Write != 0 {
		t.Fatalf("a refused demand took %v units from another partition", u.Write)
	}
	if s := take(Demand{p: {Read: 1000}}); s != nil {
		t.Fatalf("reads are unlimited at rate 0: %+v", s)
	}
	now = now.Add(500 * time.Millisecond)
	if s := take(Demand{p: {Write: 5}}); s != nil {
		t.Fatalf("half a second refills half: %+v", s)
	}
	now = now.Add(time.Second)
	if s := take(Demand{p: {Write: 11}}); s == nil {
		t.Fatal("more than a second's units must never be admitted, even from a full bucket")
	}
	// A request that consumed more than it reserved leaves the bucket in debt.
	m.Settle(Demand{p: {Write: 1}}, Demand{p: {Write: 15}})
	if s := take(Demand{p: {Write: 1}}); s == nil {
		t.Fatal("a bucket in debt must refuse")
	}
	if got := m.Used()[p].Write; got != 10+5+15 {
		t.Fatalf("used %v WCU, want 30", got)
	}
	if !strings.Contains(p.String(), "t[a]") {
		t.Errorf("partition prints as %q", p)
	}
}
