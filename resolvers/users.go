package resolvers

import (
	"context"

	"github.com/pickem/api/domain"
)

// loadUser reads a profile with the first page of predictions its selection asks for, in
// one read of the user's partition. Null if there is no such user.
func (r *queryResolver) loadUser(ctx context.Context, id string, own bool) (*domain.User, error) {
	_, first, _ := selectedChild(ctx, "predictions", domain.DefaultPageSize)
	if first < 1 || first > domain.MaxPageSize {
		first = domain.DefaultPageSize // the field resolver reports the bad argument
	}
	u, page, err := r.Store.GetUser(ctx, id, first, own)
	if err == nil {
		u.Predictions, u.PredictionsFirst = &page, first
	}
	return nullIfNotFound(u, err)
}
