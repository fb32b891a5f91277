// Package capacity computes DynamoDB item sizes and capacity units the way AWS bills them,
// and meters them per partition with token buckets (3,000 RCU and 1,000 WCU per second
// per partition key value on AWS). It knows nothing about HTTP or the SDK: items are in
// DynamoDB's JSON wire format (an attribute name → {"S": "…"} map). The AWS-faithful test
// engine (internal/awsfaithful) uses it to throttle; a throughput model can reuse it.
//
// Units, as AWS documents them:
//   - a write costs 1 WCU per KB (1,024 bytes, rounded up) of the larger of the item's old
//     and new images; a delete costs the old image;
//   - a read costs 1 RCU per 4 KB, rounded up, when strongly consistent and half that when
//     eventually consistent; a Query or Scan rounds the sum of the items read;
//   - every item of a transaction costs twice as much on the table (a ConditionCheck is
//     billed as a transactional write of the item it checks); the index writes a
//     transaction causes cost what they cost outside one (DynamoDB propagates them to the
//     index after the commit, outside the two-phase protocol; measured against AWS by the
//     dynoxide project, nubo-db/dynoxide#188);
//   - an index write whose index key changes costs a delete of the old index entry plus a
//     put of the new one; an item entering or leaving the index costs one put or delete.
//
// Not modelled: burst capacity (unused capacity banked for 300 s), adaptive capacity
// (splitting hot partitions), account and table level limits (OnDemandStart is there for
// callers that model them), and the 100 bytes of overhead an index entry adds to its
// stored size.
package capacity

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Item is an item in DynamoDB's JSON wire format.
type Item = map[string]json.RawMessage

// Transaction is the factor every item of a transaction costs.
const Transaction = 2

// AWS is the per-partition throughput of DynamoDB: 3,000 RCU and 1,000 WCU per second
// for each partition key value, on a table and on each of its indexes alike.
var AWS = Rate{Read: 3000, Write: 1000}

// OnDemandStart is what a new on-demand table, and each of its indexes, serves per second
// before DynamoDB has seen a higher peak (AWS's "initial throughput": 4,000 WCU and 12,000
// RCU), unless warm throughput is declared.
var OnDemandStart = Rate{Read: 12000, Write: 4000}

// attributeValue is one attribute value of DynamoDB's JSON wire format.
type attributeValue struct {
	S    *string                    `json:"S"`
	N    *string                    `json:"N"`
	B    *string                    `json:"B"`
	BOOL *bool                      `json:"BOOL"`
	NULL *bool                      `json:"NULL"`
	SS   []string                   `json:"SS"`
	NS   []string                   `json:"NS"`
	BS   []string                   `json:"BS"`
	L    []json.RawMessage          `json:"L"`
	M    map[string]json.RawMessage `json:"M"`
}

// ItemSize returns the size of item in bytes as DynamoDB counts it for capacity: the
// UTF-8 length of each attribute name plus the size of its value.
func ItemSize(item Item) (int, error) {
	n := 0
	for name, v := range item {
		s, err := ValueSize(v)
		if err != nil {
			return 0, fmt.Errorf("capacity: attribute %q: %w", name, err)
		}
		n += len(name) + s
	}
	return n, nil
}

// ValueSize returns the size of one attribute value: strings their UTF-8 length, binary
// its decoded length, numbers 1 byte per two significant digits plus 1, booleans and null
// 1 byte, lists and maps 3 bytes plus 1 byte per element plus their elements (and, for
// maps, the element names), sets the sum of their elements.
func ValueSize(raw json.RawMessage) (int, error) {
	var v attributeValue
	if err := json.Unmarshal(raw, &v); err != nil {
		return 0, err
	}
	switch {
	case v.S != nil:
		return len(*v.S), nil
	case v.N != nil:
		return NumberSize(*v.N), nil
	case v.B != nil:
		return binarySize(*v.B)
	case v.BOOL != nil, v.NULL != nil:
		return 1, nil
	case v.SS != nil:
		n := 0
		for _, s := range v.SS {
			n += len(s)
		}
		return n, nil
	case v.NS != nil:
		n := 0
		for _, s := range v.NS {
			n += NumberSize(s)
		}
		return n, nil
	case v.BS != nil:
		n := 0
		for _, s := range v.BS {
			b, err := binarySize(s)
			if err != nil {
				return 0, err
			}
			n += b
		}
		return n, nil
	case v.L != nil:
		n := ContainerSize(len(v.L))
		for _, e := range v.L {
			s, err := ValueSize(e)
			if err != nil {
				return 0, err
			}
			n += s
		}
		return n, nil
	case v.M != nil:
		n := ContainerSize(len(v.M))
		for name, e := range v.M {
			s, err := ValueSize(e)
			if err != nil {
				return 0, err
			}
			n += len(name) + s
		}
		return n, nil
	}
	return 0, fmt.Errorf("unknown attribute value %s", raw)
}

// binarySize is the length of a base64-encoded binary value.
func binarySize(b64 string) (int, error) {
	b, err := base64.StdEncoding.DecodeString(b64)
	return len(b), err
}

// ContainerSize is what a list or a map of n elements adds to the size of its elements
// (and, for a map, of their names): 3 bytes plus 1 per element.
func ContainerSize(n int) int { return 3 + n }

// NumberSize is the size of a number given as its decimal text: 1 byte per two significant
// digits plus 1 (leading and trailing zeros, sign, point and exponent do not count).
func NumberSize(n string) int {
	n, _, _ = strings.Cut(strings.ToLower(n), "e")
	digits := strings.Trim(strings.Map(func(r rune) rune {
		if r == '-' || r == '+' || r == '.' {
			return -1
		}
		return r
	}, n), "0")
	return (utf8.RuneCountInString(digits)+1)/2 + 1
}

// WriteUnits is the WCU of writing an item of size bytes outside a transaction: 1 per KB,
// rounded up, at least 1.
func WriteUnits(size int) float64 {
	return math.Max(1, math.Ceil(float64(size)/1024))
}

// ReadUnits is the RCU of reading size bytes: 1 per 4 KB, rounded up, at least 1, halved
// for an eventually consistent read.
func ReadUnits(size int, consistent bool) float64 {
	u := math.Max(1, math.Ceil(float64(size)/4096))
	if !consistent {
		u /= 2
	}
	return u
}

// Image is what capacity needs of one item image: its size and, for each index the item
// is in, its partition key value there. A nil *Image is "no item".
type Image struct {
	Size int
	// IndexKeys maps an index name to the item's key in it (partition key value and sort
	// key value, joined as the caller likes); an item missing an index key is not in
	// that index.
	IndexKeys map[string]IndexKey
}

// IndexKey is an item's key in one index.
type IndexKey struct{ Partition, Sort string }

// Partition is one partition key value of a table (Index "") or of one of its indexes.
type Partition struct{ Table, Index, Key string }

func (p Partition) String() string {
	if p.Index == "" {
		return fmt.Sprintf("%s[%s]", p.Table, p.Key)
	}
	return fmt.Sprintf("%s/%s[%s]", p.Table, p.Index, p.Key)
}

// Usage is read and write units.
type Usage struct{ Read, Write float64 }

// Demand is the units a request consumes, by partition.
type Demand map[Partition]Usage

// AddRead adds u read units on p.
func (d Demand) AddRead(p Partition, u float64) { x := d[p]; x.Read += u; d[p] = x }

// AddWrite adds u write units on p.
func (d Demand) AddWrite(p Partition, u float64) { x := d[p]; x.Write += u; d[p] = x }

// AddWriteOf adds the units of writing one item of table whose table partition key value
// is pk, from old to new (either may be nil): on the table the larger image times factor
// (1, or Transaction); on each index the writes IndexWrites lists, at standard cost.
func (d Demand) AddWriteOf(table, pk string, old, new *Image, factor float64) {
	d.AddWrite(Partition{Table: table, Key: pk}, factor*WriteUnits(max(old.Bytes(), new.Bytes())))
	for _, w := range IndexWrites(old, new) {
		d.AddWrite(Partition{table, w.Index, w.Key.Partition}, w.Units)
	}
}

// CheckUnits is the WCU of a transaction's ConditionCheck of an item of size bytes: a
// transactional write of it.
func CheckUnits(size int) float64 { return Transaction * WriteUnits(size) }

// Kinds of IndexWrite.
const (
	IndexPut    = "put"    // the item enters the index, or enters it under a new key
	IndexDelete = "delete" // the item leaves the index, or leaves its old key
	IndexUpdate = "update" // the item stays under the same key with other attributes
)

// IndexWrite is one write that changing an item makes in one of its indexes.
type IndexWrite struct {
	Index string
	Kind  string // IndexPut, IndexDelete or IndexUpdate
	Key   IndexKey
	Size  int     // the entry written or deleted (the larger image for an update)
	Units float64 // standard write units, inside a transaction too
}

// IndexWrites lists the index writes of changing an item from old to new (either may be
// nil), index by index in name order: a put when the item enters an index, a delete when
// it leaves, a delete of the old entry and a put of the new one when its key there
// changes, an update otherwise.
func IndexWrites(old, new *Image) []IndexWrite {
	var out []IndexWrite
	del := func(index string, k IndexKey) {
		out = append(out, IndexWrite{Index: index, Kind: IndexDelete, Key: k, Size: old.Size, Units: WriteUnits(old.Size)})
	}
	put := func(index string, k IndexKey) {
		out = append(out, IndexWrite{Index: index, Kind: IndexPut, Key: k, Size: new.Size, Units: WriteUnits(new.Size)})
	}
	for _, index := range indexNames(old, new) {
		ok, inOld := old.indexKeys()[index]
		nk, inNew := new.indexKeys()[index]
		switch {
		case inOld && inNew && ok == nk:
			n := max(old.Size, new.Size)
			out = append(out, IndexWrite{Index: index, Kind: IndexUpdate, Key: nk, Size: n, Units: WriteUnits(n)})
		case inOld && inNew:
			del(index, ok)
			put(index, nk)
		case inOld:
			del(index, ok)
		case inNew:
			put(index, nk)
		}
	}
	return out
}

// indexNames lists the indexes either image is in, sorted.
func indexNames(old, new *Image) []string {
	var names []string
	for _, im := range []*Image{old, new} {
		for name := range im.indexKeys() {
			if !slices.Contains(names, name) {
				names = append(names, name)
			}
		}
	}
	slices.Sort(names)
	return names
}

// Bytes is the image's size, 0 for no item.
func (im *Image) Bytes() int {
	if im == nil {
		return 0
	}
	return im.Size
}

func (im *Image) indexKeys() map[string]IndexKey {
	if im == nil {
		return nil
	}
	return im.IndexKeys
}

// Rate is a throughput limit in units per second; 0 means unlimited.
type Rate struct{ Read, Write float64 }

// Meter keeps one read and one write token bucket per partition. A bucket holds at most
// one second of its rate and starts full. It is safe for concurrent use.
type Meter struct {
	mu      sync.Mutex
	limit   func(Partition) Rate
	now     func() time.Time
	buckets map[Partition]*bucket
	used    map[Partition]Usage
}

type bucket struct {
	rate   Rate
	tokens Usage
	at     time.Time
}

// NewMeter returns a meter with the limit of each partition given by limit (called once
// per partition, the first time it is used) and time read from now (time.Now if nil).
func NewMeter(limit func(Partition) Rate, now func() time.Time) *Meter {
	if now == nil {
		now = time.Now
	}
	return &Meter{limit: limit, now: now, buckets: map[Partition]*bucket{}, used: map[Partition]Usage{}}
}

// SetLimit replaces the limit function; every partition starts again with a full bucket
// of its new rate. Units used so far stay counted.
func (m *Meter) SetLimit(limit func(Partition) Rate) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.limit = limit
	m.buckets = map[Partition]*bucket{}
}

// Uniform returns a limit function giving every partition r.
func Uniform(r Rate) func(Partition) Rate { return func(Partition) Rate { return r } }

// Shortage says which partition could not supply a demand.
type Shortage struct {
	Partition Partition
	Write     bool // write units were short (else read units)
}

// Reserve takes d from the buckets if every partition has the units it asks for, and
// returns nil; otherwise it takes nothing and returns the first partition found short.
// Units above a partition's rate can never be reserved: such a request is always refused.
func (m *Meter) Reserve(d Demand) *Shortage {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	for p, u := range d {
		b := m.bucket(p, now)
		if b.rate.Read > 0 && u.Read > 0 && b.tokens.Read < u.Read {
			return &Shortage{Partition: p}
		}
		if b.rate.Write > 0 && u.Write > 0 && b.tokens.Write < u.Write {
			return &Shortage{Partition: p, Write: true}
		}
	}
	for p, u := range d {
		b := m.buckets[p]
		b.tokens.Read -= u.Read
		b.tokens.Write -= u.Write
	}
	return nil
}

// Settle replaces a reservation by what the request really consumed: reserved goes back
// to the buckets, actual is taken (a bucket may go below zero: later requests wait for
// it to refill) and counted in Used.
func (m *Meter) Settle(reserved, actual Demand) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	for p, u := range reserved {
		b := m.bucket(p, now)
		b.tokens.Read = min(b.tokens.Read+u.Read, b.cap().Read)
		b.tokens.Write = min(b.tokens.Write+u.Write, b.cap().Write)
	}
	for p, u := range actual {
		b := m.bucket(p, now)
		b.tokens.Read -= u.Read
		b.tokens.Write -= u.Write
		x := m.used[p]
		x.Read += u.Read
		x.Write += u.Write
		m.used[p] = x
	}
}

// Used returns the units consumed so far, by partition.
func (m *Meter) Used() map[Partition]Usage {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make(map[Partition]Usage, len(m.used))
	for p, u := range m.used {
		out[p] = u
	}
	return out
}

// bucket returns p's bucket refilled up to now. m.mu must be held.
func (m *Meter) bucket(p Partition, now time.Time) *bucket {
	b := m.buckets[p]
	if b == nil {
		r := m.limit(p)
		b = &bucket{rate: r, at: now}
		b.tokens = b.cap()
		m.buckets[p] = b
		return b
	}
	if dt := now.Sub(b.at).Seconds(); dt > 0 {
		c := b.cap()
		b.tokens.Read = min(c.Read, b.tokens.Read+dt*b.rate.Read)
		b.tokens.Write = min(c.Write, b.tokens.Write+dt*b.rate.Write)
		b.at = now
	}
	return b
}

// cap is one second of the bucket's rate (unlimited kinds get an infinite capacity).
func (b *bucket) cap() Usage {
	c := Usage{Read: b.rate.Read, Write: b.rate.Write}
	if c.Read == 0 {
		c.Read = math.Inf(1)
	}
	if c.Write == 0 {
		c.Write = math.Inf(1)
	}
	return c
}
