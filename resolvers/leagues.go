package resolvers

import (
	"github.com/pickem/api/domain"
	"github.com/pickem/api/graph/model"
)

func standingConnection(p domain.Page[domain.Standing]) *model.StandingConnection {
	c := &model.StandingConnection{Edges: make([]model.StandingEdge, len(p.Items)), PageInfo: pageInfo(p)}
	nodes := make([]model.Standing, len(p.Items))
	for i := range p.Items {
		nodes[i] = model.Standing{Standing: p.Items[i]}
		c.Edges[i] = model.StandingEdge{Cursor: p.Cursors[i], Node: &nodes[i]}
	}
	return c
}
