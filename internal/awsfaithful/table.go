package awsfaithful

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/pickem/api/internal/capacity"
)

// shadowSuffix names a table's shadow: the copy its index reads are answered from.
const shadowSuffix = ".shadow"

// table is a table the engine has taken over.
type table struct {
	name, shadow string         // shadow is "" if the table has no global secondary index
	definition   map[string]any // CreateTable input of the shadow
	hash, rng    string         // key attribute names (rng "" if none)
	indexes      map[string]keySchema
	arn          string

	ready chan struct{} // closed once attached (or failed: then err is set)
	err   error

	mu          sync.Mutex // serialises reading the stream and applying changes
	stream      string
	shards      map[string]*shard
	shadowReady bool      // the shadow exists and answers index reads
	indexErr    error     // a failure to activate the shadow, for the next index read
	pending     []*change // changes not yet in the shadow, in stream order
	lastDue     map[string]time.Time
	images      map[string]*capacity.Image // current image of every item, from the stream
}

type keySchema struct{ hash, rng string }

type shard struct {
	iterator string // "" once closed
	last     string // last sequence number read
	reopened bool   // the iterator was just reopened after an error
}

// Change is one item change as the table's stream records it. Hold predicates see it.
type Change struct {
	Table string
	Key   Item
	Old   Item // nil if the item did not exist
	New   Item // nil if the item was deleted
}

// Image returns the new image, or the old one for a delete.
func (c Change) Image() Item {
	if c.New != nil {
		return c.New
	}
	return c.Old
}

// change is a Change on its way to the index.
type change struct {
	Change
	key string // canonical item key
	seq uint64 // engine-wide order of arrival
	due time.Time
}

// tableDescription is the part of DescribeTable's answer the engine uses.
type tableDescription struct {
	Table struct {
		TableName              string
		TableArn               string
		AttributeDefinitions   []json.RawMessage
		KeySchema              []struct{ AttributeName, KeyType string }
		GlobalSecondaryIndexes []struct {
			IndexName  string
			KeySchema  []struct{ AttributeName, KeyType string }
			Projection json.RawMessage
		}
		StreamSpecification *struct {
			StreamEnabled  bool
			StreamViewType string
		}
		LatestStreamArn string
	}
}

func schemaOf(ks []struct{ AttributeName, KeyType string }) keySchema {
	var s keySchema
	for _, k := range ks {
		if k.KeyType == "HASH" {
			s.hash = k.AttributeName
		} else {
			s.rng = k.AttributeName
		}
	}
	return s
}

// table returns the engine's view of table name, taking it over on first use. It returns
// nil (and no error) for a table DynamoDB Local does not have: the request is then
// relayed and DynamoDB Local answers with its error.
func (e *Engine) table(ctx context.Context, name string) (*table, error) {
	if name == "" || strings.HasSuffix(name, shadowSuffix) {
		return nil, nil
	}
	e.mu.Lock()
	t := e.tables[name]
	if t == nil {
		t = &table{name: name, ready: make(chan struct{})}
		e.tables[name] = t
		e.mu.Unlock()
		t.err = e.attach(ctx, t)
		if t.err != nil {
			e.mu.Lock()
			delete(e.tables, name)
			e.mu.Unlock()
		}
		close(t.ready)
	} else {
		e.mu.Unlock()
		select {
		case <-t.ready:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if t.err == errNoTable {
		return nil, nil
	}
	if t.err != nil {
		return nil, t.err
	}
	return t, nil
}

var errNoTable = fmt.Errorf("no such table")

// attach takes table t over: stream on, shadow created and filled, images recorded.
func (e *Engine) attach(ctx context.Context, t *table) error {
	var d tableDescription
	err := e.call(ctx, targetPrefix+"DescribeTable", map[string]string{"TableName": t.name}, &d)
	if isUpstream(err, "ResourceNotFoundException") {
		return errNoTable
	}
	if err != nil {
		return fmt.Errorf("describe %s: %w", t.name, err)
	}
	ks := schemaOf(d.Table.KeySchema)
	t.hash, t.rng, t.arn = ks.hash, ks.rng, d.Table.TableArn
	t.indexes = map[string]keySchema{}
	for _, g := range d.Table.GlobalSecondaryIndexes {
		t.indexes[g.IndexName] = schemaOf(g.KeySchema)
	}
	t.shards, t.lastDue, t.images = map[string]*shard{}, map[string]time.Time{}, map[string]*capacity.Image{}

	spec := d.Table.StreamSpecification
	switch {
	case spec == nil || !spec.StreamEnabled:
		var u tableDescriptionUpdate
		err := e.call(ctx, targetPrefix+"UpdateTable", map[string]any{
			"TableName":           t.name,
			"StreamSpecification": map[string]any{"StreamEnabled": true, "StreamViewType": "NEW_AND_OLD_IMAGES"},
		}, &u)
		if err != nil {
			return fmt.Errorf("enable the stream of %s: %w", t.name, err)
		}
		t.stream = u.TableDescription.LatestStreamArn
	case spec.StreamViewType != "NEW_AND_OLD_IMAGES":
		return fmt.Errorf("table %s has a %s stream; the engine needs NEW_AND_OLD_IMAGES", t.name, spec.StreamViewType)
	default:
		t.stream = d.Table.LatestStreamArn
	}
	if err := e.openShards(ctx, t); err != nil {
		return err
	}

	if len(d.Table.GlobalSecondaryIndexes) > 0 {
		t.shadow = t.name + shadowSuffix
		t.definition = map[string]any{
			"TableName": t.shadow, "AttributeDefinitions": d.Table.AttributeDefinitions,
			"KeySchema": d.Table.KeySchema, "BillingMode": "PAY_PER_REQUEST",
		}
		gsis := make([]map[string]any, len(d.Table.GlobalSecondaryIndexes))
		for i, g := range d.Table.GlobalSecondaryIndexes {
			gsis[i] = map[string]any{"IndexName": g.IndexName, "KeySchema": g.KeySchema, "Projection": g.Projection}
		}
		t.definition["GlobalSecondaryIndexes"] = gsis
	}
	if e.meter != nil {
		// Item sizes and index keys of what the table holds now; the stream (opened
		// first) tells every later change.
		if err := e.scan(ctx, t, func(it Item) { t.images[t.itemKey(it)] = t.image(it) }); err != nil {
			return err
		}
	}
	if e.indexActive() {
		return e.activate(ctx, t)
	}
	return nil
}

// activate starts answering t's index reads from its shadow: the stream is read up to
// now, the shadow created and the table copied into it. Until then (no hold, no lag ever)
// index reads go to the table itself, whose index DynamoDB Local keeps current: the
// same answers without the cost of a copy. t.mu must be held (or t not yet shared).
func (e *Engine) activate(ctx context.Context, t *table) error {
	if t.shadowReady || t.shadow == "" {
		return nil
	}
	if err := e.drain(ctx, t); err != nil {
		return err
	}
	// The copy below is at least as new as every change read so far.
	t.pending, t.lastDue = nil, map[string]time.Time{}
	err := e.call(ctx, targetPrefix+"CreateTable", t.definition, nil)
	if err != nil && !isUpstream(err, "ResourceInUseException") {
		return fmt.Errorf("create the shadow of %s: %w", t.name, err)
	}
	var batch []Item
	err = e.scan(ctx, t, func(it Item) { batch = append(batch, it) })
	if err == nil {
		err = e.writeShadow(ctx, t, batch, nil)
	}
	if err != nil {
		return fmt.Errorf("copy %s into its shadow: %w", t.name, err)
	}
	// Changes made during the copy are read from the stream later and applied again,
	// which is harmless: images are whole items.
	t.shadowReady = true
	return nil
}

// indexActive reports whether index reads must come from shadows: a hold or a lag.
func (e *Engine) indexActive() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.holds) > 0 || e.lag.Max > 0
}

type tableDescriptionUpdate struct {
	TableDescription struct{ LatestStreamArn string }
}

// openShards reads the stream's shards and opens an iterator on those not known yet
// (from their start).
func (e *Engine) openShards(ctx context.Context, t *table) error {
	var d struct {
		StreamDescription struct {
			Shards []struct{ ShardId string }
		}
	}
	if err := e.call(ctx, streamsTargetPrefix+"DescribeStream", map[string]string{"StreamArn": t.stream}, &d); err != nil {
		return fmt.Errorf("describe the stream of %s: %w", t.name, err)
	}
	for _, s := range d.StreamDescription.Shards {
		if _, ok := t.shards[s.ShardId]; ok {
			continue
		}
		var it struct{ ShardIterator string }
		err := e.call(ctx, streamsTargetPrefix+"GetShardIterator", map[string]string{
			"StreamArn": t.stream, "ShardId": s.ShardId, "ShardIteratorType": "TRIM_HORIZON",
		}, &it)
		if err != nil {
			return fmt.Errorf("open shard %s of %s: %w", s.ShardId, t.name, err)
		}
		t.shards[s.ShardId] = &shard{iterator: it.ShardIterator}
	}
	return nil
}

// scan reads the whole table, consistently, and calls fn for each item.
func (e *Engine) scan(ctx context.Context, t *table, fn func(Item)) error {
	var start json.RawMessage
	for {
		in := map[string]any{"TableName": t.name, "ConsistentRead": true}
		if start != nil {
			in["ExclusiveStartKey"] = start
		}
		var out struct {
			Items            []Item
			LastEvaluatedKey json.RawMessage
		}
		if err := e.call(ctx, targetPrefix+"Scan", in, &out); err != nil {
			return fmt.Errorf("scan %s: %w", t.name, err)
		}
		for _, it := range out.Items {
			fn(it)
		}
		if len(out.LastEvaluatedKey) == 0 || string(out.LastEvaluatedKey) == "null" {
			return nil
		}
		start = out.LastEvaluatedKey
	}
}

// itemKey is the canonical text of an item's primary key.
func (t *table) itemKey(it Item) string {
	k := scalar(it[t.hash])
	if t.rng != "" {
		k += "\x00" + scalar(it[t.rng])
	}
	return k
}

// partitionKey is the item's table partition key value as text.
func (t *table) partitionKey(it Item) string { return it.S(t.hash) }

// image is what capacity needs of it: size and index keys (nil for a nil item).
func (t *table) image(it Item) *capacity.Image {
	if it == nil {
		return nil
	}
	size, _ := capacity.ItemSize(capacity.Item(it))
	im := &capacity.Image{Size: size}
	for name, ks := range t.indexes {
		if !it.Has(ks.hash) || (ks.rng != "" && !it.Has(ks.rng)) {
			continue
		}
		if im.IndexKeys == nil {
			im.IndexKeys = map[string]capacity.IndexKey{}
		}
		im.IndexKeys[name] = capacity.IndexKey{Partition: it.S(ks.hash), Sort: scalar(it[ks.rng])}
	}
	return im
}

// forget drops a deleted table and its shadow.
func (e *Engine) forget(ctx context.Context, name string) {
	e.mu.Lock()
	t := e.tables[name]
	delete(e.tables, name)
	e.mu.Unlock()
	if t == nil {
		return
	}
	<-t.ready
	if t.shadow != "" {
		_ = e.call(ctx, targetPrefix+"DeleteTable", map[string]string{"TableName": t.shadow}, nil)
	}
}

// streamRecord is one record of GetRecords.
type streamRecord struct {
	EventName string `json:"eventName"`
	Dynamodb  struct {
		Keys           Item
		NewImage       Item
		OldImage       Item
		SequenceNumber string
	} `json:"dynamodb"`
}

// drain reads every new record of t's stream: each becomes a pending change for the
// index, updates the image records and is handed to the request holding its item, if
// any. t.mu must be held.
func (e *Engine) drain(ctx context.Context, t *table) error {
	reopen := false
	for _, id := range sortedKeys(t.shards) {
		s := t.shards[id]
		for s.iterator != "" {
			var out struct {
				Records           []streamRecord
				NextShardIterator string
			}
			err := e.call(ctx, streamsTargetPrefix+"GetRecords", map[string]string{"ShardIterator": s.iterator}, &out)
			if (isUpstream(err, "ExpiredIteratorException") || isUpstream(err, "TrimmedDataAccessException")) && !s.reopened {
				// Iterators expire (15 minutes). And DynamoDB Local refuses an iterator made
				// before a shard's first record when that record's sequence number is not
				// the next one (writes to other tables took those): a fresh iterator works.
				if err = e.reopen(ctx, t, id, s); err == nil {
					s.reopened = true
					continue
				}
			}
			s.reopened = false
			if err != nil {
				return fmt.Errorf("read the stream of %s: %w", t.name, err)
			}
			for _, r := range out.Records {
				e.ingest(t, r)
				s.last = r.Dynamodb.SequenceNumber
			}
			s.iterator = out.NextShardIterator
			if s.iterator == "" {
				reopen = true
			}
			if len(out.Records) == 0 {
				break
			}
		}
	}
	if reopen {
		return e.openShards(ctx, t)
	}
	return nil
}

// reopen gets a new iterator for shard id: after the last record read, or from the start.
func (e *Engine) reopen(ctx context.Context, t *table, id string, s *shard) error {
	in := map[string]string{"StreamArn": t.stream, "ShardId": id, "ShardIteratorType": "TRIM_HORIZON"}
	if s.last != "" {
		in["ShardIteratorType"], in["SequenceNumber"] = "AFTER_SEQUENCE_NUMBER", s.last
	}
	var it struct{ ShardIterator string }
	if err := e.call(ctx, streamsTargetPrefix+"GetShardIterator", in, &it); err != nil {
		return err
	}
	s.iterator = it.ShardIterator
	return nil
}

// ingest turns one stream record into a pending change. t.mu must be held.
func (e *Engine) ingest(t *table, r streamRecord) {
	c := &change{Change: Change{Table: t.name, Key: r.Dynamodb.Keys, Old: r.Dynamodb.OldImage, New: r.Dynamodb.NewImage}}
	if r.EventName == "REMOVE" {
		c.New = nil
	}
	c.key = t.itemKey(c.Key)
	now := e.now()
	e.mu.Lock()
	e.seq++
	c.seq = e.seq
	lag := e.lag.Min
	if e.lag.Max > e.lag.Min {
		lag += time.Duration(e.rng.Int64N(int64(e.lag.Max - e.lag.Min)))
	}
	h := e.locks[lockKey(t.name, c.key)]
	if h != nil {
		h.records = append(h.records, c)
	}
	e.mu.Unlock()
	// One item's changes reach the index in order.
	c.due = now.Add(lag)
	if prev := t.lastDue[c.key]; c.due.Before(prev) {
		c.due = prev
	}
	t.lastDue[c.key] = c.due
	if e.meter != nil {
		if c.New != nil {
			t.images[c.key] = t.image(c.New)
		} else {
			delete(t.images, c.key)
		}
	}
	if t.shadowReady {
		t.pending = append(t.pending, c)
	}
}

// catchUp reads the stream and applies to the shadow every pending change that is not
// held and, unless all is set, is due. t.mu must be held.
func (e *Engine) catchUp(ctx context.Context, t *table, all bool) error {
	if err := e.activate(ctx, t); err != nil {
		return err
	}
	if err := e.drain(ctx, t); err != nil {
		return err
	}
	if len(t.pending) == 0 {
		return nil
	}
	now := e.now()
	e.mu.Lock()
	holds := append([]*Hold(nil), e.holds...)
	e.mu.Unlock()
	blocked := map[string]bool{}
	latest := map[string]*change{}
	keep := t.pending[:0]
	for _, c := range t.pending {
		if blocked[c.key] || (!all && c.due.After(now)) || held(holds, c) {
			blocked[c.key] = true
			keep = append(keep, c)
			continue
		}
		latest[c.key] = c
	}
	for i := len(keep); i < len(t.pending); i++ {
		t.pending[i] = nil
	}
	t.pending = keep
	if len(latest) == 0 {
		return nil
	}
	var puts, dels []Item
	for _, k := range sortedKeys(latest) {
		c := latest[k]
		if c.New != nil {
			puts = append(puts, c.New)
		} else {
			dels = append(dels, c.Key)
		}
	}
	return e.writeShadow(ctx, t, puts, dels)
}

// writeShadow puts and deletes items in t's shadow, 25 a request.
func (e *Engine) writeShadow(ctx context.Context, t *table, puts, dels []Item) error {
	reqs := make([]map[string]any, 0, len(puts)+len(dels))
	for _, it := range puts {
		reqs = append(reqs, map[string]any{"PutRequest": map[string]any{"Item": it}})
	}
	for _, k := range dels {
		reqs = append(reqs, map[string]any{"DeleteRequest": map[string]any{"Key": k}})
	}
	for start := 0; start < len(reqs); start += 25 {
		batch := reqs[start:min(start+25, len(reqs))]
		for len(batch) > 0 {
			var out struct {
				UnprocessedItems map[string][]map[string]any
			}
			err := e.call(ctx, targetPrefix+"BatchWriteItem", map[string]any{"RequestItems": map[string]any{t.shadow: batch}}, &out)
			if err != nil {
				return fmt.Errorf("write the shadow of %s: %w", t.name, err)
			}
			batch = out.UnprocessedItems[t.shadow]
		}
	}
	return nil
}

// Hold keeps the index changes it matches out of the index until released.
type Hold struct {
	e     *Engine
	match func(Change) bool
	after uint64 // holds changes that arrive after this sequence number
}

// HoldIndex holds, from now on, every change that match accepts: the change and every
// later change of the same item stay out of the index (reads keep seeing the item as it
// was) until the hold is released. Changes of other items go on reaching the index.
//
//	h := eng.HoldIndex(awsfaithful.Where("type", "match"))
//	... write the event and its matches ...   // index: new event row, old match rows
//	h.Release()                                // the match rows may now arrive
func (e *Engine) HoldIndex(match func(Change) bool) *Hold {
	// Changes made so far are not held: read them from the streams first.
	e.activateAll(context.Background())
	e.mu.Lock()
	defer e.mu.Unlock()
	h := &Hold{e: e, match: match, after: e.seq}
	e.holds = append(e.holds, h)
	return h
}

// FreezeIndex holds every change from now on: index reads see the index as it is (plus
// what was already due) until the hold is released.
func (e *Engine) FreezeIndex() *Hold { return e.HoldIndex(func(Change) bool { return true }) }

// Release ends the hold: the changes it held reach the index at the next index read
// (or once due, with a lag). Releasing twice is harmless.
func (h *Hold) Release() {
	h.e.mu.Lock()
	defer h.e.mu.Unlock()
	for i, x := range h.e.holds {
		if x == h {
			h.e.holds = append(h.e.holds[:i], h.e.holds[i+1:]...)
			return
		}
	}
}

func held(holds []*Hold, c *change) bool {
	for _, h := range holds {
		if c.seq > h.after && h.match(c.Change) {
			return true
		}
	}
	return false
}

// Where matches changes whose item (new image, or old one for a delete) has attribute
// name equal to value (a string or number attribute).
func Where(name, value string) func(Change) bool {
	return func(c Change) bool { return c.Image().S(name) == value }
}

// SetIndexLag sets the range future changes' index lag is drawn from.
func (e *Engine) SetIndexLag(l Lag) {
	e.activateAll(context.Background())
	e.mu.Lock()
	e.lag = l
	e.mu.Unlock()
}

// activateAll makes every table's index reads come from its shadow, the stream read up
// to now. An error is kept and returned by the table's next index read.
func (e *Engine) activateAll(ctx context.Context) {
	for _, t := range e.readyTables(ctx) {
		t.mu.Lock()
		err := e.activate(ctx, t)
		if err == nil {
			err = e.drain(ctx, t)
		}
		if err != nil && t.indexErr == nil {
			t.indexErr = err
		}
		t.mu.Unlock()
	}
}

// readyTables returns the tables taken over, by name.
func (e *Engine) readyTables(ctx context.Context) []*table {
	e.mu.Lock()
	ts := make([]*table, 0, len(e.tables))
	for _, t := range e.tables {
		ts = append(ts, t)
	}
	e.mu.Unlock()
	sort.Slice(ts, func(i, j int) bool { return ts[i].name < ts[j].name })
	out := ts[:0]
	for _, t := range ts {
		select {
		case <-t.ready:
		case <-ctx.Done():
			return out
		}
		if t.err == nil {
			out = append(out, t)
		}
	}
	return out
}

// SyncIndex lets the index catch up: every change made so far that is not held reaches
// the index now, whatever its lag. Held changes stay out.
func (e *Engine) SyncIndex(ctx context.Context) error {
	for _, t := range e.readyTables(ctx) {
		t.mu.Lock()
		if !t.shadowReady {
			t.mu.Unlock()
			continue
		}
		err := e.catchUp(ctx, t, true)
		t.mu.Unlock()
		if err != nil {
			return err
		}
	}
	return ctx.Err()
}

// PendingIndexChanges returns how many changes of table have not reached its index yet
// (held, or not yet due).
func (e *Engine) PendingIndexChanges(ctx context.Context, table string) (int, error) {
	for _, t := range e.readyTables(ctx) {
		if t.name != table {
			continue
		}
		t.mu.Lock()
		defer t.mu.Unlock()
		err := e.drain(ctx, t)
		return len(t.pending), err
	}
	return 0, ctx.Err()
}
