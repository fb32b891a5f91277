package awsfaithful_test

import (
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/pickem/api/internal/awsfaithful"
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
// transaction reach it (what defect 1 of issue 8 needs: the event row in the index, the
// match row not yet).
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
