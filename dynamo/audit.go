package dynamo

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/pickem/api/domain"
	"github.com/pickem/api/dynamo/table"
)

// Audit log. Every admin change writes one audit entry (domain.AuditEntry) in the same
// transaction as the change itself: the writer appends auditPut to its transaction's items,
// so the entry commits exactly when the change does, and a change refused by its conditions
// leaves no entry. Entries live in their log's own partition (table.AuditPK: AUDIT#<event
// id>), newest last in key order; AuditLog reads them newest first.

// auditPut returns the transaction item that writes entry: a Put of a new item in the
// audit log of entry.EventID (an event id or domain.AuditLogModeration), stamped with the
// store's clock and attributed to the caller in ctx (domain.ActorFrom; entry's own At and
// Actor are ignored). The summary is clipped to domain.MaxAuditSummaryLen. The Put is
// conditioned on its key being new (a random 64-bit nonce makes a clash practically
// impossible, and the condition makes one fail rather than overwrite). Append it LAST to
// the transaction's items, so the indexes of the other items' cancellation reasons do not
// move; one entry per transaction. Returns BAD_USER_INPUT for an invalid event or match id.
func (s *Store) auditPut(ctx context.Context, entry domain.AuditEntry) (types.TransactWriteItem, error) {
	row, err := table.NewAuditRow(entry, s.now(), domain.ActorFrom(ctx))
	if err != nil {
		return types.TransactWriteItem{}, err
	}
	it, err := s.db.Put(row, table.NotExists())
	if err != nil {
		return types.TransactWriteItem{}, fmt.Errorf("dynamo: audit entry %s %s: %w", row.EventID, entry.Action, err)
	}
	return it, nil
}

// AuditLog returns a page of the audit log of an event (or of domain.AuditLogModeration),
// newest first: one strongly consistent Query of the log's partition (an admin who just
// made a change sees its entry), stopping at first+1 entries. An event with no entries,
// or no such event, has an empty log. Returns BAD_USER_INPUT for an invalid id or a
// cursor of another list.
func (s *Store) AuditLog(ctx context.Context, eventID string, first int, after string) (domain.Page[domain.AuditEntry], error) {
	var page domain.Page[domain.AuditEntry]
	log, err := table.ParseAuditLogID(eventID)
	if err != nil {
		return page, err
	}
	q, err := s.db.NewQuery("", expression.Key(table.AttrPK).Equal(expression.Value(table.AuditPK(log))), first+1, false)
	if err != nil {
		return page, fmt.Errorf("dynamo: audit log %s: %w", log, err)
	}
	q.ConsistentRead = aws.Bool(true)
	if after != "" {
		c, err := s.cursors.Decode(after, table.CursorAudit, string(log))
		if err != nil {
			return page, err
		}
		q.ExclusiveStartKey = table.Key(table.AuditPK(log), c.ID)
	}
	page, err = queryPage(ctx, s.db, q, first, func(row *table.AuditRow) (domain.AuditEntry, string, error) {
		e, err := row.ToDomain()
		return e, s.cursors.Encode(table.Cursor{Kind: table.CursorAudit, Owner: string(log), ID: row.SK}), err
	})
	if err != nil {
		return page, fmt.Errorf("dynamo: audit log %s: %w", log, err)
	}
	return page, nil
}

// withAudit returns items followed by the Put of entry (auditPut): the items of an admin
// change's transaction with its audit entry last.
func (s *Store) withAudit(ctx context.Context, entry domain.AuditEntry, items ...types.TransactWriteItem) ([]types.TransactWriteItem, error) {
	put, err := s.auditPut(ctx, entry)
	if err != nil {
		return nil, err
	}
	return append(items, put), nil
}
