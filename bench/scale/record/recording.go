// Package record records what the project's code does on DynamoDB Local, for the
// partition-throughput model (bench/scale). Record drives every load of one event through
// the real handler while a recorder, on the store's observer hook (ddb.Observer), traces
// each DynamoDB call: the partitions of the table and of the index it read or wrote, the
// items, their sizes and the units they cost by AWS's rules. A Recording keeps those calls
// with player ids and shard numbers abstracted ("{p1}", "{NN%K}"), so that the model can
// replay them for any number of players, together with the SDK's retries, the store's own
// retries (measured by fault probes) and the front door's settings from the SAM template.
// The package also reads recordings back and says what their abstracted keys mean
// (Access.Own, Family, Call.Shift, …). It is a measuring tool, never used in serving.
package record

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/pickem/api/dynamo/scoring"
	"github.com/pickem/api/dynamo/table"
)

// Recording is what the project's code did, call by call, for every load at one number of
// players: the store's DynamoDB calls as the recorder traced them on DynamoDB Local,
// with player ids abstracted ("{p1}") and shard numbers marked ("{NN%K}") so that the
// model can replay them for any number of players. It also keeps what the code and the template said about retries and the front
// door when it was recorded. A Recording is the unit committed as "before".
type Recording struct {
	// Design names the code recorded ("before", "after", a variant).
	Design string `json:"design"`
	// Commit is the git commit of the code recorded, with "+dirty" for local changes.
	Commit  string `json:"commit"`
	Players int    `json:"players"`
	// Shards is the shard count the recorded events and season were created with
	// (dynamo.WithScoreShards); 0 in recordings of code without a per-event count.
	Shards int `json:"shards,omitempty"`
	// Game: the show used every game extra (RecordOptions.Game).
	Game bool `json:"game,omitempty"`
	// Pace is how the recorded code paces its scoring per partition
	// (dynamo/scoring/pace.go); nil for code that does not.
	Pace *Pace `json:"pace,omitempty"`
	// Calls is the table of distinct calls; loads refer to them by index.
	Calls []Call `json:"calls"`
	// Loads by name (LoadSubmit, LoadCard, …).
	Loads map[string]*LoadTrace `json:"loads"`
	// FrontDoor is deploy/template.yaml's API throttle, function and table settings.
	FrontDoor FrontDoor `json:"frontDoor"`
	// SDK is the retry behaviour of ddb.NewClient's client.
	SDK SDKRetry `json:"sdk"`
	// StoreRetries is how the store itself re-issues calls that failed with a throttle or
	// a transaction conflict, measured by fault probes (retries.go).
	StoreRetries []StoreRetry `json:"storeRetries"`
	// Units compares the units computed from item sizes with those DynamoDB Local
	// reported, call by call, where DynamoDB Local reports them faithfully.
	Units UnitCheck `json:"units"`
}

// UnitCheck counts calls whose computed units were compared with the engine's.
type UnitCheck struct {
	Compared   int      `json:"compared"`
	Mismatches []string `json:"mismatches,omitempty"` // the first few
	Mismatched int      `json:"mismatched"`
}

// add compares the calls DynamoDB Local reports faithfully: single-item writes and reads
// that found items. It leaves out transactions (DynamoDB Local neither doubles nor counts
// index writes in them) and reads that found nothing (it reports 0, AWS the minimum).
func (u *UnitCheck) add(calls []tracedCall) {
	for _, c := range calls {
		if c.Error != "" || c.ReportedRCU == nil || c.ReportedWCU == nil || c.Op == "TransactWriteItems" {
			continue
		}
		empty := len(c.Accesses) == 0
		for _, a := range c.Accesses {
			empty = empty || (a.Kind == AccessRead && a.Items == 0)
		}
		if empty {
			continue
		}
		u.Compared++
		if c.Accesses.RCU() != *c.ReportedRCU || c.Accesses.WCU() != *c.ReportedWCU {
			u.Mismatched++
			if len(u.Mismatches) < 10 {
				u.Mismatches = append(u.Mismatches, fmt.Sprintf("%s: computed %g RCU %g WCU, DynamoDB Local %g RCU %g WCU (%+v)",
					c.Op, c.Accesses.RCU(), c.Accesses.WCU(), *c.ReportedRCU, *c.ReportedWCU, c.Accesses))
			}
		}
	}
}

// Pace is the scoring pace of the recorded code: per partition, at most WriteUnits write
// units and ReadUnits read units a second, from token buckets that lend WriteBurst and
// ReadBurst units at once and refill at the units less the burst (scoring.PartitionWriteUnits,
// PaceWriteBurst, …).
type Pace struct {
	WriteUnits float64 `json:"writeUnits"`
	ReadUnits  float64 `json:"readUnits"`
	WriteBurst float64 `json:"writeBurst"`
	ReadBurst  float64 `json:"readBurst"`
}

// codePace is the pace of the code being recorded.
func codePace() *Pace {
	return &Pace{WriteUnits: scoring.PartitionWriteUnits, ReadUnits: scoring.PartitionReadUnits,
		WriteBurst: scoring.PaceWriteBurst, ReadBurst: scoring.PaceReadBurst}
}

// Call is one DynamoDB call with player ids replaced by "{p1}", "{p2}"… (numbered in the
// order they appear in the call) and, in a player's own item keys, numbers of 6+ digits
// by "{n}" (e.g. inverted scores).
type Call struct {
	Op         string   `json:"op"`
	Consistent bool     `json:"consistent,omitempty"`
	Error      string   `json:"error,omitempty"`
	Accesses   Accesses `json:"accesses"`
	// Cache is the read-cache entry the call fills (ddb.Cache), "" for a call outside
	// any fill: the model makes it only when the request's function instance has no
	// fresh copy of the entry.
	Cache string `json:"cache,omitempty"`
}

// Access kinds.
const (
	AccessRead   = "read"   // items read (a GetItem, a BatchGetItem key, a Query page)
	AccessPut    = "put"    // an item written whole
	AccessUpdate = "update" // an item updated in place
	AccessDelete = "delete" // an item deleted
	AccessCheck  = "check"  // a transaction's ConditionCheck
)

// Access is what one call did in one partition of the table or of the index. In a
// recording, player ids and shard numbers in its keys are abstracted (Call).
type Access struct {
	// Index is the index name, "" for the table.
	Index string `json:"index,omitempty"`
	// PK is the partition key value (PK on the table, GSI_PK on the index).
	PK string `json:"pk"`
	// SK is the item's sort key (SK, or GSI_SK on the index); empty for a Query page,
	// which reads a range.
	SK string `json:"sk,omitempty"`
	// Kind is one of the Access* constants. On the index, a key change is a delete of the
	// old key and a put of the new one.
	Kind string `json:"kind"`
	// Txn marks accesses made inside a TransactWriteItems.
	Txn bool `json:"txn,omitempty"`
	// Items is the number of items a read returned.
	Items int `json:"items,omitempty"`
	// Bytes is the size DynamoDB bills: the item (the larger image for a write), or the
	// sum of the items a Query page read.
	Bytes int     `json:"bytes"`
	RCU   float64 `json:"rcu,omitempty"`
	WCU   float64 `json:"wcu,omitempty"`
}

// Accesses are a call's accesses.
type Accesses []Access

// RCU totals the read units of the accesses.
func (as Accesses) RCU() float64 {
	t := 0.0
	for _, a := range as {
		t += a.RCU
	}
	return t
}

// WCU totals the write units of the accesses.
func (as Accesses) WCU() float64 {
	t := 0.0
	for _, a := range as {
		t += a.WCU
	}
	return t
}

// playerPlaceholder starts a player's slot in abstracted keys.
const playerPlaceholder = "{p"

// Own reports whether the access is in a player's own partition (its partition key holds
// a player id): such partitions are never shared by players.
func (a Access) Own() bool { return strings.Contains(a.PK, playerPlaceholder) }

// OwnItem reports whether the item accessed belongs to one player (its key holds a
// player id): such items are never touched by another player's requests.
func (a Access) OwnItem() bool { return a.Own() || strings.Contains(a.SK, playerPlaceholder) }

// IsWrite reports whether the access is a write (or a transaction's condition check).
func (a Access) IsWrite() bool { return a.Kind != AccessRead }

// RCU totals a call's read units.
func (c Call) RCU() float64 { return c.Accesses.RCU() }

// WCU totals a call's write units.
func (c Call) WCU() float64 { return c.Accesses.WCU() }

// Bytes totals the bytes of a call's accesses.
func (c Call) Bytes() float64 {
	n := 0
	for _, a := range c.Accesses {
		n += a.Bytes
	}
	return float64(n)
}

// Transactional reports whether the call is a TransactWriteItems.
func (c Call) Transactional() bool { return c.Op == "TransactWriteItems" }

// ReadGroup names a call that reads shared partitions only: its operation, then per
// access the index ("" for the table) and the partition family (Family: the reads of one
// page of any shard are one read). It is "" for a call that writes or touches a player's
// own partition.
func (c Call) ReadGroup() string {
	parts := []string{c.Op}
	for _, a := range c.Accesses {
		if a.IsWrite() || a.Own() {
			return ""
		}
		parts = append(parts, a.Index+"|"+Family(a.PK))
	}
	return strings.Join(parts, " ")
}

// LoadTrace is what one load's requests did.
type LoadTrace struct {
	// Requests is the number of requests recorded; Errors counts those that failed, by
	// GraphQL error code or HTTP status.
	Requests int            `json:"requests"`
	Errors   map[string]int `json:"errors,omitempty"`
	// RetriedWhileRecording counts tries answered UNAVAILABLE by a slow DynamoDB Local
	// and sent again (not recorded).
	RetriedWhileRecording int `json:"retriedWhileRecording,omitempty"`
	// Templates are the distinct request shapes of a per-player load, with how many
	// requests had each shape.
	Templates []Template `json:"templates,omitempty"`
	// Job is the scoring job (the admin's scoreEvent calls).
	Job *JobTrace `json:"job,omitempty"`
	// CacheControl is the response's Cache-Control header, if any.
	CacheControl string `json:"cacheControl,omitempty"`
}

// Template is one request shape: stages run one after the other, the calls of a stage
// at once (gqlgen resolves top-level fields concurrently; the store reads in parallel).
type Template struct {
	Count  int     `json:"count"`
	Stages [][]int `json:"stages"` // call indexes into Recording.Calls
}

// JobTrace is the scoring job as the admin runs it: scoreEvent calls until complete. The
// calls alternate between two time budgets, the smallest (one unit of work a call: the
// code always does one) and a moderate one (several units), so that the model can tell
// the reads a call makes once from those it makes per unit of work.
type JobTrace struct {
	// Workers is how many work units the code runs at once, measured on a run without a
	// budget (the previous event's scoring).
	Workers     int               `json:"workers"`
	Invocations []InvocationTrace `json:"invocations"`
}

// InvocationTrace is one scoreEvent call: its calls before the first call that touches a
// player's own partition (Pre: the card, the first predictions), from that call to the
// last such call (Work: the units of work — standings and transactions — with the reads
// made between them), and after it (Post: e.g. counting what is left; in the last call,
// closing the event).
type InvocationTrace struct {
	BudgetSeconds float64  `json:"budgetSeconds"`
	Pre           Template `json:"pre"`
	Work          Template `json:"work"`
	Post          Template `json:"post"`
}

// OneUnit reports whether the call had the smallest budget, under which the code does one
// unit of work (it always does at least one).
func (inv InvocationTrace) OneUnit() bool { return inv.BudgetSeconds <= tinyBudget.Seconds() }

// playerID is the id of player i (1-based) in recordings. Every id matches playerIDPattern
// and nothing else in a key does.
func playerID(i int) string { return fmt.Sprintf("scale-p%07d", i) }

var (
	playerIDPattern = regexp.MustCompile(`scale-p\d{7}`)
	longNumber      = regexp.MustCompile(`\d{6,}`)
)

// abstractCall replaces player ids in a traced call's keys, and marks shard numbers
// (table.KeyShards, for a table whose events and seasons have shards shards) as
// "{NN%K}": shard NN of K, which the model shifts (Call.Shift).
func abstractCall(c tracedCall, shards int) Call {
	out := Call{Op: c.Op, Consistent: c.Consistent, Error: c.Error, Cache: c.Cache}
	slots := map[string]int{}
	slot := func(id string) string {
		if _, ok := slots[id]; !ok {
			slots[id] = len(slots) + 1
		}
		return "{p" + strconv.Itoa(slots[id]) + "}"
	}
	for _, a := range c.Accesses {
		pkShards, skShards := table.KeyShards(a.PK, a.SK, shards), 0
		pk := playerIDPattern.ReplaceAllStringFunc(a.PK, slot)
		sk := playerIDPattern.ReplaceAllStringFunc(a.SK, slot)
		if pk != a.PK || sk != a.SK {
			sk = longNumber.ReplaceAllString(sk, "{n}")
		}
		pk, sk = MarkShard(pk, pkShards), MarkShard(sk, skShards)
		out.Accesses = append(out.Accesses, Access{Index: a.Index, PK: pk, SK: sk, Kind: a.Kind, Txn: a.Txn,
			Items: a.Items, Bytes: a.Bytes, RCU: a.RCU, WCU: a.WCU})
	}
	return out
}

// callTable interns the calls of a recording made at shards shards.
type callTable struct {
	shards int
	calls  []Call
	index  map[string]int
}

func newCallTable(shards int) *callTable {
	return &callTable{shards: shards, index: map[string]int{}}
}

func (t *callTable) add(c Call) int {
	b, err := json.Marshal(c)
	if err != nil {
		panic(err) // plain data: cannot fail
	}
	if i, ok := t.index[string(b)]; ok {
		return i
	}
	t.calls = append(t.calls, c)
	t.index[string(b)] = len(t.calls) - 1
	return len(t.calls) - 1
}

// stages groups a request's calls: a call starts a new stage when it began after every
// call of the current stage had ended.
func stages(calls []tracedCall) [][]tracedCall {
	sorted := append([]tracedCall(nil), calls...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Start < sorted[j].Start })
	var out [][]tracedCall
	var end int64
	for _, c := range sorted {
		if len(out) == 0 || c.Start >= end {
			out = append(out, nil)
			end = c.End
		}
		out[len(out)-1] = append(out[len(out)-1], c)
		end = max(end, c.End)
	}
	return out
}

// templateOf returns a request's template (count 1).
func (t *callTable) templateOf(calls []tracedCall) Template {
	tp := Template{Count: 1, Stages: [][]int{}}
	for _, st := range stages(calls) {
		var ids []int
		for _, c := range st {
			ids = append(ids, t.add(abstractCall(c, t.shards)))
		}
		sort.Ints(ids)
		tp.Stages = append(tp.Stages, ids)
	}
	return tp
}

// addTemplate merges tp into ts.
func addTemplate(ts []Template, tp Template) []Template {
	key := fmt.Sprint(tp.Stages)
	for i := range ts {
		if fmt.Sprint(ts[i].Stages) == key {
			ts[i].Count += tp.Count
			return ts
		}
	}
	return append(ts, tp)
}

// touchesPlayer reports whether a traced call reads or writes a player's own partition.
func touchesPlayer(c tracedCall) bool {
	for _, a := range c.Accesses {
		if playerIDPattern.MatchString(a.PK) {
			return true
		}
	}
	return false
}

// invocationOf splits one scoreEvent call's calls into Pre, Work and Post (see
// InvocationTrace).
func (t *callTable) invocationOf(calls []tracedCall, budget time.Duration) InvocationTrace {
	sorted := append([]tracedCall(nil), calls...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Start < sorted[j].Start })
	first, last := len(sorted), -1
	for i, c := range sorted {
		if touchesPlayer(c) {
			first, last = min(first, i), i
		}
	}
	inv := InvocationTrace{BudgetSeconds: budget.Seconds()}
	if last < 0 { // no work: all of it comes after (nothing was left to do)
		inv.Pre, inv.Work, inv.Post = t.templateOf(nil), t.templateOf(nil), t.templateOf(sorted)
		return inv
	}
	inv.Pre, inv.Work, inv.Post = t.templateOf(sorted[:first]), t.templateOf(sorted[first:last+1]), t.templateOf(sorted[last+1:])
	return inv
}

// workOverlap is the most calls touching players' partitions in flight at once: the
// number of work units a scoring run does at once.
func workOverlap(calls []tracedCall) int {
	var work []tracedCall
	for _, c := range calls {
		if touchesPlayer(c) {
			work = append(work, c)
		}
	}
	return maxOverlap(work)
}

// maxOverlap is the most calls in flight at once.
func maxOverlap(calls []tracedCall) int {
	type edge struct {
		at    int64
		delta int
	}
	var es []edge
	for _, c := range calls {
		es = append(es, edge{c.Start, 1}, edge{c.End, -1})
	}
	sort.Slice(es, func(i, j int) bool {
		if es[i].at != es[j].at {
			return es[i].at < es[j].at
		}
		return es[i].delta < es[j].delta // an end before a start at the same instant
	})
	n, best := 0, 0
	for _, e := range es {
		n += e.delta
		best = max(best, n)
	}
	return max(best, 1)
}

// ops returns the operations a load's requests make, in the order they first appear.
func (r *Recording) ops(load string) []string {
	lt := r.Loads[load]
	if lt == nil {
		return nil
	}
	var out []string
	add := func(i int) {
		op := r.Calls[i].Op
		for _, o := range out {
			if o == op {
				return
			}
		}
		out = append(out, op)
	}
	for _, t := range lt.Templates {
		for _, st := range t.Stages {
			for _, i := range st {
				add(i)
			}
		}
	}
	if lt.Job != nil {
		for _, inv := range lt.Job.Invocations {
			for _, t := range []Template{inv.Pre, inv.Work, inv.Post} {
				for _, st := range t.Stages {
					for _, i := range st {
						add(i)
					}
				}
			}
		}
	}
	return out
}

// Fingerprint identifies what a recording's code does, leaving out counts and timings:
// two recordings of the same design have the same fingerprint.
func (r *Recording) Fingerprint() string {
	h := sha256.New()
	var sigs []string
	for _, c := range r.Calls {
		c2 := c
		c2.Accesses = nil
		for _, a := range c.Accesses {
			a.Bytes, a.Items, a.RCU, a.WCU = 0, 0, 0, 0
			c2.Accesses = append(c2.Accesses, a)
		}
		b, _ := json.Marshal(c2)
		sigs = append(sigs, string(b))
	}
	sort.Strings(sigs)
	for _, s := range slices.Compact(sigs) {
		h.Write([]byte(s))
	}
	return hex.EncodeToString(h.Sum(nil))[:12]
}

// ReadRecording reads a recording written by WriteFile.
func ReadRecording(path string) (*Recording, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r Recording
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("scale: %s: %w", path, err)
	}
	return &r, nil
}

// WriteFile writes the recording as indented JSON.
func (r *Recording) WriteFile(path string) error {
	b, err := json.MarshalIndent(r, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// String names the recording.
func (r *Recording) String() string {
	return r.Design + "@" + r.Commit + "/" + strconv.Itoa(r.Players)
}
