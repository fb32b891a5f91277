package gqlexec

import (
	"context"

	"github.com/pickem/api/domain"
)

// AuditLog implements resolvers.Store: the canned store makes no admin changes, so its
// audit logs are empty.
func (s *Store) AuditLog(context.Context, string, int, string) (domain.Page[domain.AuditEntry], error) {
	return domain.Page[domain.AuditEntry]{}, nil
}
