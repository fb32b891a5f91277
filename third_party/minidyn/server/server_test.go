package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/logging"
	"github.com/stretchr/testify/require"
)

func newTestDynamoClient(t *testing.T, url string) *dynamodb.Client {
	t.Helper()

	ctx := context.Background()
	resolver := dynamodb.EndpointResolverFromURL(url)
	httpClient := &http.Client{
		Transport: &http.Transport{
			DisableKeepAlives:   true, // avoid reuse warnings
			DisableCompression:  true,
			MaxIdleConns:        1,
			MaxIdleConnsPerHost: 1,
			DialContext: (&net.Dialer{
				Timeout:   5 * time.Second,
				KeepAlive: 5 * time.Second,
			}).DialContext,
		},
	}

	cfg, err := config.LoadDefaultConfig(ctx,
		config.WithRegion("us-east-1"),
		config.WithEndpointResolverWithOptions(
			aws.EndpointResolverWithOptionsFunc(
				func(service, region string, options ...any) (aws.Endpoint, error) {
					if service == dynamodb.ServiceID {
						return resolver.ResolveEndpoint(region, dynamodb.EndpointResolverOptions{})
					}
					return aws.Endpoint{}, &aws.EndpointNotFoundError{}
				},
			),
		),
		config.WithHTTPClient(httpClient),
		config.WithLogger(logging.Nop{}),
		config.WithClientLogMode(0),
		config.WithCredentialsProvider(credentials.StaticCredentialsProvider{
			Value: aws.Credentials{
				AccessKeyID:     "test",
				SecretAccessKey: "test",
				SessionToken:    "test",
				Source:          "test",
			},
		}),
		config.WithRetryer(func() aws.Retryer { return aws.NopRetryer{} }),
	)
	require.NoError(t, err)

	return dynamodb.NewFromConfig(cfg)
}

func TestServerCRUDWithSDKv2(t *testing.T) {
	srv := NewServer()
	ts := httptest.NewServer(srv)
	defer ts.Close()

	cli := newTestDynamoClient(t, ts.URL)

	makeBasicTable(t, cli, "pokemons", "id")

	// put item
	_, err := cli.PutItem(context.Background(), &dynamodb.PutItemInput{
		TableName: aws.String("pokemons"),
		Item: map[string]ddbtypes.AttributeValue{
			"id": &ddbtypes.AttributeValueMemberS{Value: "25"},
			"n":  &ddbtypes.AttributeValueMemberS{Value: "pikachu"},
		},
	})
	require.NoError(t, err)

	// get item
	out, err := cli.GetItem(context.Background(), &dynamodb.GetItemInput{
		TableName: aws.String("pokemons"),
		Key: map[string]ddbtypes.AttributeValue{
			"id": &ddbtypes.AttributeValueMemberS{Value: "25"},
		},
	})
	require.NoError(t, err)
	require.Equal(t, "pikachu", out.Item["n"].(*ddbtypes.AttributeValueMemberS).Value)
}

func TestServerQueryGSIWithSDKv2(t *testing.T) {
	ts := httptest.NewServer(NewServer())
	defer ts.Close()
	cli := newTestDynamoClient(t, ts.URL)

	_, err := cli.CreateTable(context.Background(), &dynamodb.CreateTableInput{
		TableName: aws.String("pokemons"),
		KeySchema: []ddbtypes.KeySchemaElement{
			{AttributeName: aws.String("id"), KeyType: ddbtypes.KeyTypeHash},
		},
		AttributeDefinitions: []ddbtypes.AttributeDefinition{
			{AttributeName: aws.String("id"), AttributeType: ddbtypes.ScalarAttributeTypeS},
			{AttributeName: aws.String("type"), AttributeType: ddbtypes.ScalarAttributeTypeS},
		},
		BillingMode: ddbtypes.BillingModePayPerRequest,
		GlobalSecondaryIndexes: []ddbtypes.GlobalSecondaryIndex{
			{
				IndexName: aws.String("by-type"),
				KeySchema: []ddbtypes.KeySchemaElement{
					{AttributeName: aws.String("type"), KeyType: ddbtypes.KeyTypeHash},
					{AttributeName: aws.String("id"), KeyType: ddbtypes.KeyTypeRange},
				},
				Projection: &ddbtypes.Projection{ProjectionType: ddbtypes.ProjectionTypeAll},
			},
		},
	})
	require.NoError(t, err)

	put := func(id, typ string) {
		_, putErr := cli.PutItem(context.Background(), &dynamodb.PutItemInput{
			TableName: aws.String("pokemons"),
			Item: map[string]ddbtypes.AttributeValue{
				"id":   &ddbtypes.AttributeValueMemberS{Value: id},
				"type": &ddbtypes.AttributeValueMemberS{Value: typ},
			},
		})
		require.NoError(t, putErr)
	}
	put("25", "electric")
	put("26", "electric")

	qOut, err := cli.Query(context.Background(), &dynamodb.QueryInput{
		TableName: aws.String("pokemons"),
		IndexName: aws.String("by-type"),
		ExpressionAttributeNames: map[string]string{
			"#type": "type",
		},
		ExpressionAttributeValues: map[string]ddbtypes.AttributeValue{
			":type": &ddbtypes.AttributeValueMemberS{Value: "electric"},
		},
		KeyConditionExpression: aws.String("#type = :type"),
	})
	require.NoError(t, err)
	require.Len(t, qOut.Items, 2)
}

func TestServerClearTable(t *testing.T) {
	c := require.New(t)
	srv := NewServer()
	ctx := context.Background()
	tableName := "pokemons"

	_, err := srv.client.CreateTable(ctx, &CreateTableInput{
		TableName: aws.String(tableName),
		KeySchema: []ddbtypes.KeySchemaElement{
			{AttributeName: aws.String("id"), KeyType: ddbtypes.KeyTypeHash},
		},
		AttributeDefinitions: []ddbtypes.AttributeDefinition{
			{AttributeName: aws.String("id"), AttributeType: ddbtypes.ScalarAttributeTypeS},
			{AttributeName: aws.String("type"), AttributeType: ddbtypes.ScalarAttributeTypeS},
		},
		BillingMode: ddbtypes.BillingModePayPerRequest,
		GlobalSecondaryIndexes: []ddbtypes.GlobalSecondaryIndex{
			{
				IndexName: aws.String("by-type"),
				KeySchema: []ddbtypes.KeySchemaElement{
					{AttributeName: aws.String("type"), KeyType: ddbtypes.KeyTypeHash},
					{AttributeName: aws.String("id"), KeyType: ddbtypes.KeyTypeRange},
				},
				Projection: &ddbtypes.Projection{ProjectionType: ddbtypes.ProjectionTypeAll},
			},
		},
	})
	c.NoError(err)

	_, err = srv.client.PutItem(ctx, &PutItemInput{
		TableName: aws.String(tableName),
		Item: map[string]*AttributeValue{
			"id":   {S: aws.String("001")},
			"type": {S: aws.String("grass")},
			"name": {S: aws.String("Bulbasaur")},
		},
	})
	c.NoError(err)

	getOut, err := srv.client.GetItem(ctx, &GetItemInput{
		TableName: aws.String(tableName),
		Key: map[string]*AttributeValue{
			"id": {S: aws.String("001")},
		},
	})
	c.NoError(err)
	c.Equal("Bulbasaur", aws.ToString(getOut.Item["name"].S))

	queryOut, err := srv.client.Query(ctx, &QueryInput{
		TableName: aws.String(tableName),
		IndexName: aws.String("by-type"),
		ExpressionAttributeNames: map[string]string{
			"#type": "type",
		},
		ExpressionAttributeValues: map[string]*AttributeValue{
			":type": {S: aws.String("grass")},
		},
		KeyConditionExpression: aws.String("#type = :type"),
	})
	c.NoError(err)
	c.Len(queryOut.Items, 1)

	err = srv.ClearTable(tableName)
	c.NoError(err)

	getOut, err = srv.client.GetItem(ctx, &GetItemInput{
		TableName: aws.String(tableName),
		Key: map[string]*AttributeValue{
			"id": {S: aws.String("001")},
		},
	})
	c.NoError(err)
	c.Empty(getOut.Item)

	queryOut, err = srv.client.Query(ctx, &QueryInput{
		TableName: aws.String(tableName),
		IndexName: aws.String("by-type"),
		ExpressionAttributeNames: map[string]string{
			"#type": "type",
		},
		ExpressionAttributeValues: map[string]*AttributeValue{
			":type": {S: aws.String("grass")},
		},
		KeyConditionExpression: aws.String("#type = :type"),
	})
	c.NoError(err)
	c.Empty(queryOut.Items)
}

func TestServerClearAllTables(t *testing.T) {
	c := require.New(t)
	srv := NewServer()
	ctx := context.Background()

	_, err := srv.client.CreateTable(ctx, &CreateTableInput{
		TableName: aws.String("pokemons"),
		KeySchema: []ddbtypes.KeySchemaElement{
			{AttributeName: aws.String("id"), KeyType: ddbtypes.KeyTypeHash},
		},
		AttributeDefinitions: []ddbtypes.AttributeDefinition{
			{AttributeName: aws.String("id"), AttributeType: ddbtypes.ScalarAttributeTypeS},
			{AttributeName: aws.String("type"), AttributeType: ddbtypes.ScalarAttributeTypeS},
		},
		GlobalSecondaryIndexes: []ddbtypes.GlobalSecondaryIndex{
			{
				IndexName: aws.String("by-type"),
				KeySchema: []ddbtypes.KeySchemaElement{
					{AttributeName: aws.String("type"), KeyType: ddbtypes.KeyTypeHash},
					{AttributeName: aws.String("id"), KeyType: ddbtypes.KeyTypeRange},
				},
				Projection: &ddbtypes.Projection{ProjectionType: ddbtypes.ProjectionTypeAll},
			},
		},
		BillingMode: ddbtypes.BillingModePayPerRequest,
	})
	c.NoError(err)

	_, err = srv.client.CreateTable(ctx, &CreateTableInput{
		TableName: aws.String("trainers"),
		KeySchema: []ddbtypes.KeySchemaElement{
			{AttributeName: aws.String("id"), KeyType: ddbtypes.KeyTypeHash},
		},
		AttributeDefinitions: []ddbtypes.AttributeDefinition{
			{AttributeName: aws.String("id"), AttributeType: ddbtypes.ScalarAttributeTypeS},
		},
		BillingMode: ddbtypes.BillingModePayPerRequest,
	})
	c.NoError(err)

	_, err = srv.client.PutItem(ctx, &PutItemInput{
		TableName: aws.String("pokemons"),
		Item: map[string]*AttributeValue{
			"id":   {S: aws.String("001")},
			"type": {S: aws.String("grass")},
			"name": {S: aws.String("Bulbasaur")},
		},
	})
	c.NoError(err)

	_, err = srv.client.PutItem(ctx, &PutItemInput{
		TableName: aws.String("trainers"),
		Item: map[string]*AttributeValue{
			"id":   {S: aws.String("ash")},
			"name": {S: aws.String("Ash Ketchum")},
		},
	})
	c.NoError(err)

	err = srv.ClearAllTables()
	c.NoError(err)

	c.Len(srv.client.tables, 2)

	getOut, err := srv.client.GetItem(ctx, &GetItemInput{
		TableName: aws.String("pokemons"),
		Key: map[string]*AttributeValue{
			"id": {S: aws.String("001")},
		},
	})
	c.NoError(err)
	c.Empty(getOut.Item)

	queryOut, err := srv.client.Query(ctx, &QueryInput{
		TableName: aws.String("pokemons"),
		IndexName: aws.String("by-type"),
		ExpressionAttributeNames: map[string]string{
			"#type": "type",
		},
		ExpressionAttributeValues: map[string]*AttributeValue{
			":type": {S: aws.String("grass")},
		},
		KeyConditionExpression: aws.String("#type = :type"),
	})
	c.NoError(err)
	c.Empty(queryOut.Items)

	getOut, err = srv.client.GetItem(ctx, &GetItemInput{
		TableName: aws.String("trainers"),
		Key: map[string]*AttributeValue{
			"id": {S: aws.String("ash")},
		},
	})
	c.NoError(err)
	c.Empty(getOut.Item)
}

func TestServerReset(t *testing.T) {
	c := require.New(t)
	srv := NewServer()
	ctx := context.Background()

	// create table with GSI and data
	_, err := srv.client.CreateTable(ctx, &CreateTableInput{
		TableName: aws.String("pokemons"),
		KeySchema: []ddbtypes.KeySchemaElement{
			{AttributeName: aws.String("id"), KeyType: ddbtypes.KeyTypeHash},
		},
		AttributeDefinitions: []ddbtypes.AttributeDefinition{
			{AttributeName: aws.String("id"), AttributeType: ddbtypes.ScalarAttributeTypeS},
			{AttributeName: aws.String("type"), AttributeType: ddbtypes.ScalarAttributeTypeS},
		},
		GlobalSecondaryIndexes: []ddbtypes.GlobalSecondaryIndex{
			{
				IndexName: aws.String("by-type"),
				KeySchema: []ddbtypes.KeySchemaElement{
					{AttributeName: aws.String("type"), KeyType: ddbtypes.KeyTypeHash},
					{AttributeName: aws.String("id"), KeyType: ddbtypes.KeyTypeRange},
				},
				Projection: &ddbtypes.Projection{ProjectionType: ddbtypes.ProjectionTypeAll},
			},
		},
		BillingMode: ddbtypes.BillingModePayPerRequest,
	})
	c.NoError(err)

	_, err = srv.client.PutItem(ctx, &PutItemInput{
		TableName: aws.String("pokemons"),
		Item: map[string]*AttributeValue{
			"id":   {S: aws.String("001")},
			"type": {S: aws.String("grass")},
		},
	})
	c.NoError(err)
	c.Equal(1, len(srv.client.tables))

	err = srv.Reset()
	c.NoError(err)
	c.Empty(srv.client.tables)
}

func TestServerConditionalPutFailsWithSDKv2(t *testing.T) {
	ts := httptest.NewServer(NewServer())
	defer ts.Close()
	cli := newTestDynamoClient(t, ts.URL)

	makeBasicTable(t, cli, "pokemons", "id")

	_, err := cli.PutItem(context.Background(), &dynamodb.PutItemInput{
		TableName: aws.String("pokemons"),
		Item: map[string]ddbtypes.AttributeValue{
			"id": &ddbtypes.AttributeValueMemberS{Value: "1"},
		},
	})
	require.NoError(t, err)

	_, err = cli.PutItem(context.Background(), &dynamodb.PutItemInput{
		TableName: aws.String("pokemons"),
		Item: map[string]ddbtypes.AttributeValue{
			"id": &ddbtypes.AttributeValueMemberS{Value: "1"},
		},
		ConditionExpression: aws.String("attribute_not_exists(id)"),
	})
	var condErr *ddbtypes.ConditionalCheckFailedException
	require.ErrorAs(t, err, &condErr)
}

func TestServerBatchWriteWithSDKv2(t *testing.T) {
	ts := httptest.NewServer(NewServer())
	defer ts.Close()
	cli := newTestDynamoClient(t, ts.URL)

	makeBasicTable(t, cli, "pokemons", "id")

	_, err := cli.BatchWriteItem(context.Background(), &dynamodb.BatchWriteItemInput{
		RequestItems: map[string][]ddbtypes.WriteRequest{
			"pokemons": {
				{PutRequest: &ddbtypes.PutRequest{Item: map[string]ddbtypes.AttributeValue{
					"id": &ddbtypes.AttributeValueMemberS{Value: "1"},
				}}},
				{PutRequest: &ddbtypes.PutRequest{Item: map[string]ddbtypes.AttributeValue{
					"id": &ddbtypes.AttributeValueMemberS{Value: "2"},
				}}},
			},
		},
	})
	require.NoError(t, err)

	out, err := cli.GetItem(context.Background(), &dynamodb.GetItemInput{
		TableName: aws.String("pokemons"),
		Key: map[string]ddbtypes.AttributeValue{
			"id": &ddbtypes.AttributeValueMemberS{Value: "2"},
		},
	})

	require.NoError(t, err)
	require.Equal(t, "2", out.Item["id"].(*ddbtypes.AttributeValueMemberS).Value)
}

func TestServerBatchWriteItemValidatesWriteRequests(t *testing.T) {
	ts := httptest.NewServer(NewServer())
	defer ts.Close()
	cli := newTestDynamoClient(t, ts.URL)

	makeBasicTable(t, cli, "pokemons", "id")

	const ambiguousWriteReqMsg = "Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes"

	t.Run("empty write request", func(t *testing.T) {
		_, err := cli.BatchWriteItem(context.Background(), &dynamodb.BatchWriteItemInput{
			RequestItems: map[string][]ddbtypes.WriteRequest{
				"pokemons": {{}},
			},
		})
		require.Error(t, err)
		var apiErr smithy.APIError
		require.ErrorAs(t, err, &apiErr)
		require.Equal(t, "ValidationException", apiErr.ErrorCode())
		require.Equal(t, ambiguousWriteReqMsg, apiErr.ErrorMessage())
	})

	t.Run("put and delete in same write request", func(t *testing.T) {
		_, err := cli.BatchWriteItem(context.Background(), &dynamodb.BatchWriteItemInput{
			RequestItems: map[string][]ddbtypes.WriteRequest{
				"pokemons": {
					{
						PutRequest: &ddbtypes.PutRequest{
							Item: map[string]ddbtypes.AttributeValue{
								"id": &ddbtypes.AttributeValueMemberS{Value: "1"},
							},
						},
						DeleteRequest: &ddbtypes.DeleteRequest{
							Key: map[string]ddbtypes.AttributeValue{
								"id": &ddbtypes.AttributeValueMemberS{Value: "1"},
							},
						},
					},
				},
			},
		})
		require.Error(t, err)
		var apiErr smithy.APIError
		require.ErrorAs(t, err, &apiErr)
		require.Equal(t, "ValidationException", apiErr.ErrorCode())
		require.Equal(t, ambiguousWriteReqMsg, apiErr.ErrorMessage())
	})

	t.Run("too many items in one batch", func(t *testing.T) {
		item := map[string]ddbtypes.AttributeValue{
			"id": &ddbtypes.AttributeValueMemberS{Value: "x"},
		}
		reqs := make([]ddbtypes.WriteRequest, 0, 26)
		for range 26 {
			reqs = append(reqs, ddbtypes.WriteRequest{
				PutRequest: &ddbtypes.PutRequest{Item: item},
			})
		}
		_, err := cli.BatchWriteItem(context.Background(), &dynamodb.BatchWriteItemInput{
			RequestItems: map[string][]ddbtypes.WriteRequest{"pokemons": reqs},
		})
		require.Error(t, err)
		var apiErr smithy.APIError
		require.ErrorAs(t, err, &apiErr)
		require.Equal(t, "ValidationException", apiErr.ErrorCode())
		require.Equal(t, "Too many items requested for the BatchWriteItem call", apiErr.ErrorMessage())
	})
}

func TestServerBatchGetItemWithSDKv2(t *testing.T) {
	ts := httptest.NewServer(NewServer())
	defer ts.Close()
	cli := newTestDynamoClient(t, ts.URL)

	makeBasicTable(t, cli, "pokemons", "id")

	for _, id := range []string{"1", "2", "3"} {
		_, err := cli.PutItem(context.Background(), &dynamodb.PutItemInput{
			TableName: aws.String("pokemons"),
			Item: map[string]ddbtypes.AttributeValue{
				"id":   &ddbtypes.AttributeValueMemberS{Value: id},
				"name": &ddbtypes.AttributeValueMemberS{Value: "p-" + id},
			},
		})
		require.NoError(t, err)
	}

	out, err := cli.BatchGetItem(context.Background(), &dynamodb.BatchGetItemInput{
		RequestItems: map[string]ddbtypes.KeysAndAttributes{
			"pokemons": {
				Keys: []map[string]ddbtypes.AttributeValue{
					{"id": &ddbtypes.AttributeValueMemberS{Value: "1"}},
					{"id": &ddbtypes.AttributeValueMemberS{Value: "2"}},
					{"id": &ddbtypes.AttributeValueMemberS{Value: "missing"}},
				},
			},
		},
	})
	require.NoError(t, err)
	require.Len(t, out.Responses["pokemons"], 2)
	require.Empty(t, out.UnprocessedKeys)
}

func TestServerBatchGetItemAcrossTables(t *testing.T) {
	ts := httptest.NewServer(NewServer())
	defer ts.Close()
	cli := newTestDynamoClient(t, ts.URL)

	makeBasicTable(t, cli, "pokemons", "id")
	makeBasicTable(t, cli, "trainers", "id")

	_, err := cli.PutItem(context.Background(), &dynamodb.PutItemInput{
		TableName: aws.String("pokemons"),
		Item: map[string]ddbtypes.AttributeValue{
			"id":   &ddbtypes.AttributeValueMemberS{Value: "1"},
			"name": &ddbtypes.AttributeValueMemberS{Value: "Bulbasaur"},
		},
	})
	require.NoError(t, err)

	_, err = cli.PutItem(context.Background(), &dynamodb.PutItemInput{
		TableName: aws.String("trainers"),
		Item: map[string]ddbtypes.AttributeValue{
			"id":   &ddbtypes.AttributeValueMemberS{Value: "ash"},
			"name": &ddbtypes.AttributeValueMemberS{Value: "Ash Ketchum"},
		},
	})
	require.NoError(t, err)

	out, err := cli.BatchGetItem(context.Background(), &dynamodb.BatchGetItemInput{
		RequestItems: map[string]ddbtypes.KeysAndAttributes{
			"pokemons": {
				Keys: []map[string]ddbtypes.AttributeValue{
					{"id": &ddbtypes.AttributeValueMemberS{Value: "1"}},
				},
			},
			"trainers": {
				Keys: []map[string]ddbtypes.AttributeValue{
					{"id": &ddbtypes.AttributeValueMemberS{Value: "ash"}},
				},
			},
		},
	})
	require.NoError(t, err)
	require.Empty(t, out.UnprocessedKeys)

	require.Len(t, out.Responses, 2)
	require.Contains(t, out.Responses, "pokemons")
	require.Contains(t, out.Responses, "trainers")

	require.Len(t, out.Responses["pokemons"], 1)
	require.Equal(t, "1", out.Responses["pokemons"][0]["id"].(*ddbtypes.AttributeValueMemberS).Value)
	require.Equal(t, "Bulbasaur", out.Responses["pokemons"][0]["name"].(*ddbtypes.AttributeValueMemberS).Value)

	require.Len(t, out.Responses["trainers"], 1)
	require.Equal(t, "ash", out.Responses["trainers"][0]["id"].(*ddbtypes.AttributeValueMemberS).Value)
	require.Equal(t, "Ash Ketchum", out.Responses["trainers"][0]["name"].(*ddbtypes.AttributeValueMemberS).Value)
}

func TestServerBatchGetItemValidationException(t *testing.T) {
	ts := httptest.NewServer(NewServer())
	defer ts.Close()
	cli := newTestDynamoClient(t, ts.URL)

	makeBasicTable(t, cli, "pokemons", "id")

	t.Run("invalid key attribute", func(t *testing.T) {
		_, err := cli.BatchGetItem(context.Background(), &dynamodb.BatchGetItemInput{
			RequestItems: map[string]ddbtypes.KeysAndAttributes{
				"pokemons": {
					Keys: []map[string]ddbtypes.AttributeValue{
						{"wrong": &ddbtypes.AttributeValueMemberS{Value: "x"}},
					},
				},
			},
		})
		var apiErr smithy.APIError
		require.ErrorAs(t, err, &apiErr)
		require.Equal(t, "ValidationException", apiErr.ErrorCode())
	})

	t.Run("empty request items", func(t *testing.T) {
		_, err := cli.BatchGetItem(context.Background(), &dynamodb.BatchGetItemInput{
			RequestItems: map[string]ddbtypes.KeysAndAttributes{},
		})
		var apiErr smithy.APIError
		require.ErrorAs(t, err, &apiErr)
		require.Equal(t, "ValidationException", apiErr.ErrorCode())
		require.Equal(t, "1 validation error detected: Value '{}' at 'requestItems' failed to satisfy constraint: Member must have length greater than or equal to 1", apiErr.ErrorMessage())
	})

	t.Run("all tables have empty keys", func(t *testing.T) {
		_, err := cli.BatchGetItem(context.Background(), &dynamodb.BatchGetItemInput{
			RequestItems: map[string]ddbtypes.KeysAndAttributes{
				"pokemons": {Keys: []map[string]ddbtypes.AttributeValue{}},
			},
		})
		var apiErr smithy.APIError
		require.ErrorAs(t, err, &apiErr)
		require.Equal(t, "ValidationException", apiErr.ErrorCode())
		require.Equal(t, "1 validation error detected: Value '{}' at 'requestItems' failed to satisfy constraint: Member must have length greater than or equal to 1", apiErr.ErrorMessage())
	})

	t.Run("too many keys", func(t *testing.T) {
		keys := make([]map[string]ddbtypes.AttributeValue, 0, 101)
		for range 101 {
			keys = append(keys, map[string]ddbtypes.AttributeValue{
				"id": &ddbtypes.AttributeValueMemberS{Value: "x"},
			})
		}

		_, err := cli.BatchGetItem(context.Background(), &dynamodb.BatchGetItemInput{
			RequestItems: map[string]ddbtypes.KeysAndAttributes{"pokemons": {Keys: keys}},
		})
		var apiErr smithy.APIError
		require.ErrorAs(t, err, &apiErr)
		require.Equal(t, "ValidationException", apiErr.ErrorCode())
		require.Equal(t, "Too many items requested for the BatchGetItem call", apiErr.ErrorMessage())
	})

	t.Run("missing table", func(t *testing.T) {
		_, err := cli.BatchGetItem(context.Background(), &dynamodb.BatchGetItemInput{
			RequestItems: map[string]ddbtypes.KeysAndAttributes{
				"nope": {
					Keys: []map[string]ddbtypes.AttributeValue{
						{"id": &ddbtypes.AttributeValueMemberS{Value: "1"}},
					},
				},
			},
		})
		var notFound *ddbtypes.ResourceNotFoundException
		require.ErrorAs(t, err, &notFound)
	})
}

func TestServerBatchGetItemWithProjection(t *testing.T) {
	ts := httptest.NewServer(NewServer())
	defer ts.Close()
	cli := newTestDynamoClient(t, ts.URL)

	makeBasicTable(t, cli, "pokemons", "id")

	_, err := cli.PutItem(context.Background(), &dynamodb.PutItemInput{
		TableName: aws.String("pokemons"),
		Item: map[string]ddbtypes.AttributeValue{
			"id":   &ddbtypes.AttributeValueMemberS{Value: "1"},
			"name": &ddbtypes.AttributeValueMemberS{Value: "Bulbasaur"},
			"lvl":  &ddbtypes.AttributeValueMemberN{Value: "5"},
		},
	})
	require.NoError(t, err)

	out, err := cli.BatchGetItem(context.Background(), &dynamodb.BatchGetItemInput{
		RequestItems: map[string]ddbtypes.KeysAndAttributes{
			"pokemons": {
				Keys: []map[string]ddbtypes.AttributeValue{
					{"id": &ddbtypes.AttributeValueMemberS{Value: "1"}},
				},
				ProjectionExpression:     aws.String("#n"),
				ExpressionAttributeNames: map[string]string{"#n": "name"},
			},
		},
	})
	require.NoError(t, err)
	require.Len(t, out.Responses["pokemons"], 1)
	item := out.Responses["pokemons"][0]
	require.Equal(t, "Bulbasaur", item["name"].(*ddbtypes.AttributeValueMemberS).Value)
	_, hasID := item["id"]
	require.False(t, hasID)
}

func TestServerUpdateItemWithSDKv2(t *testing.T) {
	ts := httptest.NewServer(NewServer())
	defer ts.Close()
	cli := newTestDynamoClient(t, ts.URL)

	makeBasicTable(t, cli, "pokemons", "id")

	_, err := cli.PutItem(context.Background(), &dynamodb.PutItemInput{
		TableName: aws.String("pokemons"),
		Item: map[string]ddbtypes.AttributeValue{
			"id":  &ddbtypes.AttributeValueMemberS{Value: "1"},
			"lvl": &ddbtypes.AttributeValueMemberN{Value: "1"},
		},
	})
	require.NoError(t, err)

	upd, err := cli.UpdateItem(context.Background(), &dynamodb.UpdateItemInput{
		TableName:        aws.String("pokemons"),
		Key:              map[string]ddbtypes.AttributeValue{"id": &ddbtypes.AttributeValueMemberS{Value: "1"}},
		UpdateExpression: aws.String("SET lvl = :n"),
		ExpressionAttributeValues: map[string]ddbtypes.AttributeValue{
			":n": &ddbtypes.AttributeValueMemberN{Value: "2"},
		},
		ReturnValues: ddbtypes.ReturnValueAllNew,
	})
	require.NoError(t, err)

	require.Equal(t, "2", upd.Attributes["lvl"].(*ddbtypes.AttributeValueMemberN).Value)
}

func TestServerUpdateItemReturnValuesMatrix(t *testing.T) {
	ts := httptest.NewServer(NewServer())
	defer ts.Close()
	cli := newTestDynamoClient(t, ts.URL)

	makeBasicTable(t, cli, "pokemons", "id")
	ctx := context.Background()

	putAndUpdate := func(pk string, rv ddbtypes.ReturnValue) map[string]ddbtypes.AttributeValue {
		t.Helper()

		_, err := cli.PutItem(ctx, &dynamodb.PutItemInput{
			TableName: aws.String("pokemons"),
			Item: map[string]ddbtypes.AttributeValue{
				"id":   &ddbtypes.AttributeValueMemberS{Value: pk},
				"type": &ddbtypes.AttributeValueMemberS{Value: "grass"},
				"name": &ddbtypes.AttributeValueMemberS{Value: "Bulbasaur"},
			},
		})
		require.NoError(t, err)

		out, err := cli.UpdateItem(ctx, &dynamodb.UpdateItemInput{
			TableName: aws.String("pokemons"),
			Key: map[string]ddbtypes.AttributeValue{
				"id": &ddbtypes.AttributeValueMemberS{Value: pk},
			},
			UpdateExpression: aws.String("SET second_type = :st"),
			ExpressionAttributeValues: map[string]ddbtypes.AttributeValue{
				":st": &ddbtypes.AttributeValueMemberS{Value: "poison"},
			},
			ReturnValues: rv,
		})
		require.NoError(t, err)

		return out.Attributes
	}

	require.Nil(t, putAndUpdate("srv-urv-none", ddbtypes.ReturnValueNone))

	allOld := putAndUpdate("srv-urv-all-old", ddbtypes.ReturnValueAllOld)
	require.Len(t, allOld, 3)
	require.Equal(t, "Bulbasaur", allOld["name"].(*ddbtypes.AttributeValueMemberS).Value)

	updatedOld := putAndUpdate("srv-urv-upd-old", ddbtypes.ReturnValueUpdatedOld)
	require.Empty(t, updatedOld)

	updatedNew := putAndUpdate("srv-urv-upd-new", ddbtypes.ReturnValueUpdatedNew)
	require.Len(t, updatedNew, 1)
	require.Equal(t, "poison", updatedNew["second_type"].(*ddbtypes.AttributeValueMemberS).Value)

	allNew := putAndUpdate("srv-urv-all-new", ddbtypes.ReturnValueAllNew)
	require.Len(t, allNew, 4)
	require.Equal(t, "poison", allNew["second_type"].(*ddbtypes.AttributeValueMemberS).Value)
}

func TestServerUpdateItemWithConditionalExpression(t *testing.T) {
	ts := httptest.NewServer(NewServer())
	defer ts.Close()
	cli := newTestDynamoClient(t, ts.URL)

	makeBasicTable(t, cli, "pokemons", "id")
	ctx := context.Background()

	_, err := cli.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: aws.String("pokemons"),
		Item: map[string]ddbtypes.AttributeValue{
			"id":   &ddbtypes.AttributeValueMemberS{Value: "001"},
			"type": &ddbtypes.AttributeValueMemberS{Value: "grass"},
			"name": &ddbtypes.AttributeValueMemberS{Value: "Bulbasaur"},
		},
	})
	require.NoError(t, err)

	_, err = cli.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: aws.String("pokemons"),
		Item: map[string]ddbtypes.AttributeValue{
			"id":   &ddbtypes.AttributeValueMemberS{Value: "002"},
			"type": &ddbtypes.AttributeValueMemberS{Value: "grass"},
			"name": &ddbtypes.AttributeValueMemberS{Value: "Ivysaur"},
		},
	})
	require.NoError(t, err)

	uexpr := "SET second_type = :ntype"
	expr := map[string]ddbtypes.AttributeValue{
		":ntyp": &ddbtypes.AttributeValueMemberS{Value: "poison"},
	}
	input := &dynamodb.UpdateItemInput{
		TableName: aws.String("pokemons"),
		Key: map[string]ddbtypes.AttributeValue{
			"id": &ddbtypes.AttributeValueMemberS{Value: "404"},
		},
		ConditionExpression:       aws.String("attribute_exists(id)"),
		ReturnValues:              ddbtypes.ReturnValueUpdatedNew,
		UpdateExpression:          aws.String(uexpr),
		ExpressionAttributeValues: expr,
		ExpressionAttributeNames: map[string]string{
			"#id": "id",
		},
	}

	_, err = cli.UpdateItem(ctx, input)
	require.Error(t, err)
	var valErr smithy.APIError
	require.ErrorAs(t, err, &valErr)
	require.Equal(t, "ValidationException", valErr.ErrorCode())
	require.Contains(t, valErr.ErrorMessage(), unusedExpressionAttributeNamesMsg)

	input.ConditionExpression = aws.String("attribute_exists(#invalid-name)")
	input.ExpressionAttributeNames = map[string]string{
		"#invalid-name": "type",
	}

	_, err = cli.UpdateItem(ctx, input)
	require.Error(t, err)
	require.ErrorAs(t, err, &valErr)
	require.Equal(t, "ValidationException", valErr.ErrorCode())
	require.Contains(t, valErr.ErrorMessage(), invalidExpressionAttributeName)

	input.ConditionExpression = aws.String("#t = :invalid-value")
	input.ExpressionAttributeNames = map[string]string{
		"#t": "type",
	}
	input.ExpressionAttributeValues = map[string]ddbtypes.AttributeValue{
		":invalid-value": &ddbtypes.AttributeValueMemberNULL{Value: true},
	}

	_, err = cli.UpdateItem(ctx, input)
	require.Error(t, err)
	require.ErrorAs(t, err, &valErr)
	require.Equal(t, "ValidationException", valErr.ErrorCode())
	require.Contains(t, valErr.ErrorMessage(), invalidExpressionAttributeValue)

	input = &dynamodb.UpdateItemInput{
		TableName: aws.String("pokemons"),
		Key: map[string]ddbtypes.AttributeValue{
			"id": &ddbtypes.AttributeValueMemberS{Value: "404"},
		},
		ConditionExpression:       aws.String("attribute_exists(#id)"),
		ReturnValues:              ddbtypes.ReturnValueUpdatedNew,
		UpdateExpression:          aws.String(uexpr),
		ExpressionAttributeValues: expr,
		ExpressionAttributeNames: map[string]string{
			"#id": "id",
		},
	}

	var cond *ddbtypes.ConditionalCheckFailedException
	_, err = cli.UpdateItem(ctx, input)
	require.ErrorAs(t, err, &cond)

	input = &dynamodb.UpdateItemInput{
		TableName: aws.String("pokemons"),
		Key: map[string]ddbtypes.AttributeValue{
			"id": &ddbtypes.AttributeValueMemberS{Value: "001"},
		},
		ConditionExpression:       aws.String("attribute_not_exists(#id)"),
		ReturnValues:              ddbtypes.ReturnValueUpdatedNew,
		UpdateExpression:          aws.String(uexpr),
		ExpressionAttributeValues: expr,
		ExpressionAttributeNames: map[string]string{
			"#id": "id",
		},
		ReturnValuesOnConditionCheckFailure: ddbtypes.ReturnValuesOnConditionCheckFailureAllOld,
	}

	cond = nil
	_, err = cli.UpdateItem(ctx, input)
	require.ErrorAs(t, err, &cond)
	require.NotEmpty(t, cond.Item)
	require.Equal(t, &ddbtypes.AttributeValueMemberS{Value: "001"}, cond.Item["id"])
	require.Equal(t, &ddbtypes.AttributeValueMemberS{Value: "Bulbasaur"}, cond.Item["name"])
}

func TestServerDeleteItemReturnsOldWithSDKv2(t *testing.T) {
	ts := httptest.NewServer(NewServer())
	defer ts.Close()
	cli := newTestDynamoClient(t, ts.URL)

	makeBasicTable(t, cli, "pokemons", "id")

	_, err := cli.PutItem(context.Background(), &dynamodb.PutItemInput{
		TableName: aws.String("pokemons"),
		Item: map[string]ddbtypes.AttributeValue{
			"id":   &ddbtypes.AttributeValueMemberS{Value: "1"},
			"name": &ddbtypes.AttributeValueMemberS{Value: "pikachu"},
		},
	})
	require.NoError(t, err)

	del, err := cli.DeleteItem(context.Background(), &dynamodb.DeleteItemInput{
		TableName:    aws.String("pokemons"),
		Key:          map[string]ddbtypes.AttributeValue{"id": &ddbtypes.AttributeValueMemberS{Value: "1"}},
		ReturnValues: ddbtypes.ReturnValueAllOld,
	})
	require.NoError(t, err)
	require.Equal(t, "pikachu", del.Attributes["name"].(*ddbtypes.AttributeValueMemberS).Value)
}

func TestServerScanWithSDKv2(t *testing.T) {
	ts := httptest.NewServer(NewServer())
	defer ts.Close()
	cli := newTestDynamoClient(t, ts.URL)

	makeBasicTable(t, cli, "pokemons", "id")
	for i := range 3 {
		id := aws.String(fmt.Sprintf("%d", i))
		_, err := cli.PutItem(context.Background(), &dynamodb.PutItemInput{
			TableName: aws.String("pokemons"),
			Item: map[string]ddbtypes.AttributeValue{
				"id": &ddbtypes.AttributeValueMemberS{Value: *id},
			},
		})
		require.NoError(t, err)
	}

	scan, err := cli.Scan(context.Background(), &dynamodb.ScanInput{
		TableName: aws.String("pokemons"),
	})
	require.NoError(t, err)
	require.Equal(t, int32(3), scan.Count)
}

func TestServerDescribeAndUpdateTableWithSDKv2(t *testing.T) {
	ts := httptest.NewServer(NewServer())
	defer ts.Close()
	cli := newTestDynamoClient(t, ts.URL)

	makeBasicTable(t, cli, "pokemons", "id")

	_, err := cli.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{
		TableName: aws.String("pokemons"),
	})
	require.NoError(t, err)

	_, err = cli.UpdateTable(context.Background(), &dynamodb.UpdateTableInput{
		TableName: aws.String("pokemons"),
		AttributeDefinitions: []ddbtypes.AttributeDefinition{
			{AttributeName: aws.String("type"), AttributeType: ddbtypes.ScalarAttributeTypeS},
		},
		GlobalSecondaryIndexUpdates: []ddbtypes.GlobalSecondaryIndexUpdate{
			{Create: &ddbtypes.CreateGlobalSecondaryIndexAction{
				IndexName: aws.String("by-type"),
				KeySchema: []ddbtypes.KeySchemaElement{
					{AttributeName: aws.String("type"), KeyType: ddbtypes.KeyTypeHash},
				},
				Projection: &ddbtypes.Projection{ProjectionType: ddbtypes.ProjectionTypeAll},
			}},
		},
	})
	require.NoError(t, err)
}

func createServerTestGlobalSecondaryIndex(t *testing.T, cli *dynamodb.Client, table, indexName string) {
	t.Helper()

	_, err := cli.UpdateTable(context.Background(), &dynamodb.UpdateTableInput{
		TableName: aws.String(table),
		AttributeDefinitions: []ddbtypes.AttributeDefinition{
			{AttributeName: aws.String("type"), AttributeType: ddbtypes.ScalarAttributeTypeS},
		},
		GlobalSecondaryIndexUpdates: []ddbtypes.GlobalSecondaryIndexUpdate{
			{Create: &ddbtypes.CreateGlobalSecondaryIndexAction{
				IndexName: aws.String(indexName),
				KeySchema: []ddbtypes.KeySchemaElement{
					{AttributeName: aws.String("type"), KeyType: ddbtypes.KeyTypeHash},
				},
				Projection: &ddbtypes.Projection{ProjectionType: ddbtypes.ProjectionTypeAll},
			}},
		},
	})
	require.NoError(t, err)
}

func describeServerGlobalSecondaryIndexStatus(t *testing.T, cli *dynamodb.Client, table, indexName string) ddbtypes.IndexStatus {
	t.Helper()

	out, err := cli.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{
		TableName: aws.String(table),
	})
	require.NoError(t, err)

	for _, g := range out.Table.GlobalSecondaryIndexes {
		if aws.ToString(g.IndexName) == indexName {
			return g.IndexStatus
		}
	}

	t.Fatalf("GSI %q not found on table %q", indexName, table)

	return ""
}

func TestServerDescribeTableIncludesGSIStatus(t *testing.T) {
	srv := NewServer()
	ts := httptest.NewServer(srv)
	defer ts.Close()

	cli := newTestDynamoClient(t, ts.URL)
	makeBasicTable(t, cli, "pokemons", "id")
	createServerTestGlobalSecondaryIndex(t, cli, "pokemons", "by-type")

	require.Equal(t, ddbtypes.IndexStatusActive, describeServerGlobalSecondaryIndexStatus(t, cli, "pokemons", "by-type"))
}

func TestServerSetIndexActivationDelayReportsGSIStatusTransition(t *testing.T) {
	srv := NewServer()
	srv.SetIndexActivationDelay(5 * time.Millisecond)
	ts := httptest.NewServer(srv)
	defer ts.Close()

	cli := newTestDynamoClient(t, ts.URL)
	makeBasicTable(t, cli, "pokemons", "id")
	createServerTestGlobalSecondaryIndex(t, cli, "pokemons", "delayed-index")

	require.Equal(t, ddbtypes.IndexStatusCreating, describeServerGlobalSecondaryIndexStatus(t, cli, "pokemons", "delayed-index"))

	time.Sleep(10 * time.Millisecond)

	require.Equal(t, ddbtypes.IndexStatusActive, describeServerGlobalSecondaryIndexStatus(t, cli, "pokemons", "delayed-index"))
}

func TestServerAddLSIWithSDKv2(t *testing.T) {
	ts := httptest.NewServer(NewServer())
	defer ts.Close()
	cli := newTestDynamoClient(t, ts.URL)

	_, err := cli.CreateTable(context.Background(), &dynamodb.CreateTableInput{
		TableName: aws.String("pokemons"),
		KeySchema: []ddbtypes.KeySchemaElement{
			{AttributeName: aws.String("id"), KeyType: ddbtypes.KeyTypeHash},
			{AttributeName: aws.String("ts"), KeyType: ddbtypes.KeyTypeRange},
		},
		AttributeDefinitions: []ddbtypes.AttributeDefinition{
			{AttributeName: aws.String("id"), AttributeType: ddbtypes.ScalarAttributeTypeS},
			{AttributeName: aws.String("ts"), AttributeType: ddbtypes.ScalarAttributeTypeN},
			{AttributeName: aws.String("type"), AttributeType: ddbtypes.ScalarAttributeTypeS},
		},
		BillingMode: ddbtypes.BillingModePayPerRequest,
		LocalSecondaryIndexes: []ddbtypes.LocalSecondaryIndex{
			{
				IndexName: aws.String("by-type"),
				KeySchema: []ddbtypes.KeySchemaElement{
					{AttributeName: aws.String("id"), KeyType: ddbtypes.KeyTypeHash},
					{AttributeName: aws.String("type"), KeyType: ddbtypes.KeyTypeRange},
				},
				Projection: &ddbtypes.Projection{ProjectionType: ddbtypes.ProjectionTypeAll},
			},
		},
	})
	require.NoError(t, err)
}

func TestServerDeleteTableWithSDKv2(t *testing.T) {
	ts := httptest.NewServer(NewServer())
	defer ts.Close()
	cli := newTestDynamoClient(t, ts.URL)

	makeBasicTable(t, cli, "pokemons", "id")

	_, err := cli.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{
		TableName: aws.String("pokemons"),
	})
	require.NoError(t, err)

	_, err = cli.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{
		TableName: aws.String("pokemons"),
	})
	var notFound *ddbtypes.ResourceNotFoundException
	require.ErrorAs(t, err, &notFound)
}

func TestServerEmulateFailureWithSDKv2(t *testing.T) {
	s := NewServer()

	ts := httptest.NewServer(s)
	defer ts.Close()

	cli := newTestDynamoClient(t, ts.URL)

	makeBasicTable(t, cli, "pokemons", "id")

	s.EmulateFailure(FailureConditionInternalServerError)

	_, err := cli.PutItem(context.Background(), &dynamodb.PutItemInput{
		TableName: aws.String("pokemons"),
		Item: map[string]ddbtypes.AttributeValue{
			"id": &ddbtypes.AttributeValueMemberS{Value: "1"},
		},
	})
	var internal *ddbtypes.InternalServerError
	require.ErrorAs(t, err, &internal)

	s.EmulateFailure(FailureConditionNone)
	_, err = cli.PutItem(context.Background(), &dynamodb.PutItemInput{
		TableName: aws.String("pokemons"),
		Item: map[string]ddbtypes.AttributeValue{
			"id": &ddbtypes.AttributeValueMemberS{Value: "2"},
		},
	})
	require.NoError(t, err)
}

func TestServerEmulateFailureForTable(t *testing.T) {
	s := NewServer()

	ts := httptest.NewServer(s)
	defer ts.Close()

	cli := newTestDynamoClient(t, ts.URL)

	makeBasicTable(t, cli, "pokemons", "id")
	makeBasicTable(t, cli, "items", "id")

	s.EmulateFailureForTable("pokemons", FailureConditionInternalServerError)

	var internal *ddbtypes.InternalServerError

	_, err := cli.PutItem(context.Background(), &dynamodb.PutItemInput{
		TableName: aws.String("pokemons"),
		Item:      map[string]ddbtypes.AttributeValue{"id": &ddbtypes.AttributeValueMemberS{Value: "1"}},
	})
	require.ErrorAs(t, err, &internal)

	_, err = cli.PutItem(context.Background(), &dynamodb.PutItemInput{
		TableName: aws.String("items"),
		Item:      map[string]ddbtypes.AttributeValue{"id": &ddbtypes.AttributeValueMemberS{Value: "x"}},
	})
	require.NoError(t, err)

	s.EmulateFailureForTable("pokemons", FailureConditionNone)

	_, err = cli.PutItem(context.Background(), &dynamodb.PutItemInput{
		TableName: aws.String("pokemons"),
		Item:      map[string]ddbtypes.AttributeValue{"id": &ddbtypes.AttributeValueMemberS{Value: "1"}},
	})
	require.NoError(t, err)
}

func TestServerEmulateFailureForTableIndexScoped(t *testing.T) {
	s := NewServer()

	ts := httptest.NewServer(s)
	defer ts.Close()

	cli := newTestDynamoClient(t, ts.URL)

	makeBasicTable(t, cli, "pokemons", "id")
	createServerTestGlobalSecondaryIndex(t, cli, "pokemons", "by-type")

	_, err := cli.PutItem(context.Background(), &dynamodb.PutItemInput{
		TableName: aws.String("pokemons"),
		Item: map[string]ddbtypes.AttributeValue{
			"id":   &ddbtypes.AttributeValueMemberS{Value: "1"},
			"type": &ddbtypes.AttributeValueMemberS{Value: "grass"},
		},
	})
	require.NoError(t, err)

	s.EmulateFailureForTable("pokemons", FailureConditionInternalServerError, "by-type")

	var internal *ddbtypes.InternalServerError

	_, err = cli.Query(context.Background(), &dynamodb.QueryInput{
		TableName:                 aws.String("pokemons"),
		IndexName:                 aws.String("by-type"),
		KeyConditionExpression:    aws.String("#type = :type"),
		ExpressionAttributeNames:  map[string]string{"#type": "type"},
		ExpressionAttributeValues: map[string]ddbtypes.AttributeValue{":type": &ddbtypes.AttributeValueMemberS{Value: "grass"}},
	})
	require.ErrorAs(t, err, &internal)

	// GetItem does not use the index, so it must keep working.
	out, err := cli.GetItem(context.Background(), &dynamodb.GetItemInput{
		TableName: aws.String("pokemons"),
		Key:       map[string]ddbtypes.AttributeValue{"id": &ddbtypes.AttributeValueMemberS{Value: "1"}},
	})
	require.NoError(t, err)
	require.NotEmpty(t, out.Item)
}

func TestServerEmulateFailureForTableBatchWriteMultiTable(t *testing.T) {
	s := NewServer()

	ts := httptest.NewServer(s)
	defer ts.Close()

	cli := newTestDynamoClient(t, ts.URL)

	makeBasicTable(t, cli, "pokemons", "id")
	makeBasicTable(t, cli, "items", "id")

	s.EmulateFailureForTable("pokemons", FailureConditionInternalServerError)

	// A batch touching the scoped table hard-fails the whole call.
	_, err := cli.BatchWriteItem(context.Background(), &dynamodb.BatchWriteItemInput{
		RequestItems: map[string][]ddbtypes.WriteRequest{
			"pokemons": {
				{PutRequest: &ddbtypes.PutRequest{Item: map[string]ddbtypes.AttributeValue{"id": &ddbtypes.AttributeValueMemberS{Value: "1"}}}},
			},
			"items": {
				{PutRequest: &ddbtypes.PutRequest{Item: map[string]ddbtypes.AttributeValue{"id": &ddbtypes.AttributeValueMemberS{Value: "x"}}}},
			},
		},
	})

	var internal *ddbtypes.InternalServerError

	require.ErrorAs(t, err, &internal)

	// A batch touching only the unscoped table succeeds.
	out, err := cli.BatchWriteItem(context.Background(), &dynamodb.BatchWriteItemInput{
		RequestItems: map[string][]ddbtypes.WriteRequest{
			"items": {
				{PutRequest: &ddbtypes.PutRequest{Item: map[string]ddbtypes.AttributeValue{"id": &ddbtypes.AttributeValueMemberS{Value: "x"}}}},
			},
		},
	})
	require.NoError(t, err)
	require.Empty(t, out.UnprocessedItems["items"])

	got, err := cli.GetItem(context.Background(), &dynamodb.GetItemInput{
		TableName: aws.String("items"),
		Key:       map[string]ddbtypes.AttributeValue{"id": &ddbtypes.AttributeValueMemberS{Value: "x"}},
	})
	require.NoError(t, err)
	require.NotEmpty(t, got.Item)
}

func TestServerEmulateFailureForTableTransactWriteAtomic(t *testing.T) {
	s := NewServer()

	ts := httptest.NewServer(s)
	defer ts.Close()

	cli := newTestDynamoClient(t, ts.URL)

	makeBasicTable(t, cli, "pokemons", "id")
	makeBasicTable(t, cli, "items", "id")

	s.EmulateFailureForTable("pokemons", FailureConditionInternalServerError)

	_, err := cli.TransactWriteItems(context.Background(), &dynamodb.TransactWriteItemsInput{
		TransactItems: []ddbtypes.TransactWriteItem{
			{Put: &ddbtypes.Put{TableName: aws.String("items"), Item: map[string]ddbtypes.AttributeValue{"id": &ddbtypes.AttributeValueMemberS{Value: "x"}}}},
			{Put: &ddbtypes.Put{TableName: aws.String("pokemons"), Item: map[string]ddbtypes.AttributeValue{"id": &ddbtypes.AttributeValueMemberS{Value: "1"}}}},
		},
	})

	var internal *ddbtypes.InternalServerError

	require.ErrorAs(t, err, &internal)

	got, err := cli.GetItem(context.Background(), &dynamodb.GetItemInput{
		TableName: aws.String("items"),
		Key:       map[string]ddbtypes.AttributeValue{"id": &ddbtypes.AttributeValueMemberS{Value: "x"}},
	})
	require.NoError(t, err)
	require.Empty(t, got.Item)
}

func TestServerEmulateFailureForTableGlobalOverride(t *testing.T) {
	s := NewServer()

	ts := httptest.NewServer(s)
	defer ts.Close()

	cli := newTestDynamoClient(t, ts.URL)

	makeBasicTable(t, cli, "pokemons", "id")
	makeBasicTable(t, cli, "items", "id")

	s.EmulateFailureForTable("pokemons", FailureConditionInternalServerError)
	s.EmulateFailure(FailureConditionInternalServerError)

	var internal *ddbtypes.InternalServerError

	_, err := cli.PutItem(context.Background(), &dynamodb.PutItemInput{
		TableName: aws.String("items"),
		Item:      map[string]ddbtypes.AttributeValue{"id": &ddbtypes.AttributeValueMemberS{Value: "x"}},
	})
	require.ErrorAs(t, err, &internal)

	s.EmulateFailure(FailureConditionNone)

	_, err = cli.PutItem(context.Background(), &dynamodb.PutItemInput{
		TableName: aws.String("items"),
		Item:      map[string]ddbtypes.AttributeValue{"id": &ddbtypes.AttributeValueMemberS{Value: "x"}},
	})
	require.NoError(t, err)

	_, err = cli.PutItem(context.Background(), &dynamodb.PutItemInput{
		TableName: aws.String("pokemons"),
		Item:      map[string]ddbtypes.AttributeValue{"id": &ddbtypes.AttributeValueMemberS{Value: "1"}},
	})
	require.ErrorAs(t, err, &internal)
}

func TestServerGetItemAttributeNameValidation(t *testing.T) {
	ts := httptest.NewServer(NewServer())
	defer ts.Close()
	cli := newTestDynamoClient(t, ts.URL)

	makeBasicTable(t, cli, "pokemons", "id")
	_, err := cli.PutItem(context.Background(), &dynamodb.PutItemInput{
		TableName: aws.String("pokemons"),
		Item: map[string]ddbtypes.AttributeValue{
			"id":   &ddbtypes.AttributeValueMemberS{Value: "1"},
			"name": &ddbtypes.AttributeValueMemberS{Value: "pikachu"},
		},
	})
	require.NoError(t, err)

	out, err := cli.GetItem(context.Background(), &dynamodb.GetItemInput{
		TableName: aws.String("pokemons"),
		Key: map[string]ddbtypes.AttributeValue{
			"id": &ddbtypes.AttributeValueMemberS{Value: "1"},
		},
		ExpressionAttributeNames: map[string]string{
			"#n": "name",
		},
		ProjectionExpression: aws.String("#n"),
	})
	require.NoError(t, err)
	require.Equal(t, "pikachu", out.Item["name"].(*ddbtypes.AttributeValueMemberS).Value)
}

func TestServerGetItemUnusedExpressionAttributeNames(t *testing.T) {
	ts := httptest.NewServer(NewServer())
	defer ts.Close()
	cli := newTestDynamoClient(t, ts.URL)

	makeBasicTable(t, cli, "pokemons", "id")
	_, err := cli.PutItem(context.Background(), &dynamodb.PutItemInput{
		TableName: aws.String("pokemons"),
		Item: map[string]ddbtypes.AttributeValue{
			"id":   &ddbtypes.AttributeValueMemberS{Value: "1"},
			"name": &ddbtypes.AttributeValueMemberS{Value: "pikachu"},
		},
	})
	require.NoError(t, err)

	_, err = cli.GetItem(context.Background(), &dynamodb.GetItemInput{
		TableName: aws.String("pokemons"),
		Key: map[string]ddbtypes.AttributeValue{
			"id": &ddbtypes.AttributeValueMemberS{Value: "1"},
		},
		ExpressionAttributeNames: map[string]string{
			"#name": "name",
		},
	})
	require.Error(t, err)
	var apiErr smithy.APIError
	require.ErrorAs(t, err, &apiErr)
	require.Equal(t, "ValidationException", apiErr.ErrorCode())
	require.Contains(t, apiErr.ErrorMessage(), expressionAttributeNamesOnlyWithExpressionsMsg)
}

func TestServerGetItemInvalidExpressionAttributeNameKey(t *testing.T) {
	ts := httptest.NewServer(NewServer())
	defer ts.Close()
	cli := newTestDynamoClient(t, ts.URL)

	makeBasicTable(t, cli, "pokemons", "id")
	_, err := cli.PutItem(context.Background(), &dynamodb.PutItemInput{
		TableName: aws.String("pokemons"),
		Item: map[string]ddbtypes.AttributeValue{
			"id":   &ddbtypes.AttributeValueMemberS{Value: "1"},
			"name": &ddbtypes.AttributeValueMemberS{Value: "pikachu"},
		},
	})
	require.NoError(t, err)

	_, err = cli.GetItem(context.Background(), &dynamodb.GetItemInput{
		TableName: aws.String("pokemons"),
		Key: map[string]ddbtypes.AttributeValue{
			"id": &ddbtypes.AttributeValueMemberS{Value: "1"},
		},
		ProjectionExpression: aws.String("#name-1"),
		ExpressionAttributeNames: map[string]string{
			"#name-1": "name",
		},
	})
	require.Error(t, err)
	var apiErr smithy.APIError
	require.ErrorAs(t, err, &apiErr)
	require.Equal(t, "ValidationException", apiErr.ErrorCode())
	require.Contains(t, apiErr.ErrorMessage(), invalidExpressionAttributeName)
}

func TestServerGetItemProjectionInvalidExpression(t *testing.T) {
	ts := httptest.NewServer(NewServer())
	defer ts.Close()
	cli := newTestDynamoClient(t, ts.URL)

	makeBasicTable(t, cli, "pokemons", "id")
	_, err := cli.PutItem(context.Background(), &dynamodb.PutItemInput{
		TableName: aws.String("pokemons"),
		Item: map[string]ddbtypes.AttributeValue{
			"id":   &ddbtypes.AttributeValueMemberS{Value: "001"},
			"type": &ddbtypes.AttributeValueMemberS{Value: "grass"},
			"name": &ddbtypes.AttributeValueMemberS{Value: "Bulbasaur"},
		},
	})
	require.NoError(t, err)

	_, err = cli.GetItem(context.Background(), &dynamodb.GetItemInput{
		TableName: aws.String("pokemons"),
		Key: map[string]ddbtypes.AttributeValue{
			"id": &ddbtypes.AttributeValueMemberS{Value: "001"},
		},
		ProjectionExpression: aws.String("("),
	})
	require.Error(t, err)
	var apiErr smithy.APIError
	require.ErrorAs(t, err, &apiErr)
	require.Equal(t, "ValidationException", apiErr.ErrorCode())
}

func TestServerPutItemWithConditionsValidation(t *testing.T) {
	ts := httptest.NewServer(NewServer())
	defer ts.Close()
	cli := newTestDynamoClient(t, ts.URL)

	makeBasicTable(t, cli, "pokemons", "id")

	// first put ok
	_, err := cli.PutItem(context.Background(), &dynamodb.PutItemInput{
		TableName: aws.String("pokemons"),
		Item: map[string]ddbtypes.AttributeValue{
			"id": &ddbtypes.AttributeValueMemberS{Value: "1"},
		},
	})
	require.NoError(t, err)

	// second with unused expression attribute value (matches aws-v2 client / DynamoDB)
	_, err = cli.PutItem(context.Background(), &dynamodb.PutItemInput{
		TableName: aws.String("pokemons"),
		Item: map[string]ddbtypes.AttributeValue{
			"id": &ddbtypes.AttributeValueMemberS{Value: "1"},
		},
		ConditionExpression: aws.String("attribute_not_exists(#type)"),
		ExpressionAttributeNames: map[string]string{
			"#type": "type",
		},
		ExpressionAttributeValues: map[string]ddbtypes.AttributeValue{
			":not_used": &ddbtypes.AttributeValueMemberNULL{Value: true},
		},
	})
	require.Error(t, err)
	var putValErr smithy.APIError
	require.ErrorAs(t, err, &putValErr)
	require.Equal(t, "ValidationException", putValErr.ErrorCode())

	require.Contains(t, putValErr.ErrorMessage(), unusedExpressionAttributeValuesMsg)
}

func TestServerUpdateExpressionsAddRemoveDelete(t *testing.T) {
	ts := httptest.NewServer(NewServer())
	defer ts.Close()
	cli := newTestDynamoClient(t, ts.URL)

	makeBasicTable(t, cli, "pokemons", "id")
	_, err := cli.PutItem(context.Background(), &dynamodb.PutItemInput{
		TableName: aws.String("pokemons"),
		Item: map[string]ddbtypes.AttributeValue{
			"id":    &ddbtypes.AttributeValueMemberS{Value: "1"},
			"lvl":   &ddbtypes.AttributeValueMemberN{Value: "0"},
			"moves": &ddbtypes.AttributeValueMemberSS{Value: []string{"Growl", "Tackle"}},
			"local": &ddbtypes.AttributeValueMemberL{Value: []ddbtypes.AttributeValue{
				&ddbtypes.AttributeValueMemberS{Value: "a"},
				&ddbtypes.AttributeValueMemberS{Value: "b"},
			}},
		},
	})
	require.NoError(t, err)

	// ADD
	_, err = cli.UpdateItem(context.Background(), &dynamodb.UpdateItemInput{
		TableName:        aws.String("pokemons"),
		Key:              map[string]ddbtypes.AttributeValue{"id": &ddbtypes.AttributeValueMemberS{Value: "1"}},
		UpdateExpression: aws.String("ADD lvl :one"),
		ExpressionAttributeValues: map[string]ddbtypes.AttributeValue{
			":one": &ddbtypes.AttributeValueMemberN{Value: "1"},
		},
	})
	require.NoError(t, err)

	// REMOVE
	_, err = cli.UpdateItem(context.Background(), &dynamodb.UpdateItemInput{
		TableName:        aws.String("pokemons"),
		Key:              map[string]ddbtypes.AttributeValue{"id": &ddbtypes.AttributeValueMemberS{Value: "1"}},
		UpdateExpression: aws.String("REMOVE #l[0],#l[1]"),
		ExpressionAttributeNames: map[string]string{
			"#l": "local",
		},
	})
	require.NoError(t, err)

	// DELETE
	_, err = cli.UpdateItem(context.Background(), &dynamodb.UpdateItemInput{
		TableName:        aws.String("pokemons"),
		Key:              map[string]ddbtypes.AttributeValue{"id": &ddbtypes.AttributeValueMemberS{Value: "1"}},
		UpdateExpression: aws.String("DELETE moves :move"),
		ExpressionAttributeValues: map[string]ddbtypes.AttributeValue{
			":move": &ddbtypes.AttributeValueMemberSS{Value: []string{"Growl"}},
		},
	})
	require.NoError(t, err)
}

func TestServerQueryPaginationAndFilters(t *testing.T) {
	ts := httptest.NewServer(NewServer())
	defer ts.Close()
	cli := newTestDynamoClient(t, ts.URL)

	// table + GSI
	_, err := cli.CreateTable(context.Background(), &dynamodb.CreateTableInput{
		TableName: aws.String("pokemons"),
		KeySchema: []ddbtypes.KeySchemaElement{
			{AttributeName: aws.String("id"), KeyType: ddbtypes.KeyTypeHash},
		},
		AttributeDefinitions: []ddbtypes.AttributeDefinition{
			{AttributeName: aws.String("id"), AttributeType: ddbtypes.ScalarAttributeTypeS},
			{AttributeName: aws.String("type"), AttributeType: ddbtypes.ScalarAttributeTypeS},
		},
		BillingMode: ddbtypes.BillingModePayPerRequest,
		GlobalSecondaryIndexes: []ddbtypes.GlobalSecondaryIndex{
			{
				IndexName: aws.String("by-type"),
				KeySchema: []ddbtypes.KeySchemaElement{
					{AttributeName: aws.String("type"), KeyType: ddbtypes.KeyTypeHash},
					{AttributeName: aws.String("id"), KeyType: ddbtypes.KeyTypeRange},
				},
				Projection: &ddbtypes.Projection{ProjectionType: ddbtypes.ProjectionTypeAll},
			},
		},
	})
	require.NoError(t, err)

	put := func(id, typ string) {
		_, putErr := cli.PutItem(context.Background(), &dynamodb.PutItemInput{
			TableName: aws.String("pokemons"),
			Item: map[string]ddbtypes.AttributeValue{
				"id":   &ddbtypes.AttributeValueMemberS{Value: id},
				"type": &ddbtypes.AttributeValueMemberS{Value: typ},
				"name": &ddbtypes.AttributeValueMemberS{Value: "n-" + id},
			},
		})
		require.NoError(t, putErr)
	}
	put("001", "grass")
	put("002", "grass")
	put("003", "grass")

	input := &dynamodb.QueryInput{
		TableName:              aws.String("pokemons"),
		IndexName:              aws.String("by-type"),
		KeyConditionExpression: aws.String("#type = :type"),
		ExpressionAttributeNames: map[string]string{
			"#type": "type",
		},
		ExpressionAttributeValues: map[string]ddbtypes.AttributeValue{
			":type": &ddbtypes.AttributeValueMemberS{Value: "grass"},
		},
		Limit: aws.Int32(1),
	}
	out, err := cli.Query(context.Background(), input)
	require.NoError(t, err)
	require.Len(t, out.Items, 1)
	require.NotEmpty(t, out.LastEvaluatedKey)

	input.ExclusiveStartKey = out.LastEvaluatedKey
	out, err = cli.Query(context.Background(), input)
	require.NoError(t, err)
	require.Len(t, out.Items, 1)

	// filter expression reduces results
	input.FilterExpression = aws.String("#name = :name")
	input.ExpressionAttributeNames["#name"] = "name"
	input.ExpressionAttributeValues[":name"] = &ddbtypes.AttributeValueMemberS{Value: "n-003"}
	out, err = cli.Query(context.Background(), input)
	require.NoError(t, err)
	require.Len(t, out.Items, 0) // because start key advanced
}

func TestServerServeHTTPMethodNotAllowed(t *testing.T) {
	srv := NewServer()
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, req)
	require.Equal(t, http.StatusMethodNotAllowed, rec.Code)
}

func TestServerServeHTTPUnsupportedOperation(t *testing.T) {
	srv := NewServer()
	req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader("{}"))
	req.Header.Set("X-Amz-Target", "DynamoDB_20120810.UnknownOperation")
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, req)
	require.Equal(t, http.StatusBadRequest, rec.Code)
}

type errCloseReader struct{ *strings.Reader }

func (e *errCloseReader) Close() error { return errors.New("close failed") }

var _ io.ReadCloser = (*errCloseReader)(nil)

func TestServerServeHTTPBodyCloseError(t *testing.T) {
	srv := NewServer()
	req := httptest.NewRequest(http.MethodPost, "/", &errCloseReader{Reader: strings.NewReader("{}")})
	req.Header.Set("X-Amz-Target", "DynamoDB_20120810.UnknownOperation")
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, req)
	require.Equal(t, http.StatusBadRequest, rec.Code)
}

func TestServerServeHTTPInvalidJSONBody(t *testing.T) {
	srv := NewServer()
	req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(`{"TableName":`))
	req.Header.Set("X-Amz-Target", "DynamoDB_20120810.CreateTable")
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, req)
	require.Equal(t, http.StatusBadRequest, rec.Code)
}

type failResponseWriter struct {
	hdr  http.Header
	code int
}

func (f *failResponseWriter) Header() http.Header {
	if f.hdr == nil {
		f.hdr = make(http.Header)
	}
	return f.hdr
}

func (f *failResponseWriter) WriteHeader(code int) {
	f.code = code
}

func (f *failResponseWriter) Write([]byte) (int, error) {
	return 0, errors.New("write failed")
}

func TestServerServeHTTPJSONEncodeError(t *testing.T) {
	srv := NewServer()
	cli := srv.client
	tableName := "encode-fail-table"
	_, err := cli.CreateTable(context.Background(), &CreateTableInput{
		TableName: aws.String(tableName),
		KeySchema: []ddbtypes.KeySchemaElement{
			{AttributeName: aws.String("id"), KeyType: ddbtypes.KeyTypeHash},
		},
		AttributeDefinitions: []ddbtypes.AttributeDefinition{
			{AttributeName: aws.String("id"), AttributeType: ddbtypes.ScalarAttributeTypeS},
		},
		BillingMode: ddbtypes.BillingModePayPerRequest,
	})
	require.NoError(t, err)

	req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(
		`{"TableName":"`+tableName+`"}`,
	))
	req.Header.Set("X-Amz-Target", "DynamoDB_20120810.DescribeTable")
	rec := &failResponseWriter{}
	srv.ServeHTTP(rec, req)
	require.Equal(t, http.StatusInternalServerError, rec.code)
}

func TestServerValidateTransactGetItemsInput(t *testing.T) {
	c := NewClient()
	id := map[string]*AttributeValue{"id": {S: aws.String("1")}}

	// nil input is a no-op.
	require.NoError(t, validateTransactGetItemsInput(c, nil))

	// empty TransactItems.
	require.Error(t, validateTransactGetItemsInput(c, &TransactGetItemsInput{}))

	// too many items.
	require.Error(t, validateTransactGetItemsInput(c, &TransactGetItemsInput{
		TransactItems: make([]TransactGetItem, batchGetItemRequestsLimit+1),
	}))

	// missing Get.
	require.Error(t, validateTransactGetItemsInput(c, &TransactGetItemsInput{
		TransactItems: []TransactGetItem{{Get: nil}},
	}))

	// empty table name.
	require.Error(t, validateTransactGetItemsInput(c, &TransactGetItemsInput{
		TransactItems: []TransactGetItem{{Get: &Get{TableName: aws.String(""), Key: id}}},
	}))

	// non-existent table.
	require.Error(t, validateTransactGetItemsInput(c, &TransactGetItemsInput{
		TransactItems: []TransactGetItem{{Get: &Get{TableName: aws.String("ghost"), Key: id}}},
	}))
}

func TestServerNilServerGuards(t *testing.T) {
	var s *Server

	s.EmulateFailure(FailureConditionNone)
	s.EmulateUnprocessedItems("any", matchID("1"))
	s.ClearUnprocessedItems()
	s.SetIndexActivationDelay(0)
	require.ErrorIs(t, s.ClearTable("any"), ErrServerNotInitialized)
	require.ErrorIs(t, s.ClearAllTables(), ErrServerNotInitialized)
	require.ErrorIs(t, s.Reset(), ErrServerNotInitialized)
}

func TestServerEmulateFailureDeprecated(t *testing.T) {
	s := NewServer()
	ts := httptest.NewServer(s)
	defer ts.Close()

	cli := newTestDynamoClient(t, ts.URL)
	makeBasicTable(t, cli, "pokemons", "id")

	s.EmulateFailure(FailureConditionDeprecated)
	_, err := cli.PutItem(context.Background(), &dynamodb.PutItemInput{
		TableName: aws.String("pokemons"),
		Item: map[string]ddbtypes.AttributeValue{
			"id": &ddbtypes.AttributeValueMemberS{Value: "1"},
		},
	})
	var apiErr smithy.APIError
	require.ErrorAs(t, err, &apiErr)
	require.Equal(t, "InternalFailure", apiErr.ErrorCode())
	require.Contains(t, apiErr.ErrorMessage(), ErrForcedFailure.Error())

	s.EmulateFailure(FailureConditionNone)
	_, err = cli.PutItem(context.Background(), &dynamodb.PutItemInput{
		TableName: aws.String("pokemons"),
		Item: map[string]ddbtypes.AttributeValue{
			"id": &ddbtypes.AttributeValueMemberS{Value: "2"},
		},
	})
	require.NoError(t, err)
}

func TestServerCreateTableAlreadyExists(t *testing.T) {
	ts := httptest.NewServer(NewServer())
	defer ts.Close()
	cli := newTestDynamoClient(t, ts.URL)

	makeBasicTable(t, cli, "pokemons", "id")
	_, err := cli.CreateTable(context.Background(), &dynamodb.CreateTableInput{
		TableName: aws.String("pokemons"),
		KeySchema: []ddbtypes.KeySchemaElement{
			{AttributeName: aws.String("id"), KeyType: ddbtypes.KeyTypeHash},
		},
		AttributeDefinitions: []ddbtypes.AttributeDefinition{
			{AttributeName: aws.String("id"), AttributeType: ddbtypes.ScalarAttributeTypeS},
		},
		BillingMode: ddbtypes.BillingModePayPerRequest,
	})
	var inUse *ddbtypes.ResourceInUseException
	require.ErrorAs(t, err, &inUse)
}

func TestServerPutItemMissingPartitionKeyValidation(t *testing.T) {
	ts := httptest.NewServer(NewServer())
	defer ts.Close()
	cli := newTestDynamoClient(t, ts.URL)

	makeBasicTable(t, cli, "pokemons", "id")
	_, err := cli.PutItem(context.Background(), &dynamodb.PutItemInput{
		TableName: aws.String("pokemons"),
		Item: map[string]ddbtypes.AttributeValue{
			"name": &ddbtypes.AttributeValueMemberS{Value: "no-id"},
		},
	})
	var apiErr smithy.APIError
	require.ErrorAs(t, err, &apiErr)
	require.Equal(t, "ValidationException", apiErr.ErrorCode())
}

func TestServerUpdateItemConditionalFailureReturnsAllOldItem(t *testing.T) {
	// In-memory client: HTTP error responses only encode __type and message, so Item is
	// not round-tripped through the SDK; mapTypesMapToDDBAttributeValue is exercised here.
	srv := NewServer()
	ctx := context.Background()

	_, err := srv.client.CreateTable(ctx, &CreateTableInput{
		TableName: aws.String("pokemons"),
		KeySchema: []ddbtypes.KeySchemaElement{
			{AttributeName: aws.String("id"), KeyType: ddbtypes.KeyTypeHash},
		},
		AttributeDefinitions: []ddbtypes.AttributeDefinition{
			{AttributeName: aws.String("id"), AttributeType: ddbtypes.ScalarAttributeTypeS},
		},
		BillingMode: ddbtypes.BillingModePayPerRequest,
	})
	require.NoError(t, err)

	_, err = srv.client.PutItem(ctx, &PutItemInput{
		TableName: aws.String("pokemons"),
		Item: map[string]*AttributeValue{
			"id":   {S: aws.String("001")},
			"name": {S: aws.String("Bulbasaur")},
			"lvl":  {N: aws.String("5")},
			"tags": {SS: []*string{aws.String("grass"), aws.String("poison")}},
			"meta": {M: map[string]*AttributeValue{
				"region": {S: aws.String("kanto")},
			}},
		},
	})
	require.NoError(t, err)

	_, err = srv.client.UpdateItem(ctx, &UpdateItemInput{
		TableName: aws.String("pokemons"),
		Key: map[string]*AttributeValue{
			"id": {S: aws.String("001")},
		},
		ConditionExpression:                 aws.String("attribute_not_exists(#id)"),
		UpdateExpression:                    aws.String("SET #lvl = :lvl"),
		ReturnValues:                        ddbtypes.ReturnValueUpdatedNew,
		ReturnValuesOnConditionCheckFailure: ddbtypes.ReturnValuesOnConditionCheckFailureAllOld,
		ExpressionAttributeNames: map[string]string{
			"#id":  "id",
			"#lvl": "lvl",
		},
		ExpressionAttributeValues: map[string]*AttributeValue{
			":lvl": {N: aws.String("99")},
		},
	})

	var cond *ddbtypes.ConditionalCheckFailedException
	require.ErrorAs(t, err, &cond)
	require.NotNil(t, cond.Item)
	require.Equal(t, "001", cond.Item["id"].(*ddbtypes.AttributeValueMemberS).Value)
	require.Equal(t, "Bulbasaur", cond.Item["name"].(*ddbtypes.AttributeValueMemberS).Value)
	require.Equal(t, "5", cond.Item["lvl"].(*ddbtypes.AttributeValueMemberN).Value)
	require.ElementsMatch(t, []string{"grass", "poison"}, cond.Item["tags"].(*ddbtypes.AttributeValueMemberSS).Value)
	require.Equal(t, "kanto", cond.Item["meta"].(*ddbtypes.AttributeValueMemberM).Value["region"].(*ddbtypes.AttributeValueMemberS).Value)
}

func TestServerBatchWriteItemHardFailsOnEmulatedInternalError(t *testing.T) {
	s := NewServer()
	ts := httptest.NewServer(s)
	defer ts.Close()

	cli := newTestDynamoClient(t, ts.URL)
	makeBasicTable(t, cli, "pokemons", "id")

	s.EmulateFailure(FailureConditionInternalServerError)

	_, err := cli.BatchWriteItem(context.Background(), &dynamodb.BatchWriteItemInput{
		RequestItems: map[string][]ddbtypes.WriteRequest{
			"pokemons": {
				{PutRequest: &ddbtypes.PutRequest{Item: map[string]ddbtypes.AttributeValue{
					"id": &ddbtypes.AttributeValueMemberS{Value: "a"},
				}}},
				{PutRequest: &ddbtypes.PutRequest{Item: map[string]ddbtypes.AttributeValue{
					"id": &ddbtypes.AttributeValueMemberS{Value: "b"},
				}}},
			},
		},
	})

	var internal *ddbtypes.InternalServerError

	require.ErrorAs(t, err, &internal)

	s.EmulateFailure(FailureConditionNone)

	_, err = cli.BatchWriteItem(context.Background(), &dynamodb.BatchWriteItemInput{
		RequestItems: map[string][]ddbtypes.WriteRequest{
			"pokemons": {
				{PutRequest: &ddbtypes.PutRequest{Item: map[string]ddbtypes.AttributeValue{
					"id": &ddbtypes.AttributeValueMemberS{Value: "ok"},
				}}},
			},
		},
	})
	require.NoError(t, err)

	got, err := cli.GetItem(context.Background(), &dynamodb.GetItemInput{
		TableName: aws.String("pokemons"),
		Key:       map[string]ddbtypes.AttributeValue{"id": &ddbtypes.AttributeValueMemberS{Value: "ok"}},
	})
	require.NoError(t, err)
	require.NotEmpty(t, got.Item)
}

func TestServerBatchGetItemHardFailsOnEmulatedInternalError(t *testing.T) {
	s := NewServer()
	ts := httptest.NewServer(s)
	defer ts.Close()

	cli := newTestDynamoClient(t, ts.URL)
	makeBasicTable(t, cli, "pokemons", "id")

	s.EmulateFailure(FailureConditionInternalServerError)

	_, err := cli.BatchGetItem(context.Background(), &dynamodb.BatchGetItemInput{
		RequestItems: map[string]ddbtypes.KeysAndAttributes{
			"pokemons": {Keys: []map[string]ddbtypes.AttributeValue{
				{"id": &ddbtypes.AttributeValueMemberS{Value: "a"}},
			}},
		},
	})

	var internal *ddbtypes.InternalServerError

	require.ErrorAs(t, err, &internal)
}

// matchID returns a predicate that marks the item/key whose "id" string attribute
// equals the given value as unprocessed.
func matchID(id string) func(int, map[string]*AttributeValue) bool {
	return func(_ int, raw map[string]*AttributeValue) bool {
		av, ok := raw["id"]

		return ok && av != nil && av.S != nil && *av.S == id
	}
}

func TestServerEmulateUnprocessedItemsBatchWriteByAttribute(t *testing.T) {
	s := NewServer()
	ts := httptest.NewServer(s)
	defer ts.Close()

	cli := newTestDynamoClient(t, ts.URL)
	makeBasicTable(t, cli, "pokemons", "id")

	s.EmulateUnprocessedItems("pokemons", matchID("1"))

	out, err := cli.BatchWriteItem(context.Background(), &dynamodb.BatchWriteItemInput{
		RequestItems: map[string][]ddbtypes.WriteRequest{
			"pokemons": {
				{PutRequest: &ddbtypes.PutRequest{Item: map[string]ddbtypes.AttributeValue{"id": &ddbtypes.AttributeValueMemberS{Value: "1"}}}},
				{PutRequest: &ddbtypes.PutRequest{Item: map[string]ddbtypes.AttributeValue{"id": &ddbtypes.AttributeValueMemberS{Value: "2"}}}},
			},
		},
	})
	require.NoError(t, err)
	require.Len(t, out.UnprocessedItems["pokemons"], 1)
	require.Equal(t, "1", out.UnprocessedItems["pokemons"][0].PutRequest.Item["id"].(*ddbtypes.AttributeValueMemberS).Value)

	// "2" was written, "1" was left unprocessed (not written).
	got2, err := cli.GetItem(context.Background(), &dynamodb.GetItemInput{
		TableName: aws.String("pokemons"),
		Key:       map[string]ddbtypes.AttributeValue{"id": &ddbtypes.AttributeValueMemberS{Value: "2"}},
	})
	require.NoError(t, err)
	require.NotEmpty(t, got2.Item)

	got1, err := cli.GetItem(context.Background(), &dynamodb.GetItemInput{
		TableName: aws.String("pokemons"),
		Key:       map[string]ddbtypes.AttributeValue{"id": &ddbtypes.AttributeValueMemberS{Value: "1"}},
	})
	require.NoError(t, err)
	require.Empty(t, got1.Item)
}

func TestServerEmulateUnprocessedItemsBatchWriteByIndex(t *testing.T) {
	s := NewServer()
	ts := httptest.NewServer(s)
	defer ts.Close()

	cli := newTestDynamoClient(t, ts.URL)
	makeBasicTable(t, cli, "pokemons", "id")

	s.EmulateUnprocessedItems("pokemons", func(n int, _ map[string]*AttributeValue) bool {
		return n == 0
	})

	out, err := cli.BatchWriteItem(context.Background(), &dynamodb.BatchWriteItemInput{
		RequestItems: map[string][]ddbtypes.WriteRequest{
			"pokemons": {
				{PutRequest: &ddbtypes.PutRequest{Item: map[string]ddbtypes.AttributeValue{"id": &ddbtypes.AttributeValueMemberS{Value: "1"}}}},
				{PutRequest: &ddbtypes.PutRequest{Item: map[string]ddbtypes.AttributeValue{"id": &ddbtypes.AttributeValueMemberS{Value: "2"}}}},
			},
		},
	})
	require.NoError(t, err)
	require.Len(t, out.UnprocessedItems["pokemons"], 1)
	require.Equal(t, "1", out.UnprocessedItems["pokemons"][0].PutRequest.Item["id"].(*ddbtypes.AttributeValueMemberS).Value)
}

func TestServerEmulateUnprocessedItemsBatchWriteDelete(t *testing.T) {
	s := NewServer()
	ts := httptest.NewServer(s)
	defer ts.Close()

	cli := newTestDynamoClient(t, ts.URL)
	makeBasicTable(t, cli, "pokemons", "id")

	for _, id := range []string{"1", "2"} {
		_, err := cli.PutItem(context.Background(), &dynamodb.PutItemInput{
			TableName: aws.String("pokemons"),
			Item:      map[string]ddbtypes.AttributeValue{"id": &ddbtypes.AttributeValueMemberS{Value: id}},
		})
		require.NoError(t, err)
	}

	s.EmulateUnprocessedItems("pokemons", matchID("1"))

	out, err := cli.BatchWriteItem(context.Background(), &dynamodb.BatchWriteItemInput{
		RequestItems: map[string][]ddbtypes.WriteRequest{
			"pokemons": {
				{DeleteRequest: &ddbtypes.DeleteRequest{Key: map[string]ddbtypes.AttributeValue{"id": &ddbtypes.AttributeValueMemberS{Value: "1"}}}},
				{DeleteRequest: &ddbtypes.DeleteRequest{Key: map[string]ddbtypes.AttributeValue{"id": &ddbtypes.AttributeValueMemberS{Value: "2"}}}},
			},
		},
	})
	require.NoError(t, err)
	require.Len(t, out.UnprocessedItems["pokemons"], 1)

	// "1" was left unprocessed so it still exists; "2" was deleted.
	got1, err := cli.GetItem(context.Background(), &dynamodb.GetItemInput{
		TableName: aws.String("pokemons"),
		Key:       map[string]ddbtypes.AttributeValue{"id": &ddbtypes.AttributeValueMemberS{Value: "1"}},
	})
	require.NoError(t, err)
	require.NotEmpty(t, got1.Item)

	got2, err := cli.GetItem(context.Background(), &dynamodb.GetItemInput{
		TableName: aws.String("pokemons"),
		Key:       map[string]ddbtypes.AttributeValue{"id": &ddbtypes.AttributeValueMemberS{Value: "2"}},
	})
	require.NoError(t, err)
	require.Empty(t, got2.Item)
}

func TestServerEmulateUnprocessedItemsBatchGet(t *testing.T) {
	s := NewServer()
	ts := httptest.NewServer(s)
	defer ts.Close()

	cli := newTestDynamoClient(t, ts.URL)
	makeBasicTable(t, cli, "pokemons", "id")

	for _, id := range []string{"1", "2"} {
		_, err := cli.PutItem(context.Background(), &dynamodb.PutItemInput{
			TableName: aws.String("pokemons"),
			Item:      map[string]ddbtypes.AttributeValue{"id": &ddbtypes.AttributeValueMemberS{Value: id}},
		})
		require.NoError(t, err)
	}

	s.EmulateUnprocessedItems("pokemons", matchID("1"))

	out, err := cli.BatchGetItem(context.Background(), &dynamodb.BatchGetItemInput{
		RequestItems: map[string]ddbtypes.KeysAndAttributes{
			"pokemons": {Keys: []map[string]ddbtypes.AttributeValue{
				{"id": &ddbtypes.AttributeValueMemberS{Value: "1"}},
				{"id": &ddbtypes.AttributeValueMemberS{Value: "2"}},
			}},
		},
	})
	require.NoError(t, err)
	require.Len(t, out.UnprocessedKeys["pokemons"].Keys, 1)
	require.Equal(t, "1", out.UnprocessedKeys["pokemons"].Keys[0]["id"].(*ddbtypes.AttributeValueMemberS).Value)
	require.Len(t, out.Responses["pokemons"], 1)
	require.Equal(t, "2", out.Responses["pokemons"][0]["id"].(*ddbtypes.AttributeValueMemberS).Value)
}

func TestServerEmulateUnprocessedItemsDoesNotAffectSingleOps(t *testing.T) {
	s := NewServer()
	ts := httptest.NewServer(s)
	defer ts.Close()

	cli := newTestDynamoClient(t, ts.URL)
	makeBasicTable(t, cli, "pokemons", "id")

	s.EmulateUnprocessedItems("pokemons", matchID("1"))

	_, err := cli.PutItem(context.Background(), &dynamodb.PutItemInput{
		TableName: aws.String("pokemons"),
		Item:      map[string]ddbtypes.AttributeValue{"id": &ddbtypes.AttributeValueMemberS{Value: "1"}},
	})
	require.NoError(t, err)

	got, err := cli.GetItem(context.Background(), &dynamodb.GetItemInput{
		TableName: aws.String("pokemons"),
		Key:       map[string]ddbtypes.AttributeValue{"id": &ddbtypes.AttributeValueMemberS{Value: "1"}},
	})
	require.NoError(t, err)
	require.NotEmpty(t, got.Item)

	_, err = cli.DeleteItem(context.Background(), &dynamodb.DeleteItemInput{
		TableName: aws.String("pokemons"),
		Key:       map[string]ddbtypes.AttributeValue{"id": &ddbtypes.AttributeValueMemberS{Value: "1"}},
	})
	require.NoError(t, err)
}

func TestServerEmulateUnprocessedItemsStickyAndClear(t *testing.T) {
	s := NewServer()
	ts := httptest.NewServer(s)
	defer ts.Close()

	cli := newTestDynamoClient(t, ts.URL)
	makeBasicTable(t, cli, "pokemons", "id")

	batch := &dynamodb.BatchWriteItemInput{
		RequestItems: map[string][]ddbtypes.WriteRequest{
			"pokemons": {
				{PutRequest: &ddbtypes.PutRequest{Item: map[string]ddbtypes.AttributeValue{"id": &ddbtypes.AttributeValueMemberS{Value: "1"}}}},
			},
		},
	}

	s.EmulateUnprocessedItems("pokemons", matchID("1"))

	// Sticky: two consecutive batches both leave "1" unprocessed.
	for range 2 {
		out, err := cli.BatchWriteItem(context.Background(), batch)
		require.NoError(t, err)
		require.Len(t, out.UnprocessedItems["pokemons"], 1)
	}

	// Per-table clear via nil predicate.
	s.EmulateUnprocessedItems("pokemons", nil)

	out, err := cli.BatchWriteItem(context.Background(), batch)
	require.NoError(t, err)
	require.Empty(t, out.UnprocessedItems["pokemons"])

	// Re-arm then clear with ClearUnprocessedItems.
	s.EmulateUnprocessedItems("pokemons", matchID("1"))
	s.ClearUnprocessedItems()

	out, err = cli.BatchWriteItem(context.Background(), batch)
	require.NoError(t, err)
	require.Empty(t, out.UnprocessedItems["pokemons"])
}

func TestServerGetItemKeyValidationError(t *testing.T) {
	ts := httptest.NewServer(NewServer())
	defer ts.Close()
	cli := newTestDynamoClient(t, ts.URL)

	makeBasicTable(t, cli, "pokemons", "id")
	_, err := cli.GetItem(context.Background(), &dynamodb.GetItemInput{
		TableName: aws.String("pokemons"),
		Key: map[string]ddbtypes.AttributeValue{
			"wrong": &ddbtypes.AttributeValueMemberS{Value: "x"},
		},
	})
	var apiErr smithy.APIError
	require.ErrorAs(t, err, &apiErr)
	require.Equal(t, "ValidationException", apiErr.ErrorCode())
}

func TestServerDeleteItemMissingTable(t *testing.T) {
	ts := httptest.NewServer(NewServer())
	defer ts.Close()
	cli := newTestDynamoClient(t, ts.URL)

	_, err := cli.DeleteItem(context.Background(), &dynamodb.DeleteItemInput{
		TableName: aws.String("nope"),
		Key: map[string]ddbtypes.AttributeValue{
			"id": &ddbtypes.AttributeValueMemberS{Value: "1"},
		},
	})
	var notFound *ddbtypes.ResourceNotFoundException
	require.ErrorAs(t, err, &notFound)
}

func TestServerDeleteItemKeyValidationError(t *testing.T) {
	ts := httptest.NewServer(NewServer())
	defer ts.Close()
	cli := newTestDynamoClient(t, ts.URL)

	makeBasicTable(t, cli, "pokemons", "id")
	_, err := cli.DeleteItem(context.Background(), &dynamodb.DeleteItemInput{
		TableName: aws.String("pokemons"),
		Key: map[string]ddbtypes.AttributeValue{
			"wrong": &ddbtypes.AttributeValueMemberS{Value: "x"},
		},
	})
	var apiErr smithy.APIError
	require.ErrorAs(t, err, &apiErr)
	require.Equal(t, "ValidationException", apiErr.ErrorCode())
}

func TestServerDeleteItemEmulateInternalError(t *testing.T) {
	s := NewServer()
	ts := httptest.NewServer(s)
	defer ts.Close()
	cli := newTestDynamoClient(t, ts.URL)

	makeBasicTable(t, cli, "pokemons", "id")
	s.EmulateFailure(FailureConditionInternalServerError)

	_, err := cli.DeleteItem(context.Background(), &dynamodb.DeleteItemInput{
		TableName: aws.String("pokemons"),
		Key: map[string]ddbtypes.AttributeValue{
			"id": &ddbtypes.AttributeValueMemberS{Value: "1"},
		},
	})
	var internal *ddbtypes.InternalServerError
	require.ErrorAs(t, err, &internal)

	s.EmulateFailure(FailureConditionNone)
}

func TestServerDeleteItemWithExpressionAttributeNames(t *testing.T) {
	ts := httptest.NewServer(NewServer())
	defer ts.Close()
	cli := newTestDynamoClient(t, ts.URL)

	makeBasicTable(t, cli, "pokemons", "id")
	_, err := cli.PutItem(context.Background(), &dynamodb.PutItemInput{
		TableName: aws.String("pokemons"),
		Item: map[string]ddbtypes.AttributeValue{
			"id": &ddbtypes.AttributeValueMemberS{Value: "1"},
		},
	})
	require.NoError(t, err)

	_, err = cli.DeleteItem(context.Background(), &dynamodb.DeleteItemInput{
		TableName: aws.String("pokemons"),
		Key: map[string]ddbtypes.AttributeValue{
			"id": &ddbtypes.AttributeValueMemberS{Value: "1"},
		},
		ConditionExpression: aws.String("attribute_exists(#id)"),
		ExpressionAttributeNames: map[string]string{
			"#id": "id",
		},
	})
	require.NoError(t, err)
}

func TestServerUpdateTableDeleteMissingGSI(t *testing.T) {
	ts := httptest.NewServer(NewServer())
	defer ts.Close()
	cli := newTestDynamoClient(t, ts.URL)

	makeBasicTable(t, cli, "pokemons", "id")

	_, err := cli.UpdateTable(context.Background(), &dynamodb.UpdateTableInput{
		TableName: aws.String("pokemons"),
		GlobalSecondaryIndexUpdates: []ddbtypes.GlobalSecondaryIndexUpdate{
			{Delete: &ddbtypes.DeleteGlobalSecondaryIndexAction{
				IndexName: aws.String("no-such-index"),
			}},
		},
	})
	var notFound *ddbtypes.ResourceNotFoundException
	require.ErrorAs(t, err, &notFound)
}

func TestServerCreateTableWithProvisionedThroughput(t *testing.T) {
	ts := httptest.NewServer(NewServer())
	defer ts.Close()
	cli := newTestDynamoClient(t, ts.URL)

	_, err := cli.CreateTable(context.Background(), &dynamodb.CreateTableInput{
		TableName: aws.String("counters"),
		KeySchema: []ddbtypes.KeySchemaElement{
			{AttributeName: aws.String("id"), KeyType: ddbtypes.KeyTypeHash},
		},
		AttributeDefinitions: []ddbtypes.AttributeDefinition{
			{AttributeName: aws.String("id"), AttributeType: ddbtypes.ScalarAttributeTypeS},
		},
		BillingMode: ddbtypes.BillingModeProvisioned,
		ProvisionedThroughput: &ddbtypes.ProvisionedThroughput{
			ReadCapacityUnits:  aws.Int64(5),
			WriteCapacityUnits: aws.Int64(5),
		},
	})
	require.NoError(t, err)
}

func TestServerBatchWriteItemDeleteRequest(t *testing.T) {
	ts := httptest.NewServer(NewServer())
	defer ts.Close()
	cli := newTestDynamoClient(t, ts.URL)

	makeBasicTable(t, cli, "pokemons", "id")
	_, err := cli.PutItem(context.Background(), &dynamodb.PutItemInput{
		TableName: aws.String("pokemons"),
		Item: map[string]ddbtypes.AttributeValue{
			"id": &ddbtypes.AttributeValueMemberS{Value: "1"},
		},
	})
	require.NoError(t, err)

	_, err = cli.BatchWriteItem(context.Background(), &dynamodb.BatchWriteItemInput{
		RequestItems: map[string][]ddbtypes.WriteRequest{
			"pokemons": {
				{DeleteRequest: &ddbtypes.DeleteRequest{
					Key: map[string]ddbtypes.AttributeValue{
						"id": &ddbtypes.AttributeValueMemberS{Value: "1"},
					},
				}},
			},
		},
	})
	require.NoError(t, err)

	out, err := cli.GetItem(context.Background(), &dynamodb.GetItemInput{
		TableName: aws.String("pokemons"),
		Key: map[string]ddbtypes.AttributeValue{
			"id": &ddbtypes.AttributeValueMemberS{Value: "1"},
		},
	})
	require.NoError(t, err)
	require.Empty(t, out.Item)
}

func TestServerScanFiltersAndErrors(t *testing.T) {
	ts := httptest.NewServer(NewServer())
	defer ts.Close()
	cli := newTestDynamoClient(t, ts.URL)

	makeBasicTable(t, cli, "pokemons", "id")
	for i := range 2 {
		_, err := cli.PutItem(context.Background(), &dynamodb.PutItemInput{
			TableName: aws.String("pokemons"),
			Item: map[string]ddbtypes.AttributeValue{
				"id":   &ddbtypes.AttributeValueMemberS{Value: fmt.Sprintf("%d", i)},
				"type": &ddbtypes.AttributeValueMemberS{Value: "grass"},
			},
		})
		require.NoError(t, err)
	}

	// scan ok
	_, err := cli.Scan(context.Background(), &dynamodb.ScanInput{
		TableName: aws.String("pokemons"),
	})
	require.NoError(t, err)
}

func TestClientGetItemMissingTableEmulatedErrorAndInvalidKeyMap(t *testing.T) {
	ctx := context.Background()
	s := NewServer()
	cli := s.client

	_, err := cli.CreateTable(ctx, &CreateTableInput{
		TableName: aws.String("items"),
		KeySchema: []ddbtypes.KeySchemaElement{
			{AttributeName: aws.String("id"), KeyType: ddbtypes.KeyTypeHash},
		},
		AttributeDefinitions: []ddbtypes.AttributeDefinition{
			{AttributeName: aws.String("id"), AttributeType: ddbtypes.ScalarAttributeTypeS},
		},
		BillingMode: ddbtypes.BillingModePayPerRequest,
	})
	require.NoError(t, err)

	_, err = cli.GetItem(ctx, &GetItemInput{
		TableName: aws.String("no-such-table"),
		Key:       map[string]*AttributeValue{"id": {S: aws.String("1")}},
	})
	var notFound *ddbtypes.ResourceNotFoundException
	require.ErrorAs(t, err, &notFound)

	s.EmulateFailure(FailureConditionInternalServerError)
	_, err = cli.GetItem(ctx, &GetItemInput{
		TableName: aws.String("items"),
		Key:       map[string]*AttributeValue{"id": {S: aws.String("1")}},
	})
	var internal *ddbtypes.InternalServerError
	require.ErrorAs(t, err, &internal)
	s.EmulateFailure(FailureConditionNone)

	dupA, dupB := "x", "x"
	_, err = cli.GetItem(ctx, &GetItemInput{
		TableName: aws.String("items"),
		Key: map[string]*AttributeValue{
			"id": {SS: []*string{&dupA, &dupB}},
		},
	})
	var apiErr smithy.APIError
	require.ErrorAs(t, err, &apiErr)
	require.Equal(t, "ValidationException", apiErr.ErrorCode())
	require.Contains(t, apiErr.ErrorMessage(), "duplicates")
}

func TestClientQueryScanMissingTableEmulatedErrorAndInvalidExprValues(t *testing.T) {
	ctx := context.Background()
	s := NewServer()
	cli := s.client

	_, err := cli.CreateTable(ctx, &CreateTableInput{
		TableName: aws.String("items"),
		KeySchema: []ddbtypes.KeySchemaElement{
			{AttributeName: aws.String("id"), KeyType: ddbtypes.KeyTypeHash},
		},
		AttributeDefinitions: []ddbtypes.AttributeDefinition{
			{AttributeName: aws.String("id"), AttributeType: ddbtypes.ScalarAttributeTypeS},
		},
		BillingMode: ddbtypes.BillingModePayPerRequest,
	})
	require.NoError(t, err)

	_, err = cli.Query(ctx, &QueryInput{
		TableName: aws.String("missing"),
	})
	var notFoundQ *ddbtypes.ResourceNotFoundException
	require.ErrorAs(t, err, &notFoundQ)

	_, err = cli.Scan(ctx, &ScanInput{
		TableName: aws.String("missing"),
	})
	var notFoundS *ddbtypes.ResourceNotFoundException
	require.ErrorAs(t, err, &notFoundS)

	s.EmulateFailure(FailureConditionInternalServerError)
	_, err = cli.Query(ctx, &QueryInput{TableName: aws.String("items")})
	var internalQ *ddbtypes.InternalServerError
	require.ErrorAs(t, err, &internalQ)

	_, err = cli.Scan(ctx, &ScanInput{TableName: aws.String("items")})
	var internalS *ddbtypes.InternalServerError
	require.ErrorAs(t, err, &internalS)
	s.EmulateFailure(FailureConditionNone)

	dupA, dupB := "p", "p"
	_, err = cli.Query(ctx, &QueryInput{
		TableName: aws.String("items"),
		ExpressionAttributeValues: map[string]*AttributeValue{
			":v": {SS: []*string{&dupA, &dupB}},
		},
	})
	var valErrQ smithy.APIError
	require.ErrorAs(t, err, &valErrQ)
	require.Equal(t, "ValidationException", valErrQ.ErrorCode())

	_, err = cli.Scan(ctx, &ScanInput{
		TableName: aws.String("items"),
		ExpressionAttributeValues: map[string]*AttributeValue{
			":v": {SS: []*string{&dupA, &dupB}},
		},
	})
	var valErrS smithy.APIError
	require.ErrorAs(t, err, &valErrS)
	require.Equal(t, "ValidationException", valErrS.ErrorCode())
}

func TestClientQueryScanIndexForwardFalseAndScanWithLimitAndStartKey(t *testing.T) {
	ctx := context.Background()
	cli := NewClient()

	_, err := cli.CreateTable(ctx, &CreateTableInput{
		TableName: aws.String("pk"),
		KeySchema: []ddbtypes.KeySchemaElement{
			{AttributeName: aws.String("h"), KeyType: ddbtypes.KeyTypeHash},
			{AttributeName: aws.String("r"), KeyType: ddbtypes.KeyTypeRange},
		},
		AttributeDefinitions: []ddbtypes.AttributeDefinition{
			{AttributeName: aws.String("h"), AttributeType: ddbtypes.ScalarAttributeTypeS},
			{AttributeName: aws.String("r"), AttributeType: ddbtypes.ScalarAttributeTypeS},
		},
		BillingMode: ddbtypes.BillingModePayPerRequest,
	})
	require.NoError(t, err)

	for _, r := range []string{"a", "b", "c"} {
		_, putErr := cli.PutItem(ctx, &PutItemInput{
			TableName: aws.String("pk"),
			Item: map[string]*AttributeValue{
				"h": {S: aws.String("1")},
				"r": {S: aws.String(r)},
			},
		})
		require.NoError(t, putErr)
	}

	qOut, err := cli.Query(ctx, &QueryInput{
		TableName:              aws.String("pk"),
		KeyConditionExpression: aws.String("h = :h"),
		ExpressionAttributeValues: map[string]*AttributeValue{
			":h": {S: aws.String("1")},
		},
		ScanIndexForward: aws.Bool(false),
		Limit:            aws.Int32(1),
	})
	require.NoError(t, err)
	require.Len(t, qOut.Items, 1)
	require.Equal(t, "c", aws.ToString(qOut.Items[0]["r"].S))
	require.NotEmpty(t, qOut.LastEvaluatedKey)

	scanOut, err := cli.Scan(ctx, &ScanInput{
		TableName: aws.String("pk"),
		Limit:     aws.Int32(2),
	})
	require.NoError(t, err)
	require.Len(t, scanOut.Items, 2)
	require.Equal(t, int32(2), scanOut.Count)
	require.NotEmpty(t, scanOut.LastEvaluatedKey)

	scan2, err := cli.Scan(ctx, &ScanInput{
		TableName:         aws.String("pk"),
		Limit:             aws.Int32(10),
		ExclusiveStartKey: scanOut.LastEvaluatedKey,
	})
	require.NoError(t, err)
	require.Len(t, scan2.Items, 1)
}

// helpers

func makeBasicTable(t *testing.T, cli *dynamodb.Client, table, hashKey string) {
	t.Helper()
	_, err := cli.CreateTable(context.Background(), &dynamodb.CreateTableInput{
		TableName: aws.String(table),
		KeySchema: []ddbtypes.KeySchemaElement{
			{AttributeName: aws.String(hashKey), KeyType: ddbtypes.KeyTypeHash},
		},
		AttributeDefinitions: []ddbtypes.AttributeDefinition{
			{AttributeName: aws.String(hashKey), AttributeType: ddbtypes.ScalarAttributeTypeS},
		},
		BillingMode: ddbtypes.BillingModePayPerRequest,
	})
	require.NoError(t, err)
}

func TestServerTransactWriteItems(t *testing.T) {
	s := NewServer()
	ts := httptest.NewServer(s)

	defer ts.Close()

	cli := newTestDynamoClient(t, ts.URL)

	makeBasicTable(t, cli, "pokemons", "id")

	t.Run("atomicity", func(t *testing.T) {
		t.Run("rollback on failure", func(t *testing.T) {
			c := require.New(t)

			_, err := cli.TransactWriteItems(context.Background(), &dynamodb.TransactWriteItemsInput{
				TransactItems: []ddbtypes.TransactWriteItem{
					{
						Put: &ddbtypes.Put{
							TableName: aws.String("pokemons"),
							Item: map[string]ddbtypes.AttributeValue{
								"id":   &ddbtypes.AttributeValueMemberS{Value: "rollback-me"},
								"name": &ddbtypes.AttributeValueMemberS{Value: "ShouldNotExist"},
							},
						},
					},
					{
						ConditionCheck: &ddbtypes.ConditionCheck{
							TableName:           aws.String("pokemons"),
							Key:                 map[string]ddbtypes.AttributeValue{"id": &ddbtypes.AttributeValueMemberS{Value: "non-existent"}},
							ConditionExpression: aws.String("attribute_exists(id)"),
						},
					},
				},
			})
			c.Error(err)

			out, err := cli.GetItem(context.Background(), &dynamodb.GetItemInput{
				TableName: aws.String("pokemons"),
				Key:       map[string]ddbtypes.AttributeValue{"id": &ddbtypes.AttributeValueMemberS{Value: "rollback-me"}},
			})
			c.NoError(err)
			c.Empty(out.Item)
		})

		t.Run("rollback across tables", func(t *testing.T) {
			c := require.New(t)

			makeBasicTable(t, cli, "items", "id")

			_, err := cli.TransactWriteItems(context.Background(), &dynamodb.TransactWriteItemsInput{
				TransactItems: []ddbtypes.TransactWriteItem{
					{
						Put: &ddbtypes.Put{
							TableName: aws.String("items"),
							Item: map[string]ddbtypes.AttributeValue{
								"id": &ddbtypes.AttributeValueMemberS{Value: "should-rollback"},
							},
						},
					},
					{
						ConditionCheck: &ddbtypes.ConditionCheck{
							TableName:           aws.String("pokemons"),
							Key:                 map[string]ddbtypes.AttributeValue{"id": &ddbtypes.AttributeValueMemberS{Value: "non-existent"}},
							ConditionExpression: aws.String("attribute_exists(id)"),
						},
					},
				},
			})

			var tce *ddbtypes.TransactionCanceledException
			c.True(errors.As(err, &tce))

			out, err := cli.GetItem(context.Background(), &dynamodb.GetItemInput{
				TableName: aws.String("items"),
				Key:       map[string]ddbtypes.AttributeValue{"id": &ddbtypes.AttributeValueMemberS{Value: "should-rollback"}},
			})
			c.NoError(err)
			c.Empty(out.Item)
		})
	})

	t.Run("validation", func(t *testing.T) {
		t.Run("empty item rejected", func(t *testing.T) {
			c := require.New(t)

			_, err := cli.TransactWriteItems(context.Background(), &dynamodb.TransactWriteItemsInput{
				TransactItems: []ddbtypes.TransactWriteItem{{}},
			})

			var apiErr smithy.APIError
			c.True(errors.As(err, &apiErr))
			c.Equal("ValidationException", apiErr.ErrorCode())
		})

		t.Run("duplicate item rejected", func(t *testing.T) {
			c := require.New(t)

			_, err := cli.TransactWriteItems(context.Background(), &dynamodb.TransactWriteItemsInput{
				TransactItems: []ddbtypes.TransactWriteItem{
					{
						Put: &ddbtypes.Put{
							TableName: aws.String("pokemons"),
							Item:      map[string]ddbtypes.AttributeValue{"id": &ddbtypes.AttributeValueMemberS{Value: "dup"}},
						},
					},
					{
						Update: &ddbtypes.Update{
							TableName:                 aws.String("pokemons"),
							Key:                       map[string]ddbtypes.AttributeValue{"id": &ddbtypes.AttributeValueMemberS{Value: "dup"}},
							UpdateExpression:          aws.String("SET #n = :n"),
							ExpressionAttributeNames:  map[string]string{"#n": "name"},
							ExpressionAttributeValues: map[string]ddbtypes.AttributeValue{":n": &ddbtypes.AttributeValueMemberS{Value: "Bulbasaur"}},
						},
					},
				},
			})

			var apiErr smithy.APIError
			c.True(errors.As(err, &apiErr))
			c.Equal("ValidationException", apiErr.ErrorCode())
		})
	})

	t.Run("error injection", func(t *testing.T) {
		t.Run("emulated server error", func(t *testing.T) {
			c := require.New(t)

			s.EmulateFailure(FailureConditionInternalServerError)
			defer s.EmulateFailure(FailureConditionNone)

			_, err := cli.TransactWriteItems(context.Background(), &dynamodb.TransactWriteItemsInput{
				TransactItems: []ddbtypes.TransactWriteItem{
					{
						Put: &ddbtypes.Put{
							TableName: aws.String("pokemons"),
							Item: map[string]ddbtypes.AttributeValue{
								"id": &ddbtypes.AttributeValueMemberS{Value: "001"},
							},
						},
					},
				},
			})

			var internalErr *ddbtypes.InternalServerError
			c.True(errors.As(err, &internalErr))
		})
	})

	t.Run("put", func(t *testing.T) {
		t.Run("success", func(t *testing.T) {
			c := require.New(t)

			_, err := cli.TransactWriteItems(context.Background(), &dynamodb.TransactWriteItemsInput{
				TransactItems: []ddbtypes.TransactWriteItem{
					{
						Put: &ddbtypes.Put{
							TableName: aws.String("pokemons"),
							Item: map[string]ddbtypes.AttributeValue{
								"id":   &ddbtypes.AttributeValueMemberS{Value: "001"},
								"name": &ddbtypes.AttributeValueMemberS{Value: "Bulbasaur"},
							},
						},
					},
				},
			})
			c.NoError(err)

			out, err := cli.GetItem(context.Background(), &dynamodb.GetItemInput{
				TableName: aws.String("pokemons"),
				Key:       map[string]ddbtypes.AttributeValue{"id": &ddbtypes.AttributeValueMemberS{Value: "001"}},
			})
			c.NoError(err)
			c.Equal("Bulbasaur", out.Item["name"].(*ddbtypes.AttributeValueMemberS).Value)
		})

		t.Run("non-existent table", func(t *testing.T) {
			c := require.New(t)

			_, err := cli.TransactWriteItems(context.Background(), &dynamodb.TransactWriteItemsInput{
				TransactItems: []ddbtypes.TransactWriteItem{
					{
						Put: &ddbtypes.Put{
							TableName: aws.String("non-existent"),
							Item:      map[string]ddbtypes.AttributeValue{"id": &ddbtypes.AttributeValueMemberS{Value: "1"}},
						},
					},
				},
			})

			var notFound *ddbtypes.ResourceNotFoundException
			c.True(errors.As(err, &notFound))
		})

		t.Run("unused expression attribute", func(t *testing.T) {
			c := require.New(t)

			_, err := cli.TransactWriteItems(context.Background(), &dynamodb.TransactWriteItemsInput{
				TransactItems: []ddbtypes.TransactWriteItem{
					{
						Put: &ddbtypes.Put{
							TableName: aws.String("pokemons"),
							Item: map[string]ddbtypes.AttributeValue{
								"id": &ddbtypes.AttributeValueMemberS{Value: "001"},
							},
							ExpressionAttributeValues: map[string]ddbtypes.AttributeValue{
								":unused": &ddbtypes.AttributeValueMemberS{Value: "x"},
							},
						},
					},
				},
			})

			var apiErr smithy.APIError
			c.True(errors.As(err, &apiErr))
			c.Equal("ValidationException", apiErr.ErrorCode())
		})

		t.Run("failing condition", func(t *testing.T) {
			c := require.New(t)

			_, err := cli.PutItem(context.Background(), &dynamodb.PutItemInput{
				TableName: aws.String("pokemons"),
				Item: map[string]ddbtypes.AttributeValue{
					"id":   &ddbtypes.AttributeValueMemberS{Value: "cond-put"},
					"name": &ddbtypes.AttributeValueMemberS{Value: "Mewtwo"},
				},
			})
			c.NoError(err)

			_, err = cli.TransactWriteItems(context.Background(), &dynamodb.TransactWriteItemsInput{
				TransactItems: []ddbtypes.TransactWriteItem{
					{
						Put: &ddbtypes.Put{
							TableName:           aws.String("pokemons"),
							Item:                map[string]ddbtypes.AttributeValue{"id": &ddbtypes.AttributeValueMemberS{Value: "cond-put"}},
							ConditionExpression: aws.String("attribute_not_exists(id)"),
						},
					},
				},
			})

			var tce *ddbtypes.TransactionCanceledException
			c.True(errors.As(err, &tce))
			c.Equal("ConditionalCheckFailed", aws.ToString(tce.CancellationReasons[0].Code))
		})
	})

	t.Run("update", func(t *testing.T) {
		t.Run("success", func(t *testing.T) {
			c := require.New(t)

			_, err := cli.PutItem(context.Background(), &dynamodb.PutItemInput{
				TableName: aws.String("pokemons"),
				Item: map[string]ddbtypes.AttributeValue{
					"id":   &ddbtypes.AttributeValueMemberS{Value: "002"},
					"name": &ddbtypes.AttributeValueMemberS{Value: "Ivysaur"},
				},
			})
			c.NoError(err)

			_, err = cli.TransactWriteItems(context.Background(), &dynamodb.TransactWriteItemsInput{
				TransactItems: []ddbtypes.TransactWriteItem{
					{
						Update: &ddbtypes.Update{
							TableName:                 aws.String("pokemons"),
							Key:                       map[string]ddbtypes.AttributeValue{"id": &ddbtypes.AttributeValueMemberS{Value: "002"}},
							UpdateExpression:          aws.String("SET #n = :n"),
							ExpressionAttributeNames:  map[string]string{"#n": "name"},
							ExpressionAttributeValues: map[string]ddbtypes.AttributeValue{":n": &ddbtypes.AttributeValueMemberS{Value: "Venusaur"}},
						},
					},
				},
			})
			c.NoError(err)

			out, err := cli.GetItem(context.Background(), &dynamodb.GetItemInput{
				TableName: aws.String("pokemons"),
				Key:       map[string]ddbtypes.AttributeValue{"id": &ddbtypes.AttributeValueMemberS{Value: "002"}},
			})
			c.NoError(err)
			c.Equal("Venusaur", out.Item["name"].(*ddbtypes.AttributeValueMemberS).Value)
		})

		t.Run("non-existent table", func(t *testing.T) {
			c := require.New(t)

			_, err := cli.TransactWriteItems(context.Background(), &dynamodb.TransactWriteItemsInput{
				TransactItems: []ddbtypes.TransactWriteItem{
					{
						Update: &ddbtypes.Update{
							TableName:                 aws.String("non-existent"),
							Key:                       map[string]ddbtypes.AttributeValue{"id": &ddbtypes.AttributeValueMemberS{Value: "1"}},
							UpdateExpression:          aws.String("SET #n = :n"),
							ExpressionAttributeNames:  map[string]string{"#n": "name"},
							ExpressionAttributeValues: map[string]ddbtypes.AttributeValue{":n": &ddbtypes.AttributeValueMemberS{Value: "x"}},
						},
					},
				},
			})

			var notFound *ddbtypes.ResourceNotFoundException
			c.True(errors.As(err, &notFound))
		})

		t.Run("unused expression attribute", func(t *testing.T) {
			c := require.New(t)

			_, err := cli.TransactWriteItems(context.Background(), &dynamodb.TransactWriteItemsInput{
				TransactItems: []ddbtypes.TransactWriteItem{
					{
						Update: &ddbtypes.Update{
							TableName:                aws.String("pokemons"),
							Key:                      map[string]ddbtypes.AttributeValue{"id": &ddbtypes.AttributeValueMemberS{Value: "001"}},
							UpdateExpression:         aws.String("SET #n = :n"),
							ExpressionAttributeNames: map[string]string{"#n": "name"},
							ExpressionAttributeValues: map[string]ddbtypes.AttributeValue{
								":n":      &ddbtypes.AttributeValueMemberS{Value: "Venusaur"},
								":unused": &ddbtypes.AttributeValueMemberS{Value: "x"},
							},
						},
					},
				},
			})

			var apiErr smithy.APIError
			c.True(errors.As(err, &apiErr))
			c.Equal("ValidationException", apiErr.ErrorCode())
		})

		t.Run("syntax error", func(t *testing.T) {
			c := require.New(t)

			_, err := cli.PutItem(context.Background(), &dynamodb.PutItemInput{
				TableName: aws.String("pokemons"),
				Item: map[string]ddbtypes.AttributeValue{
					"id":   &ddbtypes.AttributeValueMemberS{Value: "syntax-test"},
					"name": &ddbtypes.AttributeValueMemberS{Value: "Snorlax"},
				},
			})
			c.NoError(err)

			_, err = cli.TransactWriteItems(context.Background(), &dynamodb.TransactWriteItemsInput{
				TransactItems: []ddbtypes.TransactWriteItem{
					{
						Update: &ddbtypes.Update{
							TableName:                 aws.String("pokemons"),
							Key:                       map[string]ddbtypes.AttributeValue{"id": &ddbtypes.AttributeValueMemberS{Value: "syntax-test"}},
							UpdateExpression:          aws.String("SET #n = :n SET #n = :n"),
							ExpressionAttributeNames:  map[string]string{"#n": "name"},
							ExpressionAttributeValues: map[string]ddbtypes.AttributeValue{":n": &ddbtypes.AttributeValueMemberS{Value: "Munchlax"}},
						},
					},
				},
			})

			var apiErr smithy.APIError
			c.True(errors.As(err, &apiErr))
			c.Equal("ValidationException", apiErr.ErrorCode())
		})

		t.Run("failing condition", func(t *testing.T) {
			c := require.New(t)

			_, err := cli.PutItem(context.Background(), &dynamodb.PutItemInput{
				TableName: aws.String("pokemons"),
				Item: map[string]ddbtypes.AttributeValue{
					"id":   &ddbtypes.AttributeValueMemberS{Value: "cond-update"},
					"name": &ddbtypes.AttributeValueMemberS{Value: "Mew"},
				},
			})
			c.NoError(err)

			_, err = cli.TransactWriteItems(context.Background(), &dynamodb.TransactWriteItemsInput{
				TransactItems: []ddbtypes.TransactWriteItem{
					{
						Update: &ddbtypes.Update{
							TableName:                 aws.String("pokemons"),
							Key:                       map[string]ddbtypes.AttributeValue{"id": &ddbtypes.AttributeValueMemberS{Value: "cond-update"}},
							UpdateExpression:          aws.String("SET #n = :n"),
							ConditionExpression:       aws.String("attribute_not_exists(id)"),
							ExpressionAttributeNames:  map[string]string{"#n": "name"},
							ExpressionAttributeValues: map[string]ddbtypes.AttributeValue{":n": &ddbtypes.AttributeValueMemberS{Value: "Mewtwo"}},
						},
					},
				},
			})

			var tce *ddbtypes.TransactionCanceledException
			c.True(errors.As(err, &tce))
			c.Equal("ConditionalCheckFailed", aws.ToString(tce.CancellationReasons[0].Code))
		})
	})

	t.Run("delete", func(t *testing.T) {
		t.Run("success", func(t *testing.T) {
			c := require.New(t)

			_, err := cli.PutItem(context.Background(), &dynamodb.PutItemInput{
				TableName: aws.String("pokemons"),
				Item: map[string]ddbtypes.AttributeValue{
					"id":   &ddbtypes.AttributeValueMemberS{Value: "to-delete"},
					"name": &ddbtypes.AttributeValueMemberS{Value: "Gone"},
				},
			})
			c.NoError(err)

			_, err = cli.TransactWriteItems(context.Background(), &dynamodb.TransactWriteItemsInput{
				TransactItems: []ddbtypes.TransactWriteItem{
					{
						Delete: &ddbtypes.Delete{
							TableName: aws.String("pokemons"),
							Key:       map[string]ddbtypes.AttributeValue{"id": &ddbtypes.AttributeValueMemberS{Value: "to-delete"}},
						},
					},
				},
			})
			c.NoError(err)

			out, err := cli.GetItem(context.Background(), &dynamodb.GetItemInput{
				TableName: aws.String("pokemons"),
				Key:       map[string]ddbtypes.AttributeValue{"id": &ddbtypes.AttributeValueMemberS{Value: "to-delete"}},
			})
			c.NoError(err)
			c.Empty(out.Item)
		})

		t.Run("non-existent table", func(t *testing.T) {
			c := require.New(t)

			_, err := cli.TransactWriteItems(context.Background(), &dynamodb.TransactWriteItemsInput{
				TransactItems: []ddbtypes.TransactWriteItem{
					{
						Delete: &ddbtypes.Delete{
							TableName: aws.String("non-existent"),
							Key:       map[string]ddbtypes.AttributeValue{"id": &ddbtypes.AttributeValueMemberS{Value: "1"}},
						},
					},
				},
			})

			var notFound *ddbtypes.ResourceNotFoundException
			c.True(errors.As(err, &notFound))
		})

		t.Run("unused expression attribute", func(t *testing.T) {
			c := require.New(t)

			_, err := cli.TransactWriteItems(context.Background(), &dynamodb.TransactWriteItemsInput{
				TransactItems: []ddbtypes.TransactWriteItem{
					{
						Delete: &ddbtypes.Delete{
							TableName:                aws.String("pokemons"),
							Key:                      map[string]ddbtypes.AttributeValue{"id": &ddbtypes.AttributeValueMemberS{Value: "001"}},
							ExpressionAttributeNames: map[string]string{"#unused": "name"},
						},
					},
				},
			})

			var apiErr smithy.APIError
			c.True(errors.As(err, &apiErr))
			c.Equal("ValidationException", apiErr.ErrorCode())
		})

		t.Run("failing condition", func(t *testing.T) {
			c := require.New(t)

			_, err := cli.PutItem(context.Background(), &dynamodb.PutItemInput{
				TableName: aws.String("pokemons"),
				Item: map[string]ddbtypes.AttributeValue{
					"id":   &ddbtypes.AttributeValueMemberS{Value: "cond-delete"},
					"name": &ddbtypes.AttributeValueMemberS{Value: "Gengar"},
				},
			})
			c.NoError(err)

			_, err = cli.TransactWriteItems(context.Background(), &dynamodb.TransactWriteItemsInput{
				TransactItems: []ddbtypes.TransactWriteItem{
					{
						Delete: &ddbtypes.Delete{
							TableName:           aws.String("pokemons"),
							Key:                 map[string]ddbtypes.AttributeValue{"id": &ddbtypes.AttributeValueMemberS{Value: "cond-delete"}},
							ConditionExpression: aws.String("attribute_not_exists(id)"),
						},
					},
				},
			})

			var tce *ddbtypes.TransactionCanceledException
			c.True(errors.As(err, &tce))
			c.Equal("ConditionalCheckFailed", aws.ToString(tce.CancellationReasons[0].Code))
		})
	})

	t.Run("condition check", func(t *testing.T) {
		t.Run("pass", func(t *testing.T) {
			c := require.New(t)

			_, err := cli.PutItem(context.Background(), &dynamodb.PutItemInput{
				TableName: aws.String("pokemons"),
				Item: map[string]ddbtypes.AttributeValue{
					"id":   &ddbtypes.AttributeValueMemberS{Value: "025"},
					"name": &ddbtypes.AttributeValueMemberS{Value: "Pikachu"},
				},
			})
			c.NoError(err)

			_, err = cli.TransactWriteItems(context.Background(), &dynamodb.TransactWriteItemsInput{
				TransactItems: []ddbtypes.TransactWriteItem{
					{
						ConditionCheck: &ddbtypes.ConditionCheck{
							TableName:           aws.String("pokemons"),
							Key:                 map[string]ddbtypes.AttributeValue{"id": &ddbtypes.AttributeValueMemberS{Value: "025"}},
							ConditionExpression: aws.String("attribute_exists(id)"),
						},
					},
				},
			})
			c.NoError(err)
		})

		t.Run("fail", func(t *testing.T) {
			c := require.New(t)

			_, err := cli.TransactWriteItems(context.Background(), &dynamodb.TransactWriteItemsInput{
				TransactItems: []ddbtypes.TransactWriteItem{
					{
						ConditionCheck: &ddbtypes.ConditionCheck{
							TableName:           aws.String("pokemons"),
							Key:                 map[string]ddbtypes.AttributeValue{"id": &ddbtypes.AttributeValueMemberS{Value: "non-existent"}},
							ConditionExpression: aws.String("attribute_exists(id)"),
						},
					},
				},
			})

			var tce *ddbtypes.TransactionCanceledException
			c.True(errors.As(err, &tce))
			c.Equal("ConditionalCheckFailed", aws.ToString(tce.CancellationReasons[0].Code))
		})

		t.Run("returns old item on fail", func(t *testing.T) {
			c := require.New(t)

			_, err := cli.PutItem(context.Background(), &dynamodb.PutItemInput{
				TableName: aws.String("pokemons"),
				Item: map[string]ddbtypes.AttributeValue{
					"id":   &ddbtypes.AttributeValueMemberS{Value: "existing"},
					"name": &ddbtypes.AttributeValueMemberS{Value: "Squirtle"},
				},
			})
			c.NoError(err)

			_, err = cli.TransactWriteItems(context.Background(), &dynamodb.TransactWriteItemsInput{
				TransactItems: []ddbtypes.TransactWriteItem{
					{
						ConditionCheck: &ddbtypes.ConditionCheck{
							TableName:                           aws.String("pokemons"),
							Key:                                 map[string]ddbtypes.AttributeValue{"id": &ddbtypes.AttributeValueMemberS{Value: "existing"}},
							ConditionExpression:                 aws.String("attribute_not_exists(id)"),
							ReturnValuesOnConditionCheckFailure: ddbtypes.ReturnValuesOnConditionCheckFailureAllOld,
						},
					},
				},
			})

			var tce *ddbtypes.TransactionCanceledException
			c.True(errors.As(err, &tce))

			reason := tce.CancellationReasons[0]
			c.Equal("ConditionalCheckFailed", aws.ToString(reason.Code))
			c.NotEmpty(reason.Item)
			c.Equal(&ddbtypes.AttributeValueMemberS{Value: "existing"}, reason.Item["id"])
		})

		t.Run("non-existent table", func(t *testing.T) {
			c := require.New(t)

			_, err := cli.TransactWriteItems(context.Background(), &dynamodb.TransactWriteItemsInput{
				TransactItems: []ddbtypes.TransactWriteItem{
					{
						ConditionCheck: &ddbtypes.ConditionCheck{
							TableName:           aws.String("non-existent"),
							Key:                 map[string]ddbtypes.AttributeValue{"id": &ddbtypes.AttributeValueMemberS{Value: "1"}},
							ConditionExpression: aws.String("attribute_exists(id)"),
						},
					},
				},
			})

			var notFound *ddbtypes.ResourceNotFoundException
			c.True(errors.As(err, &notFound))
		})

		t.Run("wrong key attributes", func(t *testing.T) {
			c := require.New(t)

			_, err := cli.TransactWriteItems(context.Background(), &dynamodb.TransactWriteItemsInput{
				TransactItems: []ddbtypes.TransactWriteItem{
					{
						ConditionCheck: &ddbtypes.ConditionCheck{
							TableName:           aws.String("pokemons"),
							Key:                 map[string]ddbtypes.AttributeValue{"wrong_attr": &ddbtypes.AttributeValueMemberS{Value: "1"}},
							ConditionExpression: aws.String("attribute_exists(id)"),
						},
					},
				},
			})

			var apiErr smithy.APIError
			c.True(errors.As(err, &apiErr))
			c.Equal("ValidationException", apiErr.ErrorCode())
		})

		t.Run("wrong key type", func(t *testing.T) {
			c := require.New(t)

			_, err := cli.TransactWriteItems(context.Background(), &dynamodb.TransactWriteItemsInput{
				TransactItems: []ddbtypes.TransactWriteItem{
					{
						ConditionCheck: &ddbtypes.ConditionCheck{
							TableName:           aws.String("pokemons"),
							Key:                 map[string]ddbtypes.AttributeValue{"id": &ddbtypes.AttributeValueMemberN{Value: "1"}},
							ConditionExpression: aws.String("attribute_exists(id)"),
						},
					},
				},
			})

			var apiErr smithy.APIError
			c.True(errors.As(err, &apiErr))
			c.Equal("ValidationException", apiErr.ErrorCode())
		})

		t.Run("invalid expression", func(t *testing.T) {
			c := require.New(t)

			_, err := cli.PutItem(context.Background(), &dynamodb.PutItemInput{
				TableName: aws.String("pokemons"),
				Item: map[string]ddbtypes.AttributeValue{
					"id":   &ddbtypes.AttributeValueMemberS{Value: "expr-test"},
					"name": &ddbtypes.AttributeValueMemberS{Value: "Jolteon"},
				},
			})
			c.NoError(err)

			_, err = cli.TransactWriteItems(context.Background(), &dynamodb.TransactWriteItemsInput{
				TransactItems: []ddbtypes.TransactWriteItem{
					{
						ConditionCheck: &ddbtypes.ConditionCheck{
							TableName:           aws.String("pokemons"),
							Key:                 map[string]ddbtypes.AttributeValue{"id": &ddbtypes.AttributeValueMemberS{Value: "expr-test"}},
							ConditionExpression: aws.String("UNKNOWN_FUNCTION(id)"),
						},
					},
				},
			})

			var apiErr smithy.APIError
			c.True(errors.As(err, &apiErr))
			c.Equal("ValidationException", apiErr.ErrorCode())
		})
	})
}

func TestServerTransactGetItems(t *testing.T) {
	s := NewServer()
	ts := httptest.NewServer(s)

	defer ts.Close()

	cli := newTestDynamoClient(t, ts.URL)

	makeBasicTable(t, cli, "pokemons", "id")

	t.Run("single item", func(t *testing.T) {
		c := require.New(t)

		_, err := cli.PutItem(context.Background(), &dynamodb.PutItemInput{
			TableName: aws.String("pokemons"),
			Item: map[string]ddbtypes.AttributeValue{
				"id":   &ddbtypes.AttributeValueMemberS{Value: "001"},
				"name": &ddbtypes.AttributeValueMemberS{Value: "Bulbasaur"},
			},
		})
		c.NoError(err)

		out, err := cli.TransactGetItems(context.Background(), &dynamodb.TransactGetItemsInput{
			TransactItems: []ddbtypes.TransactGetItem{
				{Get: &ddbtypes.Get{
					TableName: aws.String("pokemons"),
					Key:       map[string]ddbtypes.AttributeValue{"id": &ddbtypes.AttributeValueMemberS{Value: "001"}},
				}},
			},
		})
		c.NoError(err)
		c.Len(out.Responses, 1)
		c.Equal("001", out.Responses[0].Item["id"].(*ddbtypes.AttributeValueMemberS).Value)
		c.Equal("Bulbasaur", out.Responses[0].Item["name"].(*ddbtypes.AttributeValueMemberS).Value)
	})

	t.Run("preserves order", func(t *testing.T) {
		c := require.New(t)

		for _, p := range []struct{ id, name string }{
			{"001", "Bulbasaur"},
			{"002", "Charmander"},
		} {
			_, err := cli.PutItem(context.Background(), &dynamodb.PutItemInput{
				TableName: aws.String("pokemons"),
				Item: map[string]ddbtypes.AttributeValue{
					"id":   &ddbtypes.AttributeValueMemberS{Value: p.id},
					"name": &ddbtypes.AttributeValueMemberS{Value: p.name},
				},
			})
			c.NoError(err)
		}

		out, err := cli.TransactGetItems(context.Background(), &dynamodb.TransactGetItemsInput{
			TransactItems: []ddbtypes.TransactGetItem{
				{Get: &ddbtypes.Get{TableName: aws.String("pokemons"), Key: map[string]ddbtypes.AttributeValue{"id": &ddbtypes.AttributeValueMemberS{Value: "002"}}}},
				{Get: &ddbtypes.Get{TableName: aws.String("pokemons"), Key: map[string]ddbtypes.AttributeValue{"id": &ddbtypes.AttributeValueMemberS{Value: "001"}}}},
			},
		})
		c.NoError(err)
		c.Len(out.Responses, 2)
		c.Equal("002", out.Responses[0].Item["id"].(*ddbtypes.AttributeValueMemberS).Value)
		c.Equal("001", out.Responses[1].Item["id"].(*ddbtypes.AttributeValueMemberS).Value)
	})

	t.Run("missing item", func(t *testing.T) {
		c := require.New(t)

		out, err := cli.TransactGetItems(context.Background(), &dynamodb.TransactGetItemsInput{
			TransactItems: []ddbtypes.TransactGetItem{
				{Get: &ddbtypes.Get{TableName: aws.String("pokemons"), Key: map[string]ddbtypes.AttributeValue{"id": &ddbtypes.AttributeValueMemberS{Value: "999"}}}},
			},
		})
		c.NoError(err)
		c.Len(out.Responses, 1)
		c.Empty(out.Responses[0].Item)
	})

	t.Run("projection expression", func(t *testing.T) {
		c := require.New(t)

		_, err := cli.PutItem(context.Background(), &dynamodb.PutItemInput{
			TableName: aws.String("pokemons"),
			Item: map[string]ddbtypes.AttributeValue{
				"id":   &ddbtypes.AttributeValueMemberS{Value: "001"},
				"name": &ddbtypes.AttributeValueMemberS{Value: "Bulbasaur"},
			},
		})
		c.NoError(err)

		out, err := cli.TransactGetItems(context.Background(), &dynamodb.TransactGetItemsInput{
			TransactItems: []ddbtypes.TransactGetItem{
				{Get: &ddbtypes.Get{
					TableName:                aws.String("pokemons"),
					Key:                      map[string]ddbtypes.AttributeValue{"id": &ddbtypes.AttributeValueMemberS{Value: "001"}},
					ProjectionExpression:     aws.String("#n"),
					ExpressionAttributeNames: map[string]string{"#n": "name"},
				}},
			},
		})
		c.NoError(err)
		c.Len(out.Responses, 1)
		c.Len(out.Responses[0].Item, 1)
		c.Equal("Bulbasaur", out.Responses[0].Item["name"].(*ddbtypes.AttributeValueMemberS).Value)
	})

	t.Run("duplicate item rejected", func(t *testing.T) {
		c := require.New(t)

		_, err := cli.PutItem(context.Background(), &dynamodb.PutItemInput{
			TableName: aws.String("pokemons"),
			Item: map[string]ddbtypes.AttributeValue{
				"id": &ddbtypes.AttributeValueMemberS{Value: "001"},
			},
		})
		c.NoError(err)

		_, err = cli.TransactGetItems(context.Background(), &dynamodb.TransactGetItemsInput{
			TransactItems: []ddbtypes.TransactGetItem{
				{Get: &ddbtypes.Get{TableName: aws.String("pokemons"), Key: map[string]ddbtypes.AttributeValue{"id": &ddbtypes.AttributeValueMemberS{Value: "001"}}}},
				{Get: &ddbtypes.Get{TableName: aws.String("pokemons"), Key: map[string]ddbtypes.AttributeValue{"id": &ddbtypes.AttributeValueMemberS{Value: "001"}}}},
			},
		})

		var apiErr smithy.APIError
		c.True(errors.As(err, &apiErr))
		c.Equal("ValidationException", apiErr.ErrorCode())
	})

	t.Run("empty table name rejected", func(t *testing.T) {
		c := require.New(t)

		_, err := cli.TransactGetItems(context.Background(), &dynamodb.TransactGetItemsInput{
			TransactItems: []ddbtypes.TransactGetItem{
				{Get: &ddbtypes.Get{
					TableName: aws.String(""),
					Key:       map[string]ddbtypes.AttributeValue{"id": &ddbtypes.AttributeValueMemberS{Value: "001"}},
				}},
			},
		})

		var apiErr smithy.APIError
		c.True(errors.As(err, &apiErr))
		c.Equal("ValidationException", apiErr.ErrorCode())
	})

	t.Run("invalid key rejected", func(t *testing.T) {
		c := require.New(t)

		_, err := cli.TransactGetItems(context.Background(), &dynamodb.TransactGetItemsInput{
			TransactItems: []ddbtypes.TransactGetItem{
				{Get: &ddbtypes.Get{
					TableName: aws.String("pokemons"),
					Key:       map[string]ddbtypes.AttributeValue{"t1": &ddbtypes.AttributeValueMemberS{Value: "001"}},
				}},
			},
		})

		var apiErr smithy.APIError
		c.True(errors.As(err, &apiErr))
		c.Equal("ValidationException", apiErr.ErrorCode())
	})

	t.Run("invalid key before duplicate check", func(t *testing.T) {
		c := require.New(t)

		_, err := cli.PutItem(context.Background(), &dynamodb.PutItemInput{
			TableName: aws.String("pokemons"),
			Item: map[string]ddbtypes.AttributeValue{
				"id": &ddbtypes.AttributeValueMemberS{Value: "001"},
			},
		})
		c.NoError(err)

		_, err = cli.TransactGetItems(context.Background(), &dynamodb.TransactGetItemsInput{
			TransactItems: []ddbtypes.TransactGetItem{
				{Get: &ddbtypes.Get{
					TableName: aws.String("pokemons"),
					Key:       map[string]ddbtypes.AttributeValue{"t1": &ddbtypes.AttributeValueMemberS{Value: "001"}},
				}},
				{Get: &ddbtypes.Get{TableName: aws.String("pokemons"), Key: map[string]ddbtypes.AttributeValue{"id": &ddbtypes.AttributeValueMemberS{Value: "001"}}}},
				{Get: &ddbtypes.Get{TableName: aws.String("pokemons"), Key: map[string]ddbtypes.AttributeValue{"id": &ddbtypes.AttributeValueMemberS{Value: "001"}}}},
			},
		})

		var apiErr smithy.APIError
		c.True(errors.As(err, &apiErr))
		c.Equal("ValidationException", apiErr.ErrorCode())
		c.NotContains(apiErr.ErrorMessage(), "multiple operations on one item")
	})

	t.Run("cross table", func(t *testing.T) {
		c := require.New(t)

		makeBasicTable(t, cli, "orders", "id")
		makeBasicTable(t, cli, "inventory", "id")

		_, err := cli.PutItem(context.Background(), &dynamodb.PutItemInput{
			TableName: aws.String("orders"),
			Item: map[string]ddbtypes.AttributeValue{
				"id":     &ddbtypes.AttributeValueMemberS{Value: "1"},
				"status": &ddbtypes.AttributeValueMemberS{Value: "shipped"},
			},
		})
		c.NoError(err)

		_, err = cli.PutItem(context.Background(), &dynamodb.PutItemInput{
			TableName: aws.String("inventory"),
			Item: map[string]ddbtypes.AttributeValue{
				"id":  &ddbtypes.AttributeValueMemberS{Value: "1"},
				"qty": &ddbtypes.AttributeValueMemberN{Value: "10"},
			},
		})
		c.NoError(err)

		out, err := cli.TransactGetItems(context.Background(), &dynamodb.TransactGetItemsInput{
			TransactItems: []ddbtypes.TransactGetItem{
				{Get: &ddbtypes.Get{
					TableName: aws.String("orders"),
					Key:       map[string]ddbtypes.AttributeValue{"id": &ddbtypes.AttributeValueMemberS{Value: "1"}},
				}},
				{Get: &ddbtypes.Get{
					TableName: aws.String("inventory"),
					Key:       map[string]ddbtypes.AttributeValue{"id": &ddbtypes.AttributeValueMemberS{Value: "1"}},
				}},
			},
		})
		c.NoError(err)
		c.Len(out.Responses, 2)
		c.Equal("shipped", out.Responses[0].Item["status"].(*ddbtypes.AttributeValueMemberS).Value)
		c.Equal("10", out.Responses[1].Item["qty"].(*ddbtypes.AttributeValueMemberN).Value)
	})
}
