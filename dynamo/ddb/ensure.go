package ddb

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Ensure creates the table as def defines it if it does not exist, and waits until it is
// usable. It polls DescribeTable itself (an empty status counts as active: an engine may
// report none).
func (t *Table) Ensure(ctx context.Context, def *dynamodb.CreateTableInput) error {
	_, err := t.CreateTable(ctx, def)
	var inUse *types.ResourceInUseException
	if err != nil && !errors.As(err, &inUse) {
		return fmt.Errorf("dynamo: create table %s: %w", t.Name, err)
	}
	for {
		out, err := t.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(t.Name)})
		if err != nil {
			return fmt.Errorf("dynamo: describe table %s: %w", t.Name, err)
		}
		if tableReady(out.Table) {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("dynamo: wait for table %s: %w", t.Name, ctx.Err())
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// Scanner is the part of the DynamoDB client TableEmpty needs.
type Scanner interface {
	Scan(context.Context, *dynamodb.ScanInput, ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error)
}

// TableEmpty reports whether the table name holds no item at all (one Scan of at most one
// item; the local server loads demo data only into an empty table).
func TableEmpty(ctx context.Context, db Scanner, name string) (bool, error) {
	out, err := db.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(name), Limit: aws.Int32(1)})
	if err != nil {
		return false, fmt.Errorf("dynamo: scan %s: %w", name, err)
	}
	return len(out.Items) == 0, nil
}

func tableReady(d *types.TableDescription) bool {
	if d == nil {
		return false
	}
	if d.TableStatus != "" && d.TableStatus != types.TableStatusActive {
		return false
	}
	for _, g := range d.GlobalSecondaryIndexes {
		if g.IndexStatus != "" && g.IndexStatus != types.IndexStatusActive {
			return false
		}
	}
	return true
}
