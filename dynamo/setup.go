package dynamo

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

	"github.com/pickem/api/dynamo/table"
)

// CheckLayout returns an error naming an event row without a shard count: a table of a
// layout this store cannot serve. One Query of the first page of events.
func (s *Store) CheckLayout(ctx context.Context) error {
	q, err := s.db.NewQuery("", expression.Key(table.AttrPK).Equal(expression.Value(table.EventsPartition)), 100, false, "id", "shards")
	if err != nil {
		return err
	}
	out, err := s.db.Query(ctx, q)
	if err != nil {
		return fmt.Errorf("dynamo: check layout of %s: %w", s.db.Name, err)
	}
	for _, item := range out.Items {
		var row struct {
			ID     string `dynamodbav:"id"`
			Shards int    `dynamodbav:"shards"`
		}
		if err := attributevalue.UnmarshalMap(item, &row); err != nil {
			return fmt.Errorf("dynamo: check layout of %s: %w", s.db.Name, err)
		}
		if row.Shards < 1 {
			return fmt.Errorf("dynamo: table %s was written by an older version of the API (event %q has no shard count) and cannot be served", s.db.Name, row.ID)
		}
	}
	return nil
}

// EnsureTable creates the store's table with the production definition (table.Definition)
// if it does not exist, and waits until it is usable.
func (s *Store) EnsureTable(ctx context.Context) error {
	return s.db.Ensure(ctx, table.Definition(s.db.Name))
}
