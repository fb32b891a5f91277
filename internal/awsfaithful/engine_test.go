package awsfaithful_test

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/pickem/api/internal/awsfaithful"
	"github.com/pickem/api/internal/capacity"
	"github.com/pickem/api/internal/dynamotest"
	"github.com/pickem/api/internal/testclock"
)

func TestMain(m *testing.M) { dynamotest.Main(m) }

const index = "GSI"

// newTable creates a table shaped like the project's (PK/SK, one GSI on GSI_PK/GSI_SK
// projecting all) through db and returns its name.
func newTable(t *testing.T, db *dynamodb.Client) string {
	t.Helper()
	name := dynamotest.TableName()
	s := func(n string) types.AttributeDefinition {
		return types.AttributeDefinition{AttributeName: aws.String(n), AttributeType: types.ScalarAttributeTypeS}
	}
	k := func(n string, kt types.KeyType) types.KeySchemaElement {
		return types.KeySchemaElement{AttributeName: aws.String(n), KeyType: kt}
	}
	_, err := db.CreateTable(t.Context(), &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		AttributeDefinitions: []types.AttributeDefinition{s("PK"), s("SK"), s("GSI_PK"), s("GSI_SK")},
		KeySchema:            []types.KeySchemaElement{k("PK", types.KeyTypeHash), k("SK", types.KeyTypeRange)},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{
			IndexName:  aws.String(index),
			KeySchema:  []types.KeySchemaElement{k("GSI_PK", types.KeyTypeHash), k("GSI_SK", types.KeyTypeRange)},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
		}},
		BillingMode: types.BillingModePayPerRequest,
	})
	if err != nil {
		t.Fatalf("CreateTable: %v", err)
	}
	return name
}

func str(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }

// row is an item of the test table: attrs are name, value pairs.
func row(pk, sk string, attrs ...string) map[string]types.AttributeValue {
	it := map[string]types.AttributeValue{"PK": str(pk), "SK": str(sk)}
	for i := 0; i+1 < len(attrs); i += 2 {
		it[attrs[i]] = str(attrs[i+1])
	}
	return it
}

func put(table string, it map[string]types.AttributeValue) types.TransactWriteItem {
	return types.TransactWriteItem{Put: &types.Put{TableName: aws.String(table), Item: it}}
}

// queryIndex returns "SK=v" for each item of index partition gsiPK, in index order.
func queryIndex(t *testing.T, db *dynamodb.Client, table, gsiPK, attr string) []string {
	t.Helper()
	out, err := db.Query(t.Context(), &dynamodb.QueryInput{
		TableName: aws.String(table), IndexName: aws.String(index),
		KeyConditionExpression:    aws.String("GSI_PK = :p"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":p": str(gsiPK)},
	})
	if err != nil {
		t.Fatalf("Query %s: %v", gsiPK, err)
	}
	var got []string
	for _, it := range out.Items {
		v, _ := it[attr].(*types.AttributeValueMemberS)
		sk, _ := it["SK"].(*types.AttributeValueMemberS)
		got = append(got, sk.Value+"="+v.Value)
	}
	return got
}

func wantRows(t *testing.T, what string, got []string, want ...string) {
	t.Helper()
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("%s = %v, want %v", what, got, want)
	}
}

// A held change stays out of the index until released; other items' changes of the same
// transaction reach it (say, an event row in the index and its new match not yet).
func TestHeldIndexItemIsStaleUntilReleased(t *testing.T) {
	eng := awsfaithful.New(t, awsfaithful.Config{})
	db := eng.Client(t)
	table := newTable(t, db)
	ctx := t.Context()
	write := func(version string) {
		t.Helper()
		_, err := db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
			put(table, row("EVENT", "EVENT#e1", "GSI_PK", "EVENT#e1", "GSI_SK", "CARD#000", "type", "event", "v", version)),
			put(table, row("EVENT#e1", "MATCH#m1", "GSI_PK", "EVENT#e1", "GSI_SK", "CARD#001", "type", "match", "v", version)),
		}})
		if err != nil {
			t.Fatalf("TransactWriteItems: %v", err)
		}
	}
	write("1")
	wantRows(t, "index before the hold", queryIndex(t, db, table, "EVENT#e1", "v"), "EVENT#e1=1", "MATCH#m1=1")

	h := eng.HoldIndex(awsfaithful.Where("type", "match"))
	write("2")
	wantRows(t, "index while the match is held", queryIndex(t, db, table, "EVENT#e1", "v"), "EVENT#e1=2", "MATCH#m1=1")
	if err := eng.SyncIndex(ctx); err != nil {
		t.Fatal(err)
	}
	wantRows(t, "index after SyncIndex (a hold outlasts it)", queryIndex(t, db, table, "EVENT#e1", "v"), "EVENT#e1=2", "MATCH#m1=1")
	if n, err := eng.PendingIndexChanges(ctx, table); n != 1 || err != nil {
		t.Fatalf("pending index changes = %d, %v; want 1", n, err)
	}
	// The base table is current: a consistent read sees the new match.
	got, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: map[string]types.AttributeValue{"PK": str("EVENT#e1"), "SK": str("MATCH#m1")}, ConsistentRead: aws.Bool(true)})
	if err != nil || got.Item["v"].(*types.AttributeValueMemberS).Value != "2" {
		t.Fatalf("GetItem = %v, %v; want v=2", got, err)
	}

	h.Release()
	wantRows(t, "index after release", queryIndex(t, db, table, "EVENT#e1", "v"), "EVENT#e1=2", "MATCH#m1=2")
}

// FreezeIndex holds every change; a delete and a new item both wait.
func TestFrozenIndex(t *testing.T) {
	eng := awsfaithful.New(t, awsfaithful.Config{})
	db := eng.Client(t)
	table := newTable(t, db)
	ctx := t.Context()
	_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: row("A", "1", "GSI_PK", "P", "GSI_SK", "1", "v", "a")})
	if err != nil {
		t.Fatal(err)
	}
	frozen := eng.FreezeIndex()
	if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: row("B", "1", "GSI_PK", "P", "GSI_SK", "2", "v", "b")}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: row("A", "1")}); err != nil {
		t.Fatal(err)
	}
	wantRows(t, "frozen index", queryIndex(t, db, table, "P", "v"), "1=a")
	frozen.Release()
	wantRows(t, "thawed index", queryIndex(t, db, table, "P", "v"), "1=b")
}

// With a lag, a change reaches the index once the engine's clock has moved past it.
func TestIndexLag(t *testing.T) {
	clock := testclock.New(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	eng := awsfaithful.New(t, awsfaithful.Config{Now: clock.Now, IndexLag: awsfaithful.Lag{Min: time.Second, Max: 2 * time.Second}, Seed: 7})
	db := eng.Client(t)
	table := newTable(t, db)
	if _, err := db.PutItem(t.Context(), &dynamodb.PutItemInput{TableName: aws.String(table), Item: row("A", "1", "GSI_PK", "P", "GSI_SK", "1", "v", "a")}); err != nil {
		t.Fatal(err)
	}
	wantRows(t, "index before the lag", queryIndex(t, db, table, "P", "v"))
	clock.Set(clock.Now().Add(2 * time.Second))
	wantRows(t, "index after the lag", queryIndex(t, db, table, "P", "v"), "1=a")
}

// Writes made to DynamoDB Local directly (test fixtures) reach the shadow through the
// stream, and a table created before the engine saw it is taken over with its items.
func TestTakesOverExistingTable(t *testing.T) {
	direct := dynamotest.Client(t)
	table := newTable(t, direct)
	ctx := t.Context()
	if _, err := direct.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: row("A", "1", "GSI_PK", "P", "GSI_SK", "1", "v", "a")}); err != nil {
		t.Fatal(err)
	}
	eng := awsfaithful.New(t, awsfaithful.Config{})
	db := eng.Client(t)
	wantRows(t, "index of a table taken over", queryIndex(t, db, table, "P", "v"), "1=a")
	// A hold (of nothing) makes index reads come from the shadow.
	defer eng.HoldIndex(func(awsfaithful.Change) bool { return false }).Release()
	wantRows(t, "shadow of a table taken over", queryIndex(t, db, table, "P", "v"), "1=a")
	if _, err := direct.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: row("B", "1", "GSI_PK", "P", "GSI_SK", "2", "v", "b")}); err != nil {
		t.Fatal(err)
	}
	wantRows(t, "shadow after a direct write", queryIndex(t, db, table, "P", "v"), "1=a", "1=b")
}

// noRetries makes every throttle visible to the test.
func noRetries(o *dynamodb.Options) { o.RetryMaxAttempts = 1 }

// sized is row(pk, sk) padded so that it is exactly kb KB as DynamoDB counts it.
func sized(pk, sk string, kb int) map[string]types.AttributeValue {
	pad := kb*1024 - (2 + len(pk)) - (2 + len(sk)) - len("pad")
	return row(pk, sk, "pad", strings.Repeat("x", pad))
}

func wantThrottled(t *testing.T, err error, reason string) {
	t.Helper()
	var pte *types.ProvisionedThroughputExceededException
	if !errors.As(err, &pte) {
		t.Fatalf("err = %v, want ProvisionedThroughputExceededException", err)
	}
	if len(pte.ThrottlingReasons) != 1 || aws.ToString(pte.ThrottlingReasons[0].Reason) != reason {
		t.Fatalf("throttling reasons = %+v, want %s", pte.ThrottlingReasons, reason)
	}
}

// 1,000 WCU in one second on one partition pass; the 1,001st unit is throttled; another
// partition is not; a second later the partition has its 1,000 WCU again.
func TestWriteThrottlePerPartition(t *testing.T) {
	clock := testclock.New(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	eng := awsfaithful.New(t, awsfaithful.Config{Now: clock.Now, Capacity: capacity.Uniform(capacity.AWS)})
	db := eng.Client(t, noRetries)
	table := newTable(t, db)
	ctx := t.Context()
	putKB := func(pk, sk string, kb int) error {
		_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: sized(pk, sk, kb)})
		return err
	}
	for i := range 4 { // 4 × 250 KB = 1,000 WCU
		if err := putKB("HOT", fmt.Sprint(i), 250); err != nil {
			t.Fatalf("write %d (%d WCU so far): %v", i, 250*i, err)
		}
	}
	wantThrottled(t, putKB("HOT", "one-more", 1), "TableWriteKeyRangeThroughputExceeded")
	if err := putKB("COLD", "1", 1); err != nil {
		t.Fatalf("another partition: %v", err)
	}
	if u := eng.Used()[capacity.Partition{Table: table, Key: "HOT"}]; u.Write != 1000 {
		t.Fatalf("HOT used %v WCU, want 1000", u.Write)
	}
	clock.Advance(time.Second)
	if err := putKB("HOT", "one-more", 1); err != nil {
		t.Fatalf("a second later: %v", err)
	}
}

// Strongly consistent reads cost 1 RCU per 4 KB, eventually consistent ones half.
func TestReadThrottlePerPartition(t *testing.T) {
	clock := testclock.New(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	eng := awsfaithful.New(t, awsfaithful.Config{Now: clock.Now, Capacity: capacity.Uniform(capacity.Rate{Read: 2})})
	db := eng.Client(t, noRetries)
	table := newTable(t, db)
	ctx := t.Context()
	if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: sized("P", "1", 4)}); err != nil {
		t.Fatal(err)
	}
	get := func(consistent bool) error {
		_, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: row("P", "1"), ConsistentRead: aws.Bool(consistent)})
		return err
	}
	for i, consistent := range []bool{true, false, false} { // 1 + 0.5 + 0.5 RCU
		if err := get(consistent); err != nil {
			t.Fatalf("read %d: %v", i, err)
		}
	}
	wantThrottled(t, get(false), "TableReadKeyRangeThroughputExceeded")
	if u := eng.Used()[capacity.Partition{Table: table, Key: "P"}]; u.Read != 2 {
		t.Fatalf("used %v RCU, want 2", u.Read)
	}
}

// A write to an index partition short of capacity is throttled although its table
// partition has plenty, and the reason names the index.
func TestShortIndexPartitionThrottlesTableWrite(t *testing.T) {
	clock := testclock.New(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	limit := func(p capacity.Partition) capacity.Rate {
		if p.Index != "" {
			return capacity.Rate{Write: 2}
		}
		return capacity.AWS
	}
	eng := awsfaithful.New(t, awsfaithful.Config{Now: clock.Now, Capacity: limit})
	db := eng.Client(t, noRetries)
	table := newTable(t, db)
	ctx := t.Context()
	putItem := func(pk, gsiPK string) error {
		_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: row(pk, "1", "GSI_PK", gsiPK, "GSI_SK", pk)})
		return err
	}
	for _, pk := range []string{"A", "B"} {
		if err := putItem(pk, "HOT"); err != nil {
			t.Fatal(err)
		}
	}
	wantThrottled(t, putItem("C", "HOT"), "IndexWriteKeyRangeThroughputExceeded")
	if err := putItem("C", "COLD"); err != nil {
		t.Fatalf("another index partition: %v", err)
	}
	if err := putItem("F", "COLD"); err != nil { // COLD is now out of units
		t.Fatalf("another index partition: %v", err)
	}
	// In a transaction the throttled item is named (its index write costs 1, as outside one).
	_, err := db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		put(table, row("D", "1", "GSI_PK", "WARM", "GSI_SK", "D")),
		put(table, row("E", "1", "GSI_PK", "COLD", "GSI_SK", "E")),
	}})
	wantReasons(t, err, "None", "ThrottlingError")
}

// wantReasons checks a TransactionCanceledException's reason codes.
func wantReasons(t *testing.T, err error, codes ...string) {
	t.Helper()
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) {
		t.Fatalf("err = %v, want TransactionCanceledException", err)
	}
	var got []string
	for _, r := range tce.CancellationReasons {
		got = append(got, aws.ToString(r.Code))
	}
	if strings.Join(got, ",") != strings.Join(codes, ",") {
		t.Fatalf("cancellation reasons = %v, want %v", got, codes)
	}
}

// An index key change costs a delete of the old index entry and a put of the new one;
// entering the index a put; a transaction twice the units on the table (its index writes
// cost what they cost outside one).
func TestIndexKeyChangeCostsDeleteAndPut(t *testing.T) {
	eng := awsfaithful.New(t, awsfaithful.Config{Capacity: capacity.Uniform(capacity.AWS)})
	db := eng.Client(t, noRetries)
	table := newTable(t, db)
	ctx := t.Context()
	var reported *types.ConsumedCapacity // of the last UpdateItem
	update := func(expr string, values ...string) {
		t.Helper()
		var vals map[string]types.AttributeValue
		if len(values) > 0 {
			vals = map[string]types.AttributeValue{}
		}
		for i, v := range values {
			vals[fmt.Sprintf(":v%d", i)] = str(v)
		}
		out, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: row("A", "1"),
			UpdateExpression: aws.String(expr), ExpressionAttributeValues: vals, ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes})
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		reported = out.ConsumedCapacity
	}
	tablePart := capacity.Partition{Table: table, Key: "A"}
	idx := func(key string) capacity.Partition { return capacity.Partition{Table: table, Index: index, Key: key} }
	steps := []struct {
		name string
		do   func()
		want map[capacity.Partition]float64 // WCU used so far
	}{
		{"NotInIndex", func() { update("SET v = :v0", "x") }, map[capacity.Partition]float64{tablePart: 1}},
		{"EntersIndex", func() { update("SET GSI_PK = :v0, GSI_SK = :v1", "P", "1") }, map[capacity.Partition]float64{tablePart: 2, idx("P"): 1}},
		{"SortKeyChanges", func() { update("SET GSI_SK = :v0", "2") }, map[capacity.Partition]float64{tablePart: 3, idx("P"): 3}},
		{"PartitionChanges", func() { update("SET GSI_PK = :v0", "Q") }, map[capacity.Partition]float64{tablePart: 4, idx("P"): 4, idx("Q"): 1}},
		{"OtherAttribute", func() { update("SET v = :v0", "y") }, map[capacity.Partition]float64{tablePart: 5, idx("P"): 4, idx("Q"): 2}},
		{"TransactionDoublesTheTableOnly", func() {
			out, err := db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{{Update: &types.Update{
				TableName: aws.String(table), Key: row("A", "1"), UpdateExpression: aws.String("SET GSI_SK = :s"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":s": str("3")},
			}}}, ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
			if err != nil || len(out.ConsumedCapacity) != 1 {
				t.Fatalf("%v, consumed %+v", err, out.ConsumedCapacity)
			}
			reported = &out.ConsumedCapacity[0]
		}, map[capacity.Partition]float64{tablePart: 7, idx("P"): 4, idx("Q"): 4}},
		{"LeavesIndex", func() { update("REMOVE GSI_PK") }, map[capacity.Partition]float64{tablePart: 8, idx("P"): 4, idx("Q"): 5}},
	}
	for _, st := range steps {
		before := eng.Used()
		st.do()
		used := eng.Used()
		step := 0.0
		for p, want := range st.want {
			if used[p].Write != want {
				t.Errorf("%s: %s used %v WCU, want %v", st.name, p, used[p].Write, want)
			}
			step += used[p].Write - before[p].Write
		}
		// The answer reports what AWS would: table and index units together.
		if reported != nil && aws.ToFloat64(reported.CapacityUnits) != step {
			t.Errorf("%s: ConsumedCapacity %v, want %v", st.name, aws.ToFloat64(reported.CapacityUnits), step)
		}
		reported = nil
	}
}

// A transaction in flight holds its items: another transaction touching one is cancelled
// with TransactionConflict on that item, a plain write to one gets
// TransactionConflictException, other items are free, and the held transaction commits.
func TestConcurrentTransactionsConflict(t *testing.T) {
	eng := awsfaithful.New(t, awsfaithful.Config{})
	db := eng.Client(t, noRetries)
	table := newTable(t, db)
	ctx := t.Context()
	gate := eng.PauseTransactions(awsfaithful.Touches("A", "1"))
	first := make(chan error, 1)
	go func() {
		_, err := db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
			put(table, row("A", "1", "v", "first")),
		}})
		first <- err
	}()
	if err := gate.Paused(ctx); err != nil {
		t.Fatal(err)
	}
	_, err := db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		put(table, row("B", "1", "v", "second")),
		{ConditionCheck: &types.ConditionCheck{TableName: aws.String(table), Key: row("A", "1"), ConditionExpression: aws.String("attribute_not_exists(PK)")}},
	}})
	wantReasons(t, err, "None", "TransactionConflict")
	_, err = db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: row("A", "1", "v", "plain")})
	var tce *types.TransactionConflictException
	if !errors.As(err, &tce) {
		t.Fatalf("plain write to a held item: %v, want TransactionConflictException", err)
	}
	if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: row("C", "1", "v", "free")}); err != nil {
		t.Fatalf("plain write to a free item: %v", err)
	}
	gate.Release()
	if err := <-first; err != nil {
		t.Fatalf("held transaction: %v", err)
	}
	got, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: row("A", "1"), ConsistentRead: aws.Bool(true)})
	if err != nil || got.Item["v"].(*types.AttributeValueMemberS).Value != "first" {
		t.Fatalf("A = %v, %v; want the first transaction's", got.Item, err)
	}
	out, err := db.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(table), ConsistentRead: aws.Bool(true)})
	if err != nil || out.Count != 2 {
		t.Fatalf("table holds %d items (%v), want 2 (A, C): nothing of the cancelled writes", out.Count, err)
	}
}

// With a hold time, two transactions on one item sent together: one commits, the other
// is cancelled with TransactionConflict.
func TestTransactionHoldMakesOverlapConflict(t *testing.T) {
	eng := awsfaithful.New(t, awsfaithful.Config{TransactionHold: 300 * time.Millisecond})
	db := eng.Client(t, noRetries)
	table := newTable(t, db)
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = db.TransactWriteItems(t.Context(), &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
				put(table, row("A", "1", "v", fmt.Sprint(i))),
			}})
		}()
	}
	wg.Wait()
	ok, conflicted := 0, 0
	for _, err := range errs {
		var tce *types.TransactionCanceledException
		switch {
		case err == nil:
			ok++
		case errors.As(err, &tce):
			wantReasons(t, err, "TransactionConflict")
			conflicted++
		default:
			t.Fatalf("unexpected error: %v", err)
		}
	}
	if ok != 1 || conflicted != 1 {
		t.Fatalf("%d committed, %d conflicted; want 1 and 1", ok, conflicted)
	}
}

// Batches: a throttled partition's requests come back unprocessed.
func TestBatchesLeaveThrottledItemsUnprocessed(t *testing.T) {
	clock := testclock.New(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	eng := awsfaithful.New(t, awsfaithful.Config{Now: clock.Now, Capacity: capacity.Uniform(capacity.Rate{Read: 1, Write: 2})})
	db := eng.Client(t, noRetries)
	table := newTable(t, db)
	ctx := t.Context()
	var reqs []types.WriteRequest
	for _, k := range []string{"1", "2", "3"} {
		reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: row("P", k)}})
	}
	reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: row("Q", "1")}})
	out, err := db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{table: reqs}})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(out.UnprocessedItems[table]); n != 1 {
		t.Fatalf("%d unprocessed writes, want 1", n)
	}
	keys := []map[string]types.AttributeValue{row("P", "1"), row("P", "2"), row("Q", "1")}
	got, err := db.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{table: {Keys: keys, ConsistentRead: aws.Bool(true)}}})
	if err != nil {
		t.Fatal(err)
	}
	if n, u := len(got.Responses[table]), len(got.UnprocessedKeys[table].Keys); n != 2 || u != 1 {
		t.Fatalf("%d items read, %d keys unprocessed; want 2 and 1", n, u)
	}
}

// Toxiproxy between the client and the engine: latency delays answers, a reset fails the
// call at once, a black hole never answers (the client's timeout ends the attempt), and
// Clear restores the connection.
func TestNetworkFaults(t *testing.T) {
	eng := awsfaithful.New(t, awsfaithful.Config{})
	netw := awsfaithful.NewNetwork(t, eng.Endpoint())
	httpc := &http.Client{Timeout: time.Second, Transport: http.DefaultTransport.(*http.Transport).Clone()}
	t.Cleanup(httpc.CloseIdleConnections)
	db := dynamotest.Client(t, noRetries, func(o *dynamodb.Options) {
		o.BaseEndpoint, o.HTTPClient = aws.String(netw.Endpoint()), httpc
	})
	table := newTable(t, db)
	get := func() (time.Duration, error) {
		start := time.Now()
		_, err := db.GetItem(t.Context(), &dynamodb.GetItemInput{TableName: aws.String(table), Key: row("A", "1")})
		return time.Since(start), err
	}
	if _, err := get(); err != nil {
		t.Fatalf("no fault: %v", err)
	}
	if err := netw.Latency(300 * time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if took, err := get(); err != nil || took < 300*time.Millisecond {
		t.Fatalf("latency: took %v, %v; want an answer after at least 300ms", took, err)
	}
	netw.Clear()
	if err := netw.ResetPeer(); err != nil {
		t.Fatal(err)
	}
	// The request cannot be sent: "connection reset by peer", EOF or "use of closed network
	// connection", depending on when the reset meets the client.
	var sendErr *smithyhttp.RequestSendError
	if _, err := get(); !errors.As(err, &sendErr) {
		t.Fatalf("reset: %v, want a failed send", err)
	}
	netw.Clear()
	if err := netw.BlackHole(); err != nil {
		t.Fatal(err)
	}
	if _, err := get(); err == nil || !strings.Contains(err.Error(), "Client.Timeout") {
		t.Fatalf("black hole: %v, want the client's timeout", err)
	}
	netw.Clear()
	if _, err := get(); err != nil {
		t.Fatalf("after Clear: %v", err)
	}
}
