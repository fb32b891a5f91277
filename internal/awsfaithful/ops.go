package awsfaithful

import (
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"strings"

	"github.com/pickem/api/internal/capacity"
)

func rawString(raw json.RawMessage) string {
	var s string
	_ = json.Unmarshal(raw, &s)
	return s
}

func rawBool(raw json.RawMessage) bool {
	var b bool
	_ = json.Unmarshal(raw, &b)
	return b
}

// throttled is the error for a request refused for want of capacity on s.
func (x *exchange) throttled(t *table, s *capacity.Shortage) error {
	x.e.faults.add(FaultCounts{Throttled: 1})
	kind, resource := "Table", t.arn
	if s.Partition.Index != "" {
		kind, resource = "Index", t.arn+"/index/"+s.Partition.Index
	}
	rw := "Read"
	if s.Write {
		rw = "Write"
	}
	reason := kind + rw + "KeyRangeThroughputExceeded"
	if x.e.cfg.ThrottlingException {
		return throttlingException(reason, resource)
	}
	return throughputExceeded(reason, resource)
}

// single decodes a request on one table and finds the table. For a table the engine does
// not know (DynamoDB Local has no such table) it relays the request and returns a nil
// table, with the relay's error.
func (x *exchange) single() (map[string]json.RawMessage, *table, error) {
	var in map[string]json.RawMessage
	if err := x.unmarshalBody(&in); err != nil {
		return nil, nil, err
	}
	t, err := x.e.table(x.ctx(), rawString(in["TableName"]))
	if err != nil {
		return nil, nil, err
	}
	if t == nil {
		return nil, nil, x.relay()
	}
	return in, t, nil
}

// read answers Query, Scan (indexable) and GetItem: index reads from the shadow after it
// caught up with what is due; capacity metered on the partition read (Scans are not
// metered: they read every partition).
func (x *exchange) read(indexable bool) error {
	in, t, err := x.single()
	if t == nil {
		return err
	}
	index := rawString(in["IndexName"])
	_, gsi := t.indexes[index]
	toShadow := indexable && gsi && t.shadow != "" && x.e.indexActive()
	if toShadow {
		t.mu.Lock()
		err := t.indexErr
		if err == nil {
			err = x.e.catchUp(x.ctx(), t, false)
		}
		t.mu.Unlock()
		if err != nil {
			return err
		}
		in["TableName"], _ = json.Marshal(t.shadow)
	}

	meter := x.e.meter
	if x.op == "Scan" {
		meter = nil
	}
	if !toShadow && meter == nil {
		return x.relay()
	}
	var reserved capacity.Demand
	askedCapacity := rawString(in["ReturnConsumedCapacity"])
	if meter != nil {
		p := capacity.Partition{Table: t.name}
		consistent := rawBool(in["ConsistentRead"])
		size := 0
		if x.op == "GetItem" {
			var key Item
			_ = json.Unmarshal(in["Key"], &key)
			p.Key = t.partitionKey(key)
			t.mu.Lock()
			if im := t.images[t.itemKey(key)]; im != nil {
				size = im.Size
			}
			t.mu.Unlock()
		} else {
			hash := t.hash
			if gsi {
				p.Index, hash = index, t.indexes[index].hash
			}
			p.Key = hashValue(in, hash)
		}
		reserved = capacity.Demand{}
		reserved.AddRead(p, capacity.ReadUnits(size, consistent))
		if s := meter.Reserve(reserved); s != nil {
			return x.throttled(t, s)
		}
		if askedCapacity == "" || askedCapacity == "NONE" {
			in["ReturnConsumedCapacity"] = json.RawMessage(`"TOTAL"`)
		}
		actual := capacity.Demand{}
		defer func() { meter.Settle(reserved, actual) }()
		status, resp, err := x.forward(replaceJSON(in))
		if err != nil {
			return err
		}
		if status == http.StatusOK {
			var out map[string]json.RawMessage
			if json.Unmarshal(resp, &out) == nil {
				var cc struct{ CapacityUnits float64 }
				_ = json.Unmarshal(out["ConsumedCapacity"], &cc)
				actual.AddRead(p, cc.CapacityUnits)
				if askedCapacity == "" || askedCapacity == "NONE" {
					delete(out, "ConsumedCapacity")
				}
				resp = fixTableName(out, t)
			}
		}
		x.reply(status, resp)
		return nil
	}
	status, resp, err := x.forward(replaceJSON(in))
	if err != nil {
		return err
	}
	if toShadow && status == http.StatusOK {
		var out map[string]json.RawMessage
		if json.Unmarshal(resp, &out) == nil {
			resp = fixTableName(out, t)
		}
	}
	x.reply(status, resp)
	return nil
}

// fixTableName names the table, not its shadow, in an answer's ConsumedCapacity.
func fixTableName(out map[string]json.RawMessage, t *table) []byte {
	if raw, ok := out["ConsumedCapacity"]; ok && t.shadow != "" {
		var cc map[string]json.RawMessage
		if json.Unmarshal(raw, &cc) == nil && rawString(cc["TableName"]) == t.shadow {
			cc["TableName"], _ = json.Marshal(t.name)
			out["ConsumedCapacity"] = replaceJSON(cc)
		}
	}
	return replaceJSON(out)
}

var equality = regexp.MustCompile(`([#:]?[A-Za-z0-9_.]+)\s*=\s*([#:]?[A-Za-z0-9_.]+)`)

// hashValue finds the value a Query's key condition gives attribute attr ("" if none).
func hashValue(in map[string]json.RawMessage, attr string) string {
	var names map[string]string
	var values Item
	_ = json.Unmarshal(in["ExpressionAttributeNames"], &names)
	_ = json.Unmarshal(in["ExpressionAttributeValues"], &values)
	resolve := func(s string) string {
		if n, ok := names[s]; ok {
			return n
		}
		return s
	}
	for _, m := range equality.FindAllStringSubmatch(rawString(in["KeyConditionExpression"]), -1) {
		a, b := m[1], m[2]
		if strings.HasPrefix(a, ":") {
			a, b = b, a
		}
		if resolve(a) == attr && strings.HasPrefix(b, ":") {
			return values.S(b)
		}
	}
	var legacy map[string]struct{ AttributeValueList []json.RawMessage }
	_ = json.Unmarshal(in["KeyConditions"], &legacy)
	if c, ok := legacy[attr]; ok && len(c.AttributeValueList) > 0 {
		return Item{"v": c.AttributeValueList[0]}.S("v")
	}
	return ""
}

// write answers PutItem, UpdateItem and DeleteItem: TransactionConflictException if a
// transaction in flight holds the item; throttled if a partition it writes (the table's,
// or an index's the item is in or enters) is short.
func (x *exchange) write() error {
	in, t, err := x.single()
	if t == nil {
		return err
	}
	var key, item Item
	if x.op == "PutItem" {
		_ = json.Unmarshal(in["Item"], &item)
		key = item
	} else {
		_ = json.Unmarshal(in["Key"], &key)
	}
	k := t.itemKey(key)
	h, busy, err := x.e.lockPlain(x.ctx(), []string{lockKey(t.name, k)})
	if err != nil {
		return err
	}
	defer x.e.unlock(h)
	if len(busy) > 0 {
		x.e.faults.add(FaultCounts{Conflicts: 1})
		return transactionConflict()
	}

	var reserved capacity.Demand
	if x.e.meter != nil {
		t.mu.Lock()
		err := x.e.drain(x.ctx(), t)
		old := t.images[k]
		t.mu.Unlock()
		if err != nil {
			return err
		}
		reserved = capacity.Demand{}
		reserved.AddWriteOf(t.name, t.partitionKey(key), old, estimateNew(t, x.op, old, item), 1)
		if s := x.e.meter.Reserve(reserved); s != nil {
			return x.throttled(t, s)
		}
	}
	status, resp, err := x.forward(x.body)
	if err != nil {
		if reserved != nil {
			x.e.meter.Settle(reserved, nil)
		}
		return err
	}
	err = x.e.afterWrite(x, t)
	if reserved != nil {
		actual := capacity.Demand{}
		switch {
		case status == http.StatusOK:
			for _, c := range x.e.takeRecords(h) {
				actual.AddWriteOf(t.name, t.partitionKey(c.Key), t.image(c.Old), t.image(c.New), 1)
			}
			if len(actual) == 0 {
				actual = reserved // an unchanged item writes no stream record but still costs
			}
		case strings.Contains(string(resp), "ConditionalCheckFailed"):
			actual = reserved // a failed condition costs the write
		}
		x.e.meter.Settle(reserved, actual)
		if status == http.StatusOK {
			resp = reportWrites(resp, actual, true)
		}
	}
	if err != nil {
		return err
	}
	x.reply(status, resp)
	return nil
}

// reportWrites replaces the ConsumedCapacity of a write's answer, if the client asked for
// one, by what the write cost as AWS counts it (DynamoDB Local reports neither the double
// price of transactions nor index writes faithfully): per table, the units of the table
// and of its indexes, with the breakdown when the client asked for INDEXES. single is a
// one-table operation (an object); otherwise a list, one entry per table.
func reportWrites(resp []byte, actual capacity.Demand, single bool) []byte {
	var out map[string]json.RawMessage
	if json.Unmarshal(resp, &out) != nil || out["ConsumedCapacity"] == nil {
		return resp
	}
	indexes := strings.Contains(string(out["ConsumedCapacity"]), `"Table"`)
	type units struct {
		CapacityUnits      float64
		WriteCapacityUnits float64
	}
	type entry struct {
		TableName              string
		CapacityUnits          float64
		WriteCapacityUnits     float64
		Table                  *units           `json:",omitempty"`
		GlobalSecondaryIndexes map[string]units `json:",omitempty"`
	}
	byTable := map[string]*entry{}
	for p, u := range actual {
		e := byTable[p.Table]
		if e == nil {
			e = &entry{TableName: p.Table}
			if indexes {
				e.Table = &units{}
			}
			byTable[p.Table] = e
		}
		e.CapacityUnits += u.Write
		e.WriteCapacityUnits += u.Write
		switch {
		case !indexes:
		case p.Index == "":
			e.Table.CapacityUnits += u.Write
			e.Table.WriteCapacityUnits += u.Write
		default:
			if e.GlobalSecondaryIndexes == nil {
				e.GlobalSecondaryIndexes = map[string]units{}
			}
			x := e.GlobalSecondaryIndexes[p.Index]
			x.CapacityUnits += u.Write
			x.WriteCapacityUnits += u.Write
			e.GlobalSecondaryIndexes[p.Index] = x
		}
	}
	list := make([]*entry, 0, len(byTable))
	for _, name := range sortedKeys(byTable) {
		list = append(list, byTable[name])
	}
	if single {
		if len(list) != 1 {
			return resp
		}
		out["ConsumedCapacity"], _ = json.Marshal(list[0])
	} else {
		out["ConsumedCapacity"], _ = json.Marshal(list)
	}
	return replaceJSON(out)
}

// estimateNew is what a write's new image is expected to be, before it is made: the Put's
// item, nothing for a delete, and for an update the old image (the update expression is
// not evaluated; what it really wrote is charged once the stream tells).
func estimateNew(t *table, op string, old *capacity.Image, item Item) *capacity.Image {
	switch op {
	case "PutItem", "Put":
		return t.image(item)
	case "DeleteItem", "Delete":
		return nil
	}
	if old == nil {
		return &capacity.Image{Size: 1}
	}
	return old
}

// txItemWire is one element of TransactItems.
type txItemWire struct {
	ConditionCheck, Put, Delete, Update *struct {
		TableName string
		Key, Item Item
	}
}

// transact answers TransactWriteItems: cancelled with TransactionConflict on the items
// another request holds, or with ThrottlingError on the items whose partitions are
// short; otherwise it holds its items while in flight (Config.TransactionHold,
// PauseTransactions) and is applied.
func (x *exchange) transact() error {
	var in struct{ TransactItems []txItemWire }
	if err := x.unmarshalBody(&in); err != nil {
		return err
	}
	type entry struct {
		op    string
		t     *table
		key   Item
		item  Item
		lock  string
		items string
	}
	entries := make([]entry, len(in.TransactItems))
	tx := Tx{Items: make([]TxItem, len(in.TransactItems))}
	tables := map[string]*table{}
	for i, w := range in.TransactItems {
		var en entry
		switch {
		case w.Put != nil:
			en.op, en.items, en.item, en.key = "Put", w.Put.TableName, w.Put.Item, w.Put.Item
		case w.Update != nil:
			en.op, en.items, en.key = "Update", w.Update.TableName, w.Update.Key
		case w.Delete != nil:
			en.op, en.items, en.key = "Delete", w.Delete.TableName, w.Delete.Key
		case w.ConditionCheck != nil:
			en.op, en.items, en.key = "ConditionCheck", w.ConditionCheck.TableName, w.ConditionCheck.Key
		default:
			return x.relay()
		}
		t, err := x.e.table(x.ctx(), en.items)
		if err != nil {
			return err
		}
		if t == nil {
			return x.relay()
		}
		en.t = t
		tables[t.name] = t
		en.lock = lockKey(t.name, t.itemKey(en.key))
		keyOnly := Item{t.hash: en.key[t.hash]}
		if t.rng != "" {
			keyOnly[t.rng] = en.key[t.rng]
		}
		tx.Items[i] = TxItem{Op: en.op, Table: t.name, Key: keyOnly, Item: en.item}
		entries[i] = en
	}
	keys := make([]string, len(entries))
	for i, en := range entries {
		keys[i] = en.lock
	}
	x.e.runHooks(tx)
	h, busy := x.e.lockTx(keys)
	if busy != nil {
		x.e.faults.add(FaultCounts{Conflicts: 1})
		codes := make([]string, len(entries))
		for i, en := range entries {
			codes[i] = reasonNone
			if busy[en.lock] {
				codes[i] = reasonConflict
			}
		}
		return transactionCanceled(codes)
	}
	defer x.e.unlock(h)

	var reserved capacity.Demand
	var checks capacity.Demand // what the condition checks cost
	if x.e.meter != nil {
		if err := x.e.drainTables(x.ctx(), tables); err != nil {
			return err
		}
		reserved, checks = capacity.Demand{}, capacity.Demand{}
		per := make([]capacity.Demand, len(entries))
		for i, en := range entries {
			k := en.t.itemKey(en.key)
			en.t.mu.Lock()
			old := en.t.images[k]
			en.t.mu.Unlock()
			per[i] = capacity.Demand{}
			pk := en.t.partitionKey(en.key)
			if en.op == "ConditionCheck" {
				u := capacity.CheckUnits(old.Bytes())
				per[i].AddWrite(capacity.Partition{Table: en.t.name, Key: pk}, u)
				checks.AddWrite(capacity.Partition{Table: en.t.name, Key: pk}, u)
			} else {
				per[i].AddWriteOf(en.t.name, pk, old, estimateNew(en.t, en.op, old, en.item), capacity.Transaction)
			}
			for p, u := range per[i] {
				reserved.AddWrite(p, u.Write)
			}
		}
		if s := x.e.meter.Reserve(reserved); s != nil {
			x.e.faults.add(FaultCounts{Throttled: 1})
			codes := make([]string, len(entries))
			for i := range entries {
				codes[i] = reasonNone
				if _, ok := per[i][s.Partition]; ok {
					codes[i] = reasonThrottling
				}
			}
			return transactionCanceled(codes)
		}
	}
	settle := func(actual capacity.Demand) {
		if reserved != nil {
			x.e.meter.Settle(reserved, actual)
		}
	}
	if err := x.e.inFlight(x.ctx(), tx); err != nil {
		settle(nil)
		return err
	}
	status, resp, err := x.forward(x.body)
	if err != nil {
		settle(nil)
		return err
	}
	var drainErr error
	for _, t := range tables {
		if err := x.e.afterWrite(x, t); err != nil {
			drainErr = err
		}
	}
	if reserved != nil {
		actual := capacity.Demand{}
		if status == http.StatusOK {
			for p, u := range checks {
				actual.AddWrite(p, u.Write)
			}
			for _, c := range x.e.takeRecords(h) {
				t := tables[c.Table]
				actual.AddWriteOf(t.name, t.partitionKey(c.Key), t.image(c.Old), t.image(c.New), capacity.Transaction)
			}
		}
		settle(actual)
		if status == http.StatusOK {
			resp = reportWrites(resp, actual, false)
		}
	}
	if drainErr != nil {
		return drainErr
	}
	x.reply(status, resp)
	return nil
}

// keysAndAttributes is one table's part of a BatchGetItem.
type keysAndAttributes map[string]json.RawMessage

// batchGet answers BatchGetItem: keys on partitions short of read capacity come back in
// UnprocessedKeys (ProvisionedThroughputExceededException if that is all of them).
func (x *exchange) batchGet() error {
	if x.e.meter == nil {
		return x.relay()
	}
	var in map[string]json.RawMessage
	if err := x.unmarshalBody(&in); err != nil {
		return err
	}
	var req map[string]keysAndAttributes
	_ = json.Unmarshal(in["RequestItems"], &req)
	admitted := map[string]keysAndAttributes{}
	refused := map[string]keysAndAttributes{}
	var reserved []capacity.Demand
	var shortage *capacity.Shortage
	var shortTable *table
	for _, name := range sortedKeys(req) {
		ka := req[name]
		t, err := x.e.table(x.ctx(), name)
		if err != nil {
			return err
		}
		if t == nil {
			return x.relay()
		}
		var keys []Item
		_ = json.Unmarshal(ka["Keys"], &keys)
		consistent := rawBool(ka["ConsistentRead"])
		var ok, no []Item
		for _, key := range keys {
			t.mu.Lock()
			size := t.images[t.itemKey(key)].Bytes()
			t.mu.Unlock()
			d := capacity.Demand{}
			d.AddRead(capacity.Partition{Table: t.name, Key: t.partitionKey(key)}, capacity.ReadUnits(size, consistent))
			if s := x.e.meter.Reserve(d); s != nil {
				x.e.faults.add(FaultCounts{Throttled: 1})
				no = append(no, key)
				shortage, shortTable = s, t
				continue
			}
			reserved = append(reserved, d)
			ok = append(ok, key)
		}
		if len(ok) > 0 {
			admitted[name] = withKeys(ka, ok)
		}
		if len(no) > 0 {
			refused[name] = withKeys(ka, no)
		}
	}
	defer func() {
		for _, d := range reserved {
			x.e.meter.Settle(d, d)
		}
	}()
	if len(admitted) == 0 && shortage != nil {
		reserved = nil
		x.e.faults.add(FaultCounts{Throttled: -1}) // counted per key above
		return x.throttled(shortTable, shortage)
	}
	if len(refused) == 0 {
		return x.relay()
	}
	in["RequestItems"], _ = json.Marshal(admitted)
	status, resp, err := x.forward(replaceJSON(in))
	if err != nil {
		return err
	}
	if status == http.StatusOK {
		resp = mergeUnprocessed(resp, "UnprocessedKeys", refused, func(have, add json.RawMessage) json.RawMessage {
			var a, b keysAndAttributes
			_ = json.Unmarshal(have, &a)
			_ = json.Unmarshal(add, &b)
			var ka, kb []json.RawMessage
			_ = json.Unmarshal(a["Keys"], &ka)
			_ = json.Unmarshal(b["Keys"], &kb)
			b["Keys"], _ = json.Marshal(append(ka, kb...))
			return replaceJSON(b)
		})
	}
	x.reply(status, resp)
	return nil
}

func withKeys(ka keysAndAttributes, keys []Item) keysAndAttributes {
	out := keysAndAttributes{}
	for k, v := range ka {
		out[k] = v
	}
	out["Keys"], _ = json.Marshal(keys)
	return out
}

// mergeUnprocessed adds refused (table → value) to the answer's field (UnprocessedKeys or
// UnprocessedItems), joining with what DynamoDB Local left unprocessed.
func mergeUnprocessed[V any](resp []byte, field string, refused map[string]V, join func(have, add json.RawMessage) json.RawMessage) []byte {
	var out map[string]json.RawMessage
	if json.Unmarshal(resp, &out) != nil {
		return resp
	}
	var un map[string]json.RawMessage
	_ = json.Unmarshal(out[field], &un)
	if un == nil {
		un = map[string]json.RawMessage{}
	}
	for name, v := range refused {
		add, _ := json.Marshal(v)
		if have, ok := un[name]; ok {
			un[name] = join(have, add)
		} else {
			un[name] = add
		}
	}
	out[field] = replaceJSON(un)
	return replaceJSON(out)
}

// batchWrite answers BatchWriteItem: requests for items a transaction in flight holds, or
// whose partitions are short of write capacity, come back in UnprocessedItems
// (ProvisionedThroughputExceededException if throttling refused all of them).
func (x *exchange) batchWrite() error {
	var in map[string]json.RawMessage
	if err := x.unmarshalBody(&in); err != nil {
		return err
	}
	type writeReq struct {
		PutRequest    *struct{ Item Item } `json:",omitempty"`
		DeleteRequest *struct{ Key Item }  `json:",omitempty"`
	}
	var req map[string][]writeReq
	_ = json.Unmarshal(in["RequestItems"], &req)
	tables := map[string]*table{}
	var lockKeys []string
	for name, ws := range req {
		t, err := x.e.table(x.ctx(), name)
		if err != nil {
			return err
		}
		if t == nil {
			return x.relay()
		}
		tables[name] = t
		for _, w := range ws {
			var key Item
			if w.PutRequest != nil {
				key = w.PutRequest.Item
			} else if w.DeleteRequest != nil {
				key = w.DeleteRequest.Key
			}
			lockKeys = append(lockKeys, lockKey(name, t.itemKey(key)))
		}
	}
	h, busy, err := x.e.lockPlain(x.ctx(), lockKeys)
	if err != nil {
		return err
	}
	defer x.e.unlock(h)
	if x.e.meter != nil {
		if err := x.e.drainTables(x.ctx(), tables); err != nil {
			return err
		}
	}
	admitted := map[string][]writeReq{}
	refused := map[string][]writeReq{}
	reserved := capacity.Demand{}
	var shortage *capacity.Shortage
	var shortTable *table
	for _, name := range sortedKeys(req) {
		t := tables[name]
		for _, w := range req[name] {
			key, item, op := Item(nil), Item(nil), "Delete"
			if w.PutRequest != nil {
				key, item, op = w.PutRequest.Item, w.PutRequest.Item, "Put"
			} else if w.DeleteRequest != nil {
				key = w.DeleteRequest.Key
			}
			k := t.itemKey(key)
			if busy[lockKey(name, k)] {
				refused[name] = append(refused[name], w)
				continue
			}
			if x.e.meter != nil {
				t.mu.Lock()
				old := t.images[k]
				t.mu.Unlock()
				d := capacity.Demand{}
				d.AddWriteOf(t.name, t.partitionKey(key), old, estimateNew(t, op, old, item), 1)
				if s := x.e.meter.Reserve(d); s != nil {
					x.e.faults.add(FaultCounts{Throttled: 1})
					shortage, shortTable = s, t
					refused[name] = append(refused[name], w)
					continue
				}
				for p, u := range d {
					reserved.AddWrite(p, u.Write)
				}
			}
			admitted[name] = append(admitted[name], w)
		}
	}
	if len(admitted) == 0 && len(refused) > 0 {
		if shortage != nil {
			x.e.faults.add(FaultCounts{Throttled: -1}) // counted per item above
			return x.throttled(shortTable, shortage)
		}
		b, _ := json.Marshal(map[string]any{"UnprocessedItems": refused})
		x.reply(http.StatusOK, b)
		return nil
	}
	in["RequestItems"], _ = json.Marshal(admitted)
	status, resp, err := x.forward(replaceJSON(in))
	if err != nil {
		if x.e.meter != nil {
			x.e.meter.Settle(reserved, nil)
		}
		return err
	}
	for _, t := range tables {
		if derr := x.e.afterWrite(x, t); derr != nil {
			err = derr
		}
	}
	if x.e.meter != nil {
		actual := capacity.Demand{}
		if status == http.StatusOK {
			for _, c := range x.e.takeRecords(h) {
				t := tables[c.Table]
				actual.AddWriteOf(t.name, t.partitionKey(c.Key), t.image(c.Old), t.image(c.New), 1)
			}
		}
		x.e.meter.Settle(reserved, actual)
		if status == http.StatusOK {
			resp = reportWrites(resp, actual, false)
		}
	}
	if err != nil {
		return err
	}
	if status == http.StatusOK && len(refused) > 0 {
		resp = mergeUnprocessed(resp, "UnprocessedItems", refused, func(have, add json.RawMessage) json.RawMessage {
			var a, b []json.RawMessage
			_ = json.Unmarshal(have, &a)
			_ = json.Unmarshal(add, &b)
			out, _ := json.Marshal(append(a, b...))
			return out
		})
	}
	x.reply(status, resp)
	return nil
}

// afterWrite reads t's stream right after a write when that matters: for capacity
// accounting (the records are handed to the request) and with an index lag (a change's
// lag starts when it is read). Otherwise the next index read reads the stream.
func (e *Engine) afterWrite(x *exchange, t *table) error {
	e.mu.Lock()
	lagging := e.lag.Max > 0
	e.mu.Unlock()
	t.mu.Lock()
	defer t.mu.Unlock()
	if e.meter == nil && !(t.shadowReady && lagging) {
		return nil
	}
	return e.drain(x.ctx(), t)
}

// drainTables reads the streams of tables (see drain).
func (e *Engine) drainTables(ctx context.Context, tables map[string]*table) error {
	for _, t := range tables {
		t.mu.Lock()
		err := e.drain(ctx, t)
		t.mu.Unlock()
		if err != nil {
			return err
		}
	}
	return nil
}
