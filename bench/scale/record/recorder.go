package record

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/pickem/api/dynamo/ddb"
	"github.com/pickem/api/dynamo/table"
	"github.com/pickem/api/internal/capacity"
)

// recorder keeps a trace of the DynamoDB calls made with its context (withRecorder),
// through the store's observer hook (ddb.Observer): per call, the operation, every table
// and index partition it read or wrote, the items it touched, their sizes and the units
// they cost by AWS's rules (package capacity).
//
// For writes the recorder reads the items before and after the call (consistent reads
// made outside the trace), so that it knows their sizes and what the write did to the
// index: an index key change shows as a delete of the old entry plus a put of the new one.
// Those extra reads make recording slow; it is a measuring tool, never used in serving.
// Concurrent calls touching the same item may see each other's images.
type recorder struct {
	db    ddb.API
	table string // the table's name
	start time.Time

	mu    sync.Mutex
	calls []tracedCall
}

// tracedCall is one DynamoDB call as the recorder saw it (SDK retries included: the
// call's final outcome), before abstractCall makes it a Call of a recording.
type tracedCall struct {
	Op string
	// Start and End are offsets from the recorder's creation, in microseconds. They
	// include the recorder's own reads of the items a write touches, so that calls
	// issued at once overlap in the trace as they did in the code.
	Start, End int64
	// Consistent is set on strongly consistent reads.
	Consistent bool
	// Error is the API error code of a failed call; Reasons the per-item cancellation
	// reasons of a cancelled transaction.
	Error    string
	Reasons  []string
	Accesses Accesses
	// ReportedRCU and ReportedWCU are the units the engine reported (nil: none).
	ReportedRCU, ReportedWCU *float64
	// Cache is the read-cache entry (ddb.Cache) the call was made to fill, "" for a
	// call outside any fill. With the cache on, a process makes such a call only when
	// that entry is missing or older than the TTL; recorded with the cache off, every
	// request makes it, and the model decides.
	Cache string
}

// newRecorder returns a recorder for calls on the table name. db reads the before and after
// images of written items; its own reads are not recorded. With a nil db the recorder
// reads no images: writes are recorded with their keys and times but no sizes, units or
// index writes.
func newRecorder(db ddb.API, name string) *recorder {
	return &recorder{db: db, table: name, start: time.Now()}
}

// withRecorder returns a context whose DynamoDB calls (through a client with
// ddb.CostOption) are recorded by r.
func withRecorder(ctx context.Context, r *recorder) context.Context {
	return ddb.WithObserver(ctx, r)
}

// Begin records the call op with input params (it implements ddb.Observer).
func (r *recorder) Begin(op string, params any, cacheEntry string) (func(result any, err error, readUnits, writeUnits *float64) error, error) {
	p, err := r.begin(op, params)
	if err != nil {
		return nil, err
	}
	p.cache = cacheEntry
	return func(result any, callErr error, readUnits, writeUnits *float64) error {
		return r.end(p, params, result, callErr, readUnits, writeUnits)
	}, nil
}

// take returns the calls recorded so far, in the order they ended, and forgets them.
func (r *recorder) take() []tracedCall {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.calls
	r.calls = nil
	return c
}

// image is what capacity needs of an item: its size and its key in the index.
func image(item map[string]types.AttributeValue) *capacity.Image {
	if item == nil {
		return nil
	}
	im := &capacity.Image{Size: table.ItemSize(item)}
	pk, ok1 := item[table.AttrGSIPK].(*types.AttributeValueMemberS)
	sk, ok2 := item[table.AttrGSISK].(*types.AttributeValueMemberS)
	if ok1 && ok2 {
		im.IndexKeys = map[string]capacity.IndexKey{table.IndexName: {Partition: pk.Value, Sort: sk.Value}}
	}
	return im
}

// written is one item a write call touches.
type written struct {
	key  map[string]types.AttributeValue
	kind string
	txn  bool
}

// pending is a call being recorded: the items it writes and their images before it ran.
type pending struct {
	op      string
	writes  []written
	before  []map[string]types.AttributeValue
	started time.Time // before the recorder's reads of the before images
	cache   string    // the read-cache entry the call fills (ddb.Cached)
}

// begin notes what a call will write and reads those items' current images.
func (r *recorder) begin(op string, params any) (*pending, error) {
	p := &pending{op: op, started: time.Now()}
	switch in := params.(type) {
	case *dynamodb.PutItemInput:
		p.writes = []written{{key: keyOf(in.Item), kind: AccessPut}}
	case *dynamodb.UpdateItemInput:
		p.writes = []written{{key: in.Key, kind: AccessUpdate}}
	case *dynamodb.DeleteItemInput:
		p.writes = []written{{key: in.Key, kind: AccessDelete}}
	case *dynamodb.TransactWriteItemsInput:
		for _, it := range in.TransactItems {
			switch {
			case it.Put != nil:
				p.writes = append(p.writes, written{key: keyOf(it.Put.Item), kind: AccessPut, txn: true})
			case it.Update != nil:
				p.writes = append(p.writes, written{key: it.Update.Key, kind: AccessUpdate, txn: true})
			case it.Delete != nil:
				p.writes = append(p.writes, written{key: it.Delete.Key, kind: AccessDelete, txn: true})
			case it.ConditionCheck != nil:
				p.writes = append(p.writes, written{key: it.ConditionCheck.Key, kind: AccessCheck, txn: true})
			}
		}
	case *dynamodb.BatchWriteItemInput:
		return nil, fmt.Errorf("scale: recorder: BatchWriteItem is not traced")
	}
	var err error
	p.before, err = r.images(p.writes)
	return p, err
}

func keyOf(item map[string]types.AttributeValue) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{table.AttrPK: item[table.AttrPK], table.AttrSK: item[table.AttrSK]}
}

// images reads the current image of every written item (nil where absent) with
// consistent BatchGetItems, outside any trace.
func (r *recorder) images(ws []written) ([]map[string]types.AttributeValue, error) {
	out := make([]map[string]types.AttributeValue, len(ws))
	if len(ws) == 0 || r.db == nil {
		return out, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	found := map[string]map[string]types.AttributeValue{}
	for start := 0; start < len(ws); start += 100 {
		var keys []map[string]types.AttributeValue
		for _, w := range ws[start:min(start+100, len(ws))] {
			keys = append(keys, w.key)
		}
		req := map[string]types.KeysAndAttributes{r.table: {Keys: keys, ConsistentRead: aws.Bool(true)}}
		for len(req) > 0 {
			res, err := r.db.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: req})
			if err != nil {
				return nil, fmt.Errorf("scale: recorder: read images: %w", err)
			}
			for _, item := range res.Responses[r.table] {
				found[itemKeyString(item)] = item
			}
			req = res.UnprocessedKeys
		}
	}
	for i, w := range ws {
		out[i] = found[itemKeyString(w.key)]
	}
	return out, nil
}

func itemKeyString(item map[string]types.AttributeValue) string {
	return table.ItemString(item, table.AttrPK) + "\x00" + table.ItemString(item, table.AttrSK)
}

// end records a finished call from its input, output and error.
func (r *recorder) end(p *pending, params, result any, callErr error, reportedRCU, reportedWCU *float64) error {
	c := tracedCall{Op: p.op, Start: p.started.Sub(r.start).Microseconds(), ReportedRCU: reportedRCU, ReportedWCU: reportedWCU, Cache: p.cache}
	var apiErr smithy.APIError
	if errors.As(callErr, &apiErr) {
		c.Error = apiErr.ErrorCode()
	} else if callErr != nil {
		c.Error = callErr.Error()
	}
	if reasons, ok := ddb.CancellationReasons(callErr); ok {
		for _, rs := range reasons {
			c.Reasons = append(c.Reasons, aws.ToString(rs.Code))
		}
	}
	switch in := params.(type) {
	case *dynamodb.GetItemInput:
		c.Consistent = aws.ToBool(in.ConsistentRead)
		if out, ok := result.(*dynamodb.GetItemOutput); ok {
			n := table.ItemSize(out.Item)
			items := 0
			if out.Item != nil {
				items = 1
			}
			c.Accesses = append(c.Accesses, Access{PK: table.ItemString(in.Key, table.AttrPK), SK: table.ItemString(in.Key, table.AttrSK),
				Kind: AccessRead, Items: items, Bytes: n, RCU: capacity.ReadUnits(n, c.Consistent)})
		}
	case *dynamodb.BatchGetItemInput:
		c.Consistent = aws.ToBool(in.RequestItems[r.table].ConsistentRead)
		if out, ok := result.(*dynamodb.BatchGetItemOutput); ok {
			// Every key processed costs a read, found or not, like a GetItem.
			found := map[string]map[string]types.AttributeValue{}
			for _, item := range out.Responses[r.table] {
				found[itemKeyString(item)] = item
			}
			unprocessed := map[string]bool{}
			for _, k := range out.UnprocessedKeys[r.table].Keys {
				unprocessed[itemKeyString(k)] = true
			}
			for _, k := range in.RequestItems[r.table].Keys {
				ks := itemKeyString(k)
				if unprocessed[ks] {
					continue
				}
				a := Access{PK: table.ItemString(k, table.AttrPK), SK: table.ItemString(k, table.AttrSK), Kind: AccessRead}
				if item := found[ks]; item != nil {
					a.Items, a.Bytes = 1, table.ItemSize(item)
				}
				a.RCU = capacity.ReadUnits(a.Bytes, c.Consistent)
				c.Accesses = append(c.Accesses, a)
			}
		}
	case *dynamodb.QueryInput:
		c.Consistent = aws.ToBool(in.ConsistentRead)
		if out, ok := result.(*dynamodb.QueryOutput); ok {
			items := out.Items
			if in.Select == types.SelectCount || in.ProjectionExpression != nil {
				// DynamoDB bills the whole items read, not what comes back: read them.
				var err error
				if items, err = r.wholeItems(in); err != nil {
					return err
				}
			}
			a := Access{Index: aws.ToString(in.IndexName), PK: queryPartition(in), Kind: AccessRead, Items: len(items)}
			for _, item := range items {
				a.Bytes += table.ItemSize(item)
			}
			a.RCU = capacity.ReadUnits(a.Bytes, c.Consistent)
			c.Accesses = append(c.Accesses, a)
		}
	default:
		after, err := r.images(p.writes)
		if err != nil {
			return err
		}
		for i, w := range p.writes {
			before, now := p.before[i], after[i]
			bn, an := table.ItemSize(before), table.ItemSize(now)
			a := Access{PK: table.ItemString(w.key, table.AttrPK), SK: table.ItemString(w.key, table.AttrSK), Kind: w.kind, Txn: w.txn, Bytes: max(bn, an)}
			switch {
			case w.kind == AccessCheck:
				a.WCU = capacity.CheckUnits(bn)
			case w.txn:
				a.WCU = capacity.Transaction * capacity.WriteUnits(a.Bytes)
			default:
				a.WCU = capacity.WriteUnits(a.Bytes)
			}
			c.Accesses = append(c.Accesses, a)
			if reflect.DeepEqual(before, now) {
				continue // nothing changed (a check, a failed or a no-op write): nothing reaches the index
			}
			for _, iw := range capacity.IndexWrites(image(before), image(now)) {
				c.Accesses = append(c.Accesses, Access{Index: iw.Index, PK: iw.Key.Partition, SK: iw.Key.Sort,
					Kind: iw.Kind, Txn: w.txn, Bytes: iw.Size, WCU: iw.Units})
			}
		}
	}
	c.End = time.Since(r.start).Microseconds()
	r.mu.Lock()
	r.calls = append(r.calls, c)
	r.mu.Unlock()
	return nil
}

// wholeItems reads again, outside the trace, the page a Query with Select COUNT or a
// projection read, with every attribute: the same page (DynamoDB's 1 MB limit applies to
// the items read either way), for their sizes.
func (r *recorder) wholeItems(in *dynamodb.QueryInput) ([]map[string]types.AttributeValue, error) {
	if r.db == nil {
		return nil, nil
	}
	q := *in
	q.Select, q.ProjectionExpression = "", nil
	q.ReturnConsumedCapacity = ""
	// Names only the projection used would now be unused, which DynamoDB refuses.
	if in.ExpressionAttributeNames != nil {
		q.ExpressionAttributeNames = map[string]string{}
		used := aws.ToString(in.KeyConditionExpression) + " " + aws.ToString(in.FilterExpression)
		for k, v := range in.ExpressionAttributeNames {
			if strings.Contains(used, k) {
				q.ExpressionAttributeNames[k] = v
			}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := r.db.Query(ctx, &q)
	if err != nil {
		return nil, fmt.Errorf("scale: recorder: read a counted page: %w", err)
	}
	return out.Items, nil
}

// keyEquals matches "#name = :value" in a key condition built by the expression builder.
var keyEquals = regexp.MustCompile(`(#\w+)\s*=\s*(:\w+)`)

// queryPartition returns the partition key value a Query reads.
func queryPartition(in *dynamodb.QueryInput) string {
	want := table.AttrPK
	if aws.ToString(in.IndexName) == table.IndexName {
		want = table.AttrGSIPK
	}
	for _, m := range keyEquals.FindAllStringSubmatch(aws.ToString(in.KeyConditionExpression), -1) {
		if in.ExpressionAttributeNames[m[1]] == want {
			if v, ok := in.ExpressionAttributeValues[m[2]].(*types.AttributeValueMemberS); ok {
				return v.Value
			}
		}
	}
	return "?"
}
