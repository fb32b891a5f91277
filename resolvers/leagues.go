package resolvers

import (
	"github.com/pickem/api/domain"
	"github.com/pickem/api/graph/model"
)

func standingConnection(p domain.Page[domain.Standing]) *model.StandingConnection {
	c := &model.StandingConnection{Edges: make([]model.StandingEdge, len(p.Items)), PageInfo: pageInfo(p)}
	for i := range p.Items {
		c.Edges[i] = model.StandingEdge{Cursor: p.Cursors[i], Node: &p.Items[i]}
	}
	return c
}
