package ddb

import (
	"context"
	"sync"

	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"
)

// Cost is what DynamoDB calls made with one context cost. It is safe for concurrent use.
type Cost struct {
	mu         sync.Mutex
	calls      int
	operations map[string]int
	read       float64
	write      float64
	reported   bool // the engine reported consumed capacity at least once
	maxItems   int  // largest TransactWriteItems request seen
}

// CostSnapshot is a copy of a Cost. Capacity fields are nil where the engine reported
// none.
type CostSnapshot struct {
	Calls               int            `json:"calls"`
	Operations          map[string]int `json:"operations"`
	ReadCapacityUnits   *float64       `json:"readCapacityUnits"`
	WriteCapacityUnits  *float64       `json:"writeCapacityUnits"`
	MaxTransactionItems int            `json:"maxTransactionItems,omitempty"`
}

type costKey struct{}

// WithCost returns a context whose DynamoDB calls are counted into a new Cost.
func WithCost(ctx context.Context) (context.Context, *Cost) {
	c := &Cost{operations: map[string]int{}}
	return context.WithValue(ctx, costKey{}, c), c
}

// CostFromContext returns the Cost counting ctx's calls, or nil.
func CostFromContext(ctx context.Context) *Cost {
	c, _ := ctx.Value(costKey{}).(*Cost)
	return c
}

// Snapshot returns the totals so far.
func (c *Cost) Snapshot() CostSnapshot {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := CostSnapshot{Calls: c.calls, Operations: make(map[string]int, len(c.operations)), MaxTransactionItems: c.maxItems}
	for k, v := range c.operations {
		s.Operations[k] = v
	}
	if c.reported {
		r, w := c.read, c.write
		s.ReadCapacityUnits, s.WriteCapacityUnits = &r, &w
	}
	return s
}

func (c *Cost) add(op string, read, write float64, reported bool, txItems int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls++
	c.operations[op]++
	c.read += read
	c.write += write
	c.reported = c.reported || reported
	c.maxItems = max(c.maxItems, txItems)
}

// CostOption is a dynamodb client option that asks DynamoDB for consumed capacity on every
// call and adds each call to the Cost of its context (if any).
func CostOption(o *dynamodb.Options) {
	o.APIOptions = append(o.APIOptions, func(stack *middleware.Stack) error {
		return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("PickemCost", handleCost), middleware.Before)
	})
}

// An Observer sees the DynamoDB calls made with a context that carries it (WithObserver),
// through a client with CostOption: the scale model's recorder. It is never used in serving.
type Observer interface {
	// Begin is called before a call, with its operation name, its input and the read-cache
	// entry the call fills ("" for a call outside any fill: Cached). The call fails with
	// Begin's error, if any; otherwise end is called once it is done, with its output (nil
	// if it failed), its error and the capacity units the engine reported (nil: none), and
	// an error end returns fails a call that succeeded.
	Begin(op string, params any, cacheEntry string) (end func(result any, err error, readUnits, writeUnits *float64) error, err error)
}

type observerKey struct{}

// WithObserver returns a context whose DynamoDB calls (through a client with CostOption)
// o observes.
func WithObserver(ctx context.Context, o Observer) context.Context {
	return context.WithValue(ctx, observerKey{}, o)
}

func observerFromContext(ctx context.Context) Observer {
	o, _ := ctx.Value(observerKey{}).(Observer)
	return o
}

type cacheFillKey struct{}

// WithCacheFill marks the calls made with the returned context, when observed, as filling
// the read-cache entry key: a process holding key fresh would not make them, or (a call
// that also reads the caller's own items) would read only those. Cached marks its fills;
// a store that fills an entry itself marks its call. Without an observer it returns ctx.
func WithCacheFill(ctx context.Context, key string) context.Context {
	if observerFromContext(ctx) == nil {
		return ctx
	}
	return context.WithValue(ctx, cacheFillKey{}, key)
}

func handleCost(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
	c, obs := CostFromContext(ctx), observerFromContext(ctx)
	if c == nil && obs == nil {
		return next.HandleInitialize(ctx, in)
	}
	txItems := 0
	switch p := in.Parameters.(type) {
	case *dynamodb.GetItemInput:
		p.ReturnConsumedCapacity = types.ReturnConsumedCapacityTotal
	case *dynamodb.QueryInput:
		p.ReturnConsumedCapacity = types.ReturnConsumedCapacityTotal
	case *dynamodb.BatchGetItemInput:
		p.ReturnConsumedCapacity = types.ReturnConsumedCapacityTotal
	case *dynamodb.PutItemInput:
		p.ReturnConsumedCapacity = types.ReturnConsumedCapacityTotal
	case *dynamodb.UpdateItemInput:
		p.ReturnConsumedCapacity = types.ReturnConsumedCapacityTotal
	case *dynamodb.DeleteItemInput:
		p.ReturnConsumedCapacity = types.ReturnConsumedCapacityTotal
	case *dynamodb.TransactWriteItemsInput:
		p.ReturnConsumedCapacity = types.ReturnConsumedCapacityTotal
		txItems = len(p.TransactItems)
	}
	op := awsmiddleware.GetOperationName(ctx)
	var end func(result any, err error, readUnits, writeUnits *float64) error
	if obs != nil {
		entry, _ := ctx.Value(cacheFillKey{}).(string)
		var err error
		if end, err = obs.Begin(op, in.Parameters, entry); err != nil {
			return middleware.InitializeOutput{}, middleware.Metadata{}, err
		}
	}
	out, md, err := next.HandleInitialize(ctx, in)
	var read, write float64
	reported := false
	sum := func(isWrite bool, ccs ...types.ConsumedCapacity) {
		for _, cc := range ccs {
			if cc.CapacityUnits == nil {
				continue
			}
			reported = true
			if isWrite {
				write += *cc.CapacityUnits
			} else {
				read += *cc.CapacityUnits
			}
		}
	}
	one := func(cc *types.ConsumedCapacity) []types.ConsumedCapacity {
		if cc == nil {
			return nil
		}
		return []types.ConsumedCapacity{*cc}
	}
	switch r := out.Result.(type) {
	case *dynamodb.GetItemOutput:
		sum(false, one(r.ConsumedCapacity)...)
	case *dynamodb.QueryOutput:
		sum(false, one(r.ConsumedCapacity)...)
	case *dynamodb.BatchGetItemOutput:
		sum(false, r.ConsumedCapacity...)
	case *dynamodb.PutItemOutput:
		sum(true, one(r.ConsumedCapacity)...)
	case *dynamodb.UpdateItemOutput:
		sum(true, one(r.ConsumedCapacity)...)
	case *dynamodb.DeleteItemOutput:
		sum(true, one(r.ConsumedCapacity)...)
	case *dynamodb.TransactWriteItemsOutput:
		sum(true, r.ConsumedCapacity...)
	}
	if end != nil {
		if oerr := end(out.Result, err, reportedUnits(reported, read), reportedUnits(reported, write)); oerr != nil && err == nil {
			err = oerr
		}
	}
	if c != nil {
		c.add(op, read, write, reported, txItems)
	}
	return out, md, err
}

func reportedUnits(reported bool, units float64) *float64 {
	if !reported {
		return nil
	}
	return &units
}
