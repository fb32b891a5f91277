package awsfaithful_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/pickem/api/internal/awsfaithful"
	"github.com/pickem/api/internal/capacity"
	"github.com/pickem/api/internal/testclock"
)

// WaitFaults returns when the fault that satisfies its condition happens (at once if it
// already has), and ends with its context.
func TestWaitFaults(t *testing.T) {
	clock := testclock.New(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	eng := awsfaithful.New(t, awsfaithful.Config{Now: clock.Now, Capacity: capacity.Uniform(capacity.Rate{Write: 1})})
	db := eng.Client(t, noRetries)
	table := newTable(t, db)
	throttled := func(f awsfaithful.FaultCounts) bool { return f.Throttled > 0 }

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := eng.WaitFaults(ctx, throttled); !errors.Is(err, context.Canceled) {
		t.Fatalf("WaitFaults with a cancelled context and no fault = %v, want context.Canceled", err)
	}
	waited := make(chan error, 1)
	go func() { waited <- eng.WaitFaults(t.Context(), throttled) }() // nothing throttled yet: it waits
	_, err := db.PutItem(t.Context(), &dynamodb.PutItemInput{TableName: aws.String(table), Item: sized("A", "1", 2)})
	wantThrottled(t, err, "TableWriteKeyRangeThroughputExceeded") // 2 WCU on a 1 WCU/s partition
	if err := <-waited; err != nil {
		t.Fatalf("WaitFaults: %v", err)
	}
	if err := eng.WaitFaults(ctx, throttled); err != nil {
		t.Fatalf("WaitFaults once throttled (cancelled context) = %v, want nil at once", err)
	}
}
