package record

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Shards. An event of K shards (dynamo/table) spreads its lock copies (16·K, 1 at one
// shard) and its predictions' index partitions over partitions chosen by a hash of the
// player's id, and a season of K shards its standings. A recording keeps the shard numbers
// each call used, marked "{NN%K}" (shard NN of K; abstractCall, from table.KeyShards with
// the recording's K), so that every shard stays the partition it is. The simulator gives
// each request a shift d drawn at random, uniform as the hash spreads players, and every
// marked number n of its calls becomes (n+d) mod K: one shift for all the families keeps
// their relation (a player's index shard is their lock copy mod K, and K divides 16·K). A
// unit of the scoring job takes its own number as shift, from templates whose first shard
// is 0: unit u works on shard u mod K, as the code's one worker per shard does.

// shardMark matches a marked shard number.
var shardMark = regexp.MustCompile(`\{(\d+)%(\d+)\}`)

// MarkShard marks the trailing number of key as a shard of shards (none if 0): the
// partition key "EVENT#e#05" of shard 5 of 16 becomes "EVENT#e#{05%16}".
func MarkShard(key string, shards int) string {
	i := strings.LastIndexByte(key, '#')
	if shards == 0 || i < 0 {
		return key
	}
	return key[:i+1] + "{" + key[i+1:] + "%" + strconv.Itoa(shards) + "}"
}

// marks returns the shard numbers marked in key and their K.
func marks(key string) [][2]int {
	var out [][2]int
	for _, m := range shardMark.FindAllStringSubmatch(key, -1) {
		n, _ := strconv.Atoi(m[1])
		k, _ := strconv.Atoi(m[2])
		out = append(out, [2]int{n, k})
	}
	return out
}

// shiftKey returns key with every marked shard number shifted by d.
func shiftKey(key string, d int) string {
	if !strings.Contains(key, "%") {
		return key
	}
	return shardMark.ReplaceAllStringFunc(key, func(m string) string {
		nk := marks(m)[0]
		return fmt.Sprintf("{%02d%%%d}", ((nk[0]+d)%nk[1]+nk[1])%nk[1], nk[1])
	})
}

// Family is key with its shard numbers left out: the family of K partitions
// ("EVENT#e#{%16}").
func Family(key string) string {
	return shardMark.ReplaceAllString(key, "{%$2}")
}

// Shift returns c with every marked shard number in its keys shifted by d (modulo each
// number's K).
func (c Call) Shift(d int) Call {
	as := make([]Access, len(c.Accesses))
	for i, a := range c.Accesses {
		a.PK, a.SK = shiftKey(a.PK, d), shiftKey(a.SK, d)
		as[i] = a
	}
	c.Accesses = as
	return c
}

// FirstShard is the first marked shard number of c's keys (ok false: none).
func (c Call) FirstShard() (int, bool) {
	for _, a := range c.Accesses {
		for _, key := range []string{a.PK, a.SK} {
			if m := marks(key); len(m) > 0 {
				return m[0][0], true
			}
		}
	}
	return 0, false
}

// ShardPeriod is the least common multiple of the shard counts marked in calls (1: none):
// shifts are taken modulo it.
func ShardPeriod(calls []Call) int {
	p := 1
	for _, c := range calls {
		for _, a := range c.Accesses {
			for _, m := range append(marks(a.PK), marks(a.SK)...) {
				p = lcm(p, m[1])
			}
		}
	}
	return p
}

func lcm(a, b int) int {
	g, h := a, b
	for h != 0 {
		g, h = h, g%h
	}
	return a / g * b
}

// ShardFamilies lists the sharded partition families a recording's calls touch, as
// "<table or index> <key with {%K}>", sorted: what K the design uses.
func (r *Recording) ShardFamilies() []string {
	seen := map[string]bool{}
	for _, c := range r.Calls {
		for _, a := range c.Accesses {
			if len(marks(a.PK)) == 0 {
				continue
			}
			where := a.Index
			if where == "" {
				where = "table"
			}
			seen[where+" "+Family(a.PK)] = true
		}
	}
	out := make([]string, 0, len(seen))
	for f := range seen {
		out = append(out, f)
	}
	sort.Strings(out)
	return out
}
