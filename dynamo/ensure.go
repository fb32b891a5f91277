package dynamo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/pickem/api/dynamo/table"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// EnsureTable creates the table if it does not exist and waits until it is usable. It
// polls DescribeTable itself (an empty status counts as active: an engine may report
// none).
func (s *Store) EnsureTable(ctx context.Context) error {
	_, err := s.db.CreateTable(ctx, table.Definition(s.table))
	var inUse *types.ResourceInUseException
	if err != nil && !errors.As(err, &inUse) {
		return fmt.Errorf("dynamo: create table %s: %w", s.table, err)
	}
	for {
		out, err := s.db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(s.table)})
		if err != nil {
			return fmt.Errorf("dynamo: describe table %s: %w", s.table, err)
		}
		if tableReady(out.Table) {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("dynamo: wait for table %s: %w", s.table, ctx.Err())
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// Scanner is the part of the DynamoDB client TableEmpty needs.
type Scanner interface {
	Scan(context.Context, *dynamodb.ScanInput, ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error)
}

// TableEmpty reports whether table holds no item at all (one Scan of at most one item; the
// local server loads demo data only into an empty table).
func TableEmpty(ctx context.Context, db Scanner, table string) (bool, error) {
	out, err := db.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(table), Limit: aws.Int32(1)})
	if err != nil {
		return false, fmt.Errorf("dynamo: scan %s: %w", table, err)
	}
	return len(out.Items) == 0, nil
}

func tableReady(t *types.TableDescription) bool {
	if t == nil {
		return false
	}
	if t.TableStatus != "" && t.TableStatus != types.TableStatusActive {
		return false
	}
	for _, g := range t.GlobalSecondaryIndexes {
		if g.IndexStatus != "" && g.IndexStatus != types.IndexStatusActive {
			return false
		}
	}
	return true
}

// CheckLayout returns an error naming an event written by an older version of the store
// (an event row without a shard count): this store cannot serve such a table. One Query of
// the first page of events.
func (s *Store) CheckLayout(ctx context.Context) error {
	q, err := s.newQuery("", expression.Key(table.AttrPK).Equal(expression.Value(table.EventsPartition)), 100, false, "id", "shards")
	if err != nil {
		return err
	}
	out, err := s.db.Query(ctx, q)
	if err != nil {
		return fmt.Errorf("dynamo: check layout of %s: %w", s.table, err)
	}
	for _, item := range out.Items {
		var row struct {
			ID     string `dynamodbav:"id"`
			Shards int    `dynamodbav:"shards"`
		}
		if err := attributevalue.UnmarshalMap(item, &row); err != nil {
			return fmt.Errorf("dynamo: check layout of %s: %w", s.table, err)
		}
		if row.Shards < 1 {
			return fmt.Errorf("dynamo: table %s was written by an older version of the API (event %q has no shard count) and cannot be served", s.table, row.ID)
		}
	}
	return nil
}
