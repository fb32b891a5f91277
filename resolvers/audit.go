package resolvers

import (
	"context"

	"github.com/pickem/api/domain"
	"github.com/pickem/api/graph/model"
)

// adminContext returns ctx naming the caller as the actor of the changes made with it
// (domain.WithActor: the store writes the audit entries of admin changes with it), if the
// caller is an admin; otherwise UNAUTHENTICATED (signed out) or FORBIDDEN, as requireAdmin.
func adminContext(ctx context.Context) (context.Context, error) {
	id, err := requireAdmin(ctx)
	if err != nil {
		return ctx, err
	}
	return domain.WithActor(ctx, domain.UserRef{ID: id.ID, Name: id.Name}), nil
}

func auditConnection(p domain.Page[domain.AuditEntry]) *model.AuditEntryConnection {
	c := &model.AuditEntryConnection{Edges: make([]model.AuditEntryEdge, len(p.Items)), PageInfo: pageInfo(p)}
	for i := range p.Items {
		c.Edges[i] = model.AuditEntryEdge{Cursor: p.Cursors[i], Node: &p.Items[i]}
	}
	return c
}
