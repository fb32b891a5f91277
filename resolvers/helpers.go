package resolvers

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/pickem/api/auth"
	"github.com/pickem/api/domain"
	"github.com/pickem/api/graph/model"
	"github.com/pickem/api/internal/cachehint"
)

// requireUser returns the caller, or UNAUTHENTICATED when signed out.
func requireUser(ctx context.Context) (auth.Identity, error) {
	id := auth.FromContext(ctx)
	if !id.SignedIn() {
		return id, domain.Errorf(domain.CodeUnauthenticated, "sign in to do this")
	}
	return id, nil
}

// requireAdmin returns the caller if they are in the admin group: UNAUTHENTICATED when
// signed out, FORBIDDEN otherwise.
func requireAdmin(ctx context.Context) (auth.Identity, error) {
	id, err := requireUser(ctx)
	if err != nil {
		return id, err
	}
	if !id.IsAdmin() {
		return id, domain.Errorf(domain.CodeForbidden, "only admins can do this")
	}
	return id, nil
}

// nullIfNotFound turns NOT_FOUND into (nil, nil) for nullable query fields.
func nullIfNotFound[T any](v T, err error) (*T, error) {
	if domain.ErrorCode(err) == domain.CodeNotFound {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &v, nil
}

// event is e as this response shows it (state and locked at the resolver's clock), with the
// leaderboard's first page when it was read with the event.
func (r *Resolver) event(e domain.Event, leaderboard *model.FirstPage[domain.Prediction]) *model.Event {
	v := model.NewEvent(e, r.now(), r.LiveNamespace)
	v.Leaderboard = leaderboard
	return &v
}

// liveEvent is event for a response that shows one event (event(id)): a live one (state
// BROADCAST: results and live scoring passes coming) shortens how long a shared cache may
// keep the answer (cachehint.Live), so that polling screens follow the show.
func (r *Resolver) liveEvent(ctx context.Context, e domain.Event, leaderboard *model.FirstPage[domain.Prediction]) *model.Event {
	v := r.event(e, leaderboard)
	if v.Live() {
		cachehint.Cap(ctx, cachehint.Live)
	}
	return v
}

// deref is *p, or T's zero value when p is nil (an argument left out).
func deref[T any](p *T) T {
	if p == nil {
		var zero T
		return zero
	}
	return *p
}

// pageInfo is a forward page's PageInfo (Relay's cursor connections): no previous page,
// the first and last edges' cursors (null without edges).
func pageInfo[T any](p domain.Page[T]) *model.PageInfo {
	info := &model.PageInfo{HasNextPage: p.HasNext}
	if len(p.Cursors) > 0 {
		info.StartCursor = &p.Cursors[0]
		info.EndCursor = &p.Cursors[len(p.Cursors)-1]
	}
	return info
}

func predictionConnection(p domain.Page[domain.Prediction]) *model.PredictionConnection {
	return predictions(p, false)
}

// leaderboardConnection is a page of Event.leaderboard: its rows have places.
func leaderboardConnection(p domain.Page[domain.Prediction]) *model.PredictionConnection {
	return predictions(p, true)
}

func predictions(p domain.Page[domain.Prediction], leaderboard bool) *model.PredictionConnection {
	c := &model.PredictionConnection{Edges: make([]model.PredictionEdge, len(p.Items)), PageInfo: pageInfo(p)}
	nodes := make([]model.Prediction, len(p.Items))
	for i := range p.Items {
		nodes[i] = model.Prediction{Prediction: p.Items[i], OnLeaderboard: leaderboard}
		c.Edges[i] = model.PredictionEdge{Cursor: p.Cursors[i], Node: &nodes[i]}
	}
	return c
}

// selectsAny reports whether the current field's selection (fragments included) has a
// field named one of names; true when it cannot tell (no field context).
func selectsAny(ctx context.Context, names ...string) bool {
	return slices.ContainsFunc(names, func(name string) bool { return selectsPath(ctx, name) })
}

// selectsPath reports whether the current field's selection reaches a field through the
// field names of path (fragments included, any alias: `edges`, `node`, `picks` from a
// leaderboard); true when it cannot tell (no field context).
func selectsPath(ctx context.Context, path ...string) bool {
	fc := graphql.GetFieldContext(ctx)
	if fc == nil || !graphql.HasOperationContext(ctx) {
		return true
	}
	return reaches(graphql.GetOperationContext(ctx), fc.Field.Selections, path)
}

func reaches(oc *graphql.OperationContext, sel ast.SelectionSet, path []string) bool {
	if len(path) == 0 {
		return true
	}
	for _, f := range graphql.CollectFields(oc, sel, nil) {
		if f.Name == path[0] && reaches(oc, f.Selections, path[1:]) {
			return true
		}
	}
	return false
}

// selectedChild reports whether the current field selects a child field named name, and
// that child's `first` argument (def when absent or null). Top-level resolvers use it to
// read a nested list in the same DynamoDB request as its parent.
func selectedChild(ctx context.Context, name string, def int) (selected bool, first int, hasAfter bool) {
	fc := graphql.GetFieldContext(ctx)
	if fc == nil || !graphql.HasOperationContext(ctx) {
		return false, def, false
	}
	oc := graphql.GetOperationContext(ctx)
	first = def
	for _, f := range graphql.CollectFields(oc, fc.Field.Selections, nil) {
		if f.Name != name {
			continue
		}
		args := f.ArgumentMap(oc.Variables)
		if n, ok := toInt(args["first"]); ok {
			first = n
		}
		if a, ok := args["after"]; ok && a != nil {
			hasAfter = true
		}
		return true, first, hasAfter
	}
	return false, def, false
}

func toInt(v any) (int, bool) {
	switch n := v.(type) {
	case int:
		return n, true
	case int64:
		return int(n), true
	case float64:
		return int(n), true
	case json.Number:
		i, err := n.Int64()
		return int(i), err == nil
	}
	return 0, false
}

func teamsFromInput(in []model.TeamInput) []domain.Team {
	if in == nil {
		return nil
	}
	teams := make([]domain.Team, len(in))
	for i, t := range in {
		teams[i] = domain.Team{Name: t.Name, Members: t.Members, Champion: t.Champion != nil && *t.Champion}
	}
	return teams
}

func matchSpec(in model.MatchInput) domain.MatchSpec {
	return domain.MatchSpec{
		Name: in.Name, Points: in.Points, MethodPoints: deref(in.MethodPoints), Preshow: in.Preshow != nil && *in.Preshow,
		Championships: in.Championships, Teams: teamsFromInput(in.Teams),
	}
}
