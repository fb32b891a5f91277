package cachehint

import (
	"context"
	"testing"
	"time"
)

func TestCap(t *testing.T) {
	ctx, h := New(context.Background())
	if got := h.MaxAge(10 * time.Second); got != 10*time.Second {
		t.Fatalf("no cap: %v", got)
	}
	Cap(ctx, Live)
	Cap(ctx, 8*time.Second)
	Cap(ctx, 0)
	if got := h.MaxAge(10 * time.Second); got != Live {
		t.Fatalf("capped: %v, want %v", got, Live)
	}
	if got := h.MaxAge(2 * time.Second); got != 2*time.Second {
		t.Fatalf("a cap never raises the default: %v", got)
	}
	Cap(context.Background(), time.Second) // no Hint: nothing happens
	var none *Hint
	if got := none.MaxAge(time.Second); got != time.Second {
		t.Fatalf("nil hint: %v", got)
	}
}
