package resolvers

import (
	"context"

	"github.com/pickem/api/domain"
	"github.com/pickem/api/graph/model"
)

// loadUser reads a profile with the first page of predictions its selection asks for, in
// one read of the user's partition. Null if there is no such user.
//
// A selection with neither standings nor predictions (`me { id name }`) reads the profile
// item alone: no partition Query, no rank tables.
func (r *queryResolver) loadUser(ctx context.Context, id string, own bool) (*model.User, error) {
	if !selectsAny(ctx, "standings", "predictions") {
		u, err := r.Store.GetProfile(ctx, id)
		if domain.ErrorCode(err) == domain.CodeNotFound {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		return &model.User{User: u}, nil
	}
	_, first, _ := selectedChild(ctx, "predictions", domain.DefaultPageSize)
	if first < 1 || first > domain.MaxPageSize {
		first = domain.DefaultPageSize // the field resolver reports the bad argument
	}
	u, page, err := r.Store.GetUser(ctx, id, first, own)
	if domain.ErrorCode(err) == domain.CodeNotFound {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &model.User{User: u, Predictions: &model.FirstPage[domain.Prediction]{Page: page, First: first}}, nil
}
