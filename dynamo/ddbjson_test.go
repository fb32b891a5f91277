package dynamo

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/pickem/api/internal/ddbjson"
	"github.com/pickem/api/internal/dynamotest"
)

// TestClientDecodesAnswersWithDDBJSON: the client NewClient returns decodes DynamoDB
// Local's answers to GetItem, Query and BatchGetItem — found or not, with consumed
// capacity — itself (internal/ddbjson), and the results equal the SDK's decoding of the
// same answers (dynamotest.Client checks every answer the tests read). Not parallel: it
// counts the package's decoded answers.
func TestClientDecodesAnswersWithDDBJSON(t *testing.T) {
	f := newFixture(t)
	ctx := ctxT(t)
	item := map[string]types.AttributeValue{
		attrPK: &types.AttributeValueMemberS{Value: "DDBJSON"}, attrSK: &types.AttributeValueMemberS{Value: "1"},
		"s": &types.AttributeValueMemberS{Value: "é \"q\" <&> \u2028"}, "n": &types.AttributeValueMemberN{Value: "-1.5"},
		"m": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"l": &types.AttributeValueMemberL{Value: []types.AttributeValue{
			&types.AttributeValueMemberBOOL{Value: true}, &types.AttributeValueMemberNULL{Value: true}, &types.AttributeValueMemberB{Value: []byte{0, 255}}}}}},
		"ss": &types.AttributeValueMemberSS{Value: []string{"a", "b"}},
	}
	if _, err := f.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &f.table, Item: item}); err != nil {
		t.Fatal(err)
	}
	api, err := NewClient(ctx, dynamotest.Endpoint(t))
	if err != nil {
		t.Fatal(err)
	}
	key := func(sk string) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{attrPK: &types.AttributeValueMemberS{Value: "DDBJSON"}, attrSK: &types.AttributeValueMemberS{Value: sk}}
	}
	total := types.ReturnConsumedCapacityTotal
	for _, db := range []*dynamodb.Client{f.db, api} {
		decoded, delegated := ddbjson.Decoded.Load(), ddbjson.Delegated.Load()
		for _, sk := range []string{"1", "missing"} {
			g, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: &f.table, Key: key(sk), ReturnConsumedCapacity: total})
			if err != nil {
				t.Fatal(err)
			}
			if (g.Item != nil) != (sk == "1") || g.ConsumedCapacity == nil {
				t.Fatalf("GetItem %s: item %v, capacity %v", sk, g.Item, g.ConsumedCapacity)
			}
		}
		q, err := db.Query(ctx, &dynamodb.QueryInput{
			TableName:                 &f.table,
			KeyConditionExpression:    aws.String("PK = :p"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":p": &types.AttributeValueMemberS{Value: "DDBJSON"}},
			Limit:                     aws.Int32(1),
			ReturnConsumedCapacity:    total,
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(q.Items) != 1 || q.LastEvaluatedKey == nil || q.Count != 1 {
			t.Fatalf("Query: %d items, last key %v, count %d", len(q.Items), q.LastEvaluatedKey, q.Count)
		}
		b, err := db.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{ReturnConsumedCapacity: total,
			RequestItems: map[string]types.KeysAndAttributes{f.table: {Keys: []map[string]types.AttributeValue{key("1"), key("missing")}}}})
		if err != nil {
			t.Fatal(err)
		}
		if len(b.Responses[f.table]) != 1 || len(b.ConsumedCapacity) != 1 {
			t.Fatalf("BatchGetItem: %v", b.Responses)
		}
		if got := q.Items[0]["s"].(*types.AttributeValueMemberS).Value; got != "é \"q\" <&> \u2028" {
			t.Errorf("s = %q", got)
		}
		if d, l := ddbjson.Decoded.Load()-decoded, ddbjson.Delegated.Load()-delegated; d != 4 || l != 0 {
			t.Errorf("answers decoded by ddbjson %d, left to the SDK %d; want 4 and 0", d, l)
		}
	}
}
