package graph

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
)

func listContext() context.Context {
	ctx := graphql.WithResponseContext(context.Background(), graphql.DefaultErrorPresenter,
		func(_ context.Context, v any) error { return errors.New("panic: " + v.(string)) })
	return graphql.WithFieldContext(ctx, &graphql.FieldContext{Field: graphql.CollectedField{Field: &ast.Field{Alias: "rows"}}})
}

func marshalled(m graphql.Marshaler) string {
	var b bytes.Buffer
	m.MarshalGQL(&b)
	return b.String()
}

func TestMarshalSliceInOrder(t *testing.T) {
	t.Run("InOrderWithIndex", func(t *testing.T) {
		var order []int
		ret := marshalSliceInOrder(listContext(), 3, func(ctx context.Context, i int) graphql.Marshaler {
			order = append(order, i)
			if got := *graphql.GetFieldContext(ctx).Index; got != i {
				t.Errorf("element %d: FieldContext.Index = %d", i, got)
			}
			return graphql.MarshalInt(10 * i)
		})
		if got := marshalled(ret); got != "[0,10,20]" {
			t.Fatalf("marshalled %s", got)
		}
		if len(order) != 3 || order[0] != 0 || order[1] != 1 || order[2] != 2 {
			t.Fatalf("order %v", order)
		}
	})
	t.Run("Empty", func(t *testing.T) {
		if got := marshalled(marshalSliceInOrder(listContext(), 0, nil)); got != "[]" {
			t.Fatalf("marshalled %s", got)
		}
	})
	t.Run("PanicNullsTheListAndReportsTheElement", func(t *testing.T) {
		ctx := listContext()
		called := 0
		ret := marshalSliceInOrder(ctx, 3, func(_ context.Context, i int) graphql.Marshaler {
			called++
			if i == 1 {
				panic("boom")
			}
			return graphql.MarshalInt(i)
		})
		if ret != nil {
			t.Fatalf("ret = %v, want nil as MarshalSliceConcurrently", ret)
		}
		if called != 3 {
			t.Fatalf("%d elements marshalled, want 3 (the others still run)", called)
		}
		errs := graphql.GetErrors(ctx)
		if len(errs) != 1 || errs[0].Message != "panic: boom" || errs[0].Path.String() != "rows[1]" {
			t.Fatalf("errors %v", errs)
		}
	})
}

// The same contract as gqlgen's MarshalSliceConcurrently, checked side by side.
func TestMarshalSliceInOrderMatchesConcurrent(t *testing.T) {
	for _, n := range []int{0, 1, 2, 7} {
		elem := func(_ context.Context, i int) graphql.Marshaler {
			return graphql.WriterFunc(func(w io.Writer) { _, _ = io.WriteString(w, `{"i":`+string(rune('0'+i))+`}`) })
		}
		a := marshalled(marshalSliceInOrder(listContext(), n, elem))
		b := marshalled(graphql.MarshalSliceConcurrently(listContext(), n, 0, false, elem))
		if a != b {
			t.Fatalf("n=%d: in order %s, concurrently %s", n, a, b)
		}
	}
}
