package embedded

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/pickem/api/dynamo"
	"github.com/pickem/api/internal/dynamotest"
)

func TestMain(m *testing.M) { dynamotest.Main(m) }

// The key space of the parity test: the production table's key attributes, partition keys
// that are prefixes of one another across the composite-key separator ("USER#a", "USER#a.b",
// "USER#ab"), sort keys shaped like the store's, and a sparse index.
var (
	parityPKs    = []string{"USER#a", "USER#a.b", "USER#ab", "EVENT", "USER#é"}
	paritySKs    = []string{"USER", "EVENT#2026-01-01-x", "EVENT#2026-02-01-y", "STANDINGS#2026", "MATCH#1"}
	parityGSIPKs = []string{"EVENT#e1", "EVENT#e1.x", "STANDINGS#2026"}
	parityGSISKs = []string{"CARD#000", "CARD#001", "SCORE#000000010#a", "SCORE#000000020#b", "UNSCORED#a", "UNSCORED#c"}
)

// engines is the same table on DynamoDB Local (the reference) and on the embedded engine.
type engines struct {
	t      *testing.T
	table  string
	ref    *dynamodb.Client
	emb    *dynamodb.Client
	rnd    *rand.Rand
	counts map[string]int // outcomes, to show the test exercised what it claims
}

// TestParityWithDynamoDBLocal applies the same random writes (puts, updates that move and
// remove index keys, deletes, conditional writes, transactions that cancel) to DynamoDB
// Local and to the embedded engine, and after every few writes checks that every item and
// every Query the store makes (forward, backward, sort-key ranges, paged by Limit, on the
// table and on the index) answer the same on both. It guards the patch of minidyn
// (third_party/minidyn/PATCH.md): partition-scoped queries, the sorted index, per-item
// transaction rollback and REMOVE.
func TestParityWithDynamoDBLocal(t *testing.T) {
	ctx := t.Context()
	eng, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Stop(context.Background())
	emb, err := dynamo.NewClient(ctx, eng.Endpoint)
	if err != nil {
		t.Fatal(err)
	}
	seed := uint64(20261123)
	e := &engines{t: t, table: dynamotest.TableName(), ref: dynamotest.Client(t), emb: emb,
		rnd: rand.New(rand.NewPCG(seed, seed)), counts: map[string]int{}}
	for _, c := range []*dynamodb.Client{e.ref, e.emb} {
		if err := dynamo.New(c, e.table).EnsureTable(ctx); err != nil {
			t.Fatal(err)
		}
	}

	const writes, checkEvery = 400, 80
	for i := 1; i <= writes; i++ {
		e.write(ctx, i)
		if i%checkEvery == 0 {
			e.compare(ctx, i)
			if t.Failed() {
				t.FailNow()
			}
		}
	}
	t.Logf("seed %d, outcomes %v", seed, e.counts)
	for _, want := range []string{"TransactWriteItems ok", "TransactWriteItems TransactionCanceledException ConditionalCheckFailed at item 0", "UpdateItem ConditionalCheckFailedException", "PutItem ok", "DeleteItem ok"} {
		if e.counts[want] == 0 {
			t.Errorf("no %q among the random writes: the test did not exercise it", want)
		}
	}
}

func (e *engines) pick(xs []string) string { return xs[e.rnd.IntN(len(xs))] }

func sv(s string) types.AttributeValue { return &types.AttributeValueMemberS{Value: s} }
func nv(n int) types.AttributeValue    { return &types.AttributeValueMemberN{Value: fmt.Sprint(n)} }

func (e *engines) key() map[string]types.AttributeValue {
	return map[string]types.AttributeValue{"PK": sv(e.pick(parityPKs)), "SK": sv(e.pick(paritySKs))}
}

func (e *engines) item() map[string]types.AttributeValue {
	it := e.key()
	it["v"] = nv(e.rnd.IntN(4))
	it["tag"] = sv(e.pick([]string{"x", "y"}))
	if e.rnd.IntN(4) > 0 {
		it["GSI_PK"] = sv(e.pick(parityGSIPKs))
		it["GSI_SK"] = sv(e.pick(parityGSISKs))
	}
	return it
}

// condition returns a random condition and its values, or nil.
func (e *engines) condition() (*string, map[string]types.AttributeValue) {
	switch e.rnd.IntN(4) {
	case 0:
		return aws.String("attribute_not_exists(PK)"), nil
	case 1:
		return aws.String("attribute_exists(PK)"), nil
	case 2:
		return aws.String("v = :old"), map[string]types.AttributeValue{":old": nv(e.rnd.IntN(4))}
	}
	return nil, nil
}

func (e *engines) update(key map[string]types.AttributeValue) *types.Update {
	cond, vals := e.condition()
	if vals == nil {
		vals = map[string]types.AttributeValue{}
	}
	vals[":v"] = nv(e.rnd.IntN(4))
	expr := "SET v = :v"
	switch e.rnd.IntN(4) {
	case 0:
		expr += ", GSI_SK = :g"
		vals[":g"] = sv(e.pick(parityGSISKs))
	case 1:
		expr += " REMOVE GSI_SK"
	case 2:
		expr += " REMOVE tag"
	}
	return &types.Update{TableName: aws.String(e.table), Key: key, UpdateExpression: aws.String(expr),
		ConditionExpression: cond, ExpressionAttributeValues: vals}
}

// write makes one random write on both engines and checks they agree on its outcome.
func (e *engines) write(ctx context.Context, i int) {
	var op string
	var run func(c *dynamodb.Client) error
	switch e.rnd.IntN(5) {
	case 0, 1:
		op = "PutItem"
		in := &dynamodb.PutItemInput{TableName: aws.String(e.table), Item: e.item()}
		in.ConditionExpression, in.ExpressionAttributeValues = e.condition()
		run = func(c *dynamodb.Client) error { _, err := c.PutItem(ctx, in); return err }
	case 2:
		op = "UpdateItem"
		u := e.update(e.key())
		in := &dynamodb.UpdateItemInput{TableName: u.TableName, Key: u.Key, UpdateExpression: u.UpdateExpression,
			ConditionExpression: u.ConditionExpression, ExpressionAttributeValues: u.ExpressionAttributeValues}
		run = func(c *dynamodb.Client) error { _, err := c.UpdateItem(ctx, in); return err }
	case 3:
		op = "DeleteItem"
		in := &dynamodb.DeleteItemInput{TableName: aws.String(e.table), Key: e.key()}
		in.ConditionExpression, in.ExpressionAttributeValues = e.condition()
		run = func(c *dynamodb.Client) error { _, err := c.DeleteItem(ctx, in); return err }
	default:
		op = "TransactWriteItems"
		var items []types.TransactWriteItem
		seen := map[string]bool{}
		for len(items) < 2+e.rnd.IntN(3) {
			k := e.key()
			id := k["PK"].(*types.AttributeValueMemberS).Value + "|" + k["SK"].(*types.AttributeValueMemberS).Value
			if seen[id] {
				continue
			}
			seen[id] = true
			switch e.rnd.IntN(4) {
			case 0:
				it := e.item()
				it["PK"], it["SK"] = k["PK"], k["SK"]
				items = append(items, types.TransactWriteItem{Put: &types.Put{TableName: aws.String(e.table), Item: it}})
			case 1:
				items = append(items, types.TransactWriteItem{Update: e.update(k)})
			case 2:
				items = append(items, types.TransactWriteItem{Delete: &types.Delete{TableName: aws.String(e.table), Key: k}})
			default:
				cond, vals := e.condition()
				if cond == nil {
					cond = aws.String("attribute_exists(PK)")
				}
				items = append(items, types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{TableName: aws.String(e.table),
					Key: k, ConditionExpression: cond, ExpressionAttributeValues: vals}})
			}
		}
		in := &dynamodb.TransactWriteItemsInput{TransactItems: items}
		run = func(c *dynamodb.Client) error { _, err := c.TransactWriteItems(ctx, in); return err }
	}
	want, got := outcome(run(e.ref)), outcome(run(e.emb))
	e.counts[op+" "+want]++
	if want != got {
		e.t.Errorf("write %d (%s): DynamoDB Local %s, embedded %s", i, op, want, got)
	}
}

// outcome names a write's result: ok, the error type, and for a cancelled transaction the
// first item whose condition failed (minidyn names only that one; DynamoDB names them all,
// a known gap the store copes with).
func outcome(err error) string {
	var tce *types.TransactionCanceledException
	var ccf *types.ConditionalCheckFailedException
	switch {
	case err == nil:
		return "ok"
	case errors.As(err, &tce):
		first := slices.IndexFunc(tce.CancellationReasons, func(r types.CancellationReason) bool {
			return aws.ToString(r.Code) != "None"
		})
		if first < 0 {
			return "TransactionCanceledException without a reason"
		}
		return fmt.Sprintf("TransactionCanceledException %s at item %d", aws.ToString(tce.CancellationReasons[first].Code), first)
	case errors.As(err, &ccf):
		return "ConditionalCheckFailedException"
	}
	return "error: " + err.Error()
}

// compare checks that the engines hold the same items and answer the same queries.
func (e *engines) compare(ctx context.Context, i int) {
	e.t.Helper()
	want, got := e.scan(ctx, e.ref), e.scan(ctx, e.emb)
	if !slices.Equal(want, got) {
		e.t.Errorf("after write %d, items differ:\nDynamoDB Local %v\nembedded       %v", i, want, got)
	}
	type keyCond struct {
		expr string
		vals map[string]types.AttributeValue
	}
	ranges := []keyCond{
		{"", nil},
		{" AND begins_with(#sk, :p)", map[string]types.AttributeValue{":p": sv("EVENT#")}},
		{" AND #sk BETWEEN :lo AND :hi", map[string]types.AttributeValue{":lo": sv("CARD#"), ":hi": sv("CARD$")}},
		{" AND #sk < :hi", map[string]types.AttributeValue{":hi": sv("SCORE$")}},
		{" AND #sk > :lo", map[string]types.AttributeValue{":lo": sv("MATCH#1")}},
		{" AND #sk >= :lo", map[string]types.AttributeValue{":lo": sv("SCORE#000000020#b")}},
	}
	queries := 0
	for _, index := range []string{"", "GSI"} {
		pks, pkAttr, skAttr := parityPKs, "PK", "SK"
		if index != "" {
			pks, pkAttr, skAttr = parityGSIPKs, "GSI_PK", "GSI_SK"
		}
		for _, pk := range pks {
			for _, r := range ranges {
				for _, forward := range []bool{true, false} {
					for _, limit := range []int32{0, 2} {
						vals := map[string]types.AttributeValue{":pk": sv(pk)}
						for k, v := range r.vals {
							vals[k] = v
						}
						in := &dynamodb.QueryInput{TableName: aws.String(e.table), KeyConditionExpression: aws.String("#pk = :pk" + r.expr),
							ExpressionAttributeNames: map[string]string{"#pk": pkAttr}, ExpressionAttributeValues: vals,
							ScanIndexForward: aws.Bool(forward)}
						if r.expr != "" {
							in.ExpressionAttributeNames["#sk"] = skAttr
						}
						if index != "" {
							in.IndexName = aws.String(index)
						}
						if limit > 0 {
							in.Limit = aws.Int32(limit)
						}
						want, got := e.query(ctx, e.ref, in, index != ""), e.query(ctx, e.emb, in, index != "")
						queries++
						if !slices.Equal(want, got) {
							e.t.Errorf("after write %d, Query index %q %s = %s%s forward %v limit %d:\nDynamoDB Local %v\nembedded       %v",
								i, index, pkAttr, pk, r.expr, forward, limit, want, got)
						}
					}
				}
			}
		}
	}
	e.counts["queries compared"] += queries
}

// scan returns every item of the table, as JSON, sorted.
func (e *engines) scan(ctx context.Context, c *dynamodb.Client) []string {
	var out []string
	p := dynamodb.NewScanPaginator(c, &dynamodb.ScanInput{TableName: aws.String(e.table)})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			e.t.Fatal(err)
		}
		for _, it := range page.Items {
			out = append(out, itemJSON(e.t, it))
		}
	}
	slices.Sort(out)
	return out
}

// query runs in to the end, page by page, and returns the items as JSON in the order
// returned; on the index, items with equal index keys (whose order DynamoDB leaves open)
// are sorted among themselves.
func (e *engines) query(ctx context.Context, c *dynamodb.Client, in *dynamodb.QueryInput, index bool) []string {
	q := *in
	var items []map[string]types.AttributeValue
	for pages := 0; ; pages++ {
		out, err := c.Query(ctx, &q)
		if err != nil {
			e.t.Fatal(err)
		}
		if q.Limit != nil && len(out.Items) > int(*q.Limit) {
			e.t.Fatalf("a page of %d items with Limit %d", len(out.Items), *q.Limit)
		}
		items = append(items, out.Items...)
		if len(out.LastEvaluatedKey) == 0 || pages > 50 {
			break
		}
		q.ExclusiveStartKey = out.LastEvaluatedKey
	}
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = itemJSON(e.t, it)
	}
	if index {
		for lo := 0; lo < len(items); {
			hi := lo + 1
			for hi < len(items) && attrString(items[hi], "GSI_SK") == attrString(items[lo], "GSI_SK") {
				hi++
			}
			slices.Sort(out[lo:hi])
			lo = hi
		}
	}
	return out
}

func attrString(it map[string]types.AttributeValue, name string) string {
	if s, ok := it[name].(*types.AttributeValueMemberS); ok {
		return s.Value
	}
	return ""
}

func itemJSON(t *testing.T, it map[string]types.AttributeValue) string {
	var m map[string]any
	if err := attributevalue.UnmarshalMap(it, &m); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
