package graph

import (
	"context"

	"github.com/99designs/gqlgen/graphql"
)

// marshalSliceInOrder marshals the elements of a list one after the other on the calling
// goroutine. `make generate` (internal/gqlpost) makes generated.go call it where gqlgen
// v0.17.95 calls graphql.MarshalSliceConcurrently(ctx, n, 0, false, f), which starts a
// goroutine per element whatever exec.worker_limit says; on a 100-row page that costs 40%
// of the CPU of executing it (docs/decisions/in-order-lists.md).
//
// It keeps MarshalSliceConcurrently's contract: each element gets a child FieldContext
// with its Index; a panic while marshalling an element is recovered and reported on that
// element's path, the other elements are still marshalled, and the list becomes nil.
// What it gives up is the overlap of elements' resolvers; internal/gqlpost fails the
// build if a field of a list element ever becomes a resolver that is not on its list of
// resolvers that do no I/O.
func marshalSliceInOrder(ctx context.Context, length int, marshalElement func(ctx context.Context, i int) graphql.Marshaler) graphql.Array {
	ret := make(graphql.Array, length)
	// The elements' field contexts and indexes, allocated once for the list.
	contexts := make([]graphql.FieldContext, length)
	indexes := make([]int, length)
	panicked := false
	for i := range length {
		indexes[i] = i
		contexts[i].Index = &indexes[i]
		childCtx := graphql.WithFieldContext(ctx, &contexts[i])
		func() {
			defer func() {
				if r := recover(); r != nil {
					graphql.AddError(childCtx, graphql.Recover(childCtx, r))
					panicked = true
				}
			}()
			ret[i] = marshalElement(childCtx, i)
		}()
	}
	if panicked {
		return nil
	}
	return ret
}
