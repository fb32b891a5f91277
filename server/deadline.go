package server

import (
	"context"
	"net/http"
	"time"
)

// Answering before the deadline: a request whose context has a deadline (in Lambda, the
// function's timeout; in a test, its own) gets a context that ends a margin earlier, so
// that DynamoDB calls still waiting give up (the store reports UNAVAILABLE) while there is
// time left to write the answer. Without the margin the answer would be written just
// after the deadline, when Lambda has already ended the invocation (API Gateway then
// answers 503 on its own, with no extensions.code).
const (
	deadlineMargin    = 250 * time.Millisecond
	deadlineMarginMax = 0.1 // never more than this fraction of the time left
)

// answerBeforeDeadline shortens a request's deadline by deadlineMargin (at most a tenth
// of the time it has left). Requests without a deadline are left alone.
func answerBeforeDeadline(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		deadline, ok := r.Context().Deadline()
		if !ok {
			next.ServeHTTP(w, r)
			return
		}
		margin := min(deadlineMargin, time.Duration(float64(time.Until(deadline))*deadlineMarginMax))
		ctx, cancel := context.WithDeadline(r.Context(), deadline.Add(-margin))
		defer cancel()
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}
