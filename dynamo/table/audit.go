package table

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/pickem/api/domain"
)

// TypeAudit is the item type of audit entries.
const TypeAudit = "audit"

// AuditRow is an audit log entry.
type AuditRow struct {
	Keys
	Type      string `dynamodbav:"type"`
	At        string `dynamodbav:"at"` // AuditTimeLayout
	ActorID   string `dynamodbav:"actorId"`
	ActorName string `dynamodbav:"actorName"`
	Action    string `dynamodbav:"action"`
	EventID   string `dynamodbav:"eventId"`
	MatchID   string `dynamodbav:"matchId,omitempty"`
	Summary   string `dynamodbav:"summary"`
}

// ToDomain is the entry of the row.
func (r AuditRow) ToDomain() (domain.AuditEntry, error) {
	at, err := time.Parse(AuditTimeLayout, r.At)
	if err != nil {
		return domain.AuditEntry{}, fmt.Errorf("audit entry %s/%s: at: %w", r.PK, r.SK, err)
	}
	e := domain.AuditEntry{At: at, Actor: domain.UserRef{ID: r.ActorID, Name: r.ActorName}, Action: r.Action,
		EventID: r.EventID, Summary: r.Summary}
	if r.MatchID != "" {
		e.MatchID = aws.String(r.MatchID)
	}
	return e, nil
}

// NewAuditRow is entry as its audit log stores it: in the log of entry.EventID (an event id
// or domain.AuditLogModeration), at at (to the nanosecond, UTC: entry's own At is ignored),
// by actor (entry's own Actor is ignored), under a key no other entry has (a random
// 64-bit nonce after the time), its summary clipped to domain.MaxAuditSummaryLen. Returns
// BAD_USER_INPUT for an invalid event or match id.
func NewAuditRow(entry domain.AuditEntry, at time.Time, actor domain.UserRef) (AuditRow, error) {
	log, err := ParseAuditLogID(entry.EventID)
	if err != nil {
		return AuditRow{}, err
	}
	matchID := ""
	if entry.MatchID != nil {
		m, err := ParseMatchID(*entry.MatchID)
		if err != nil {
			return AuditRow{}, err
		}
		matchID = string(m)
	}
	at = at.UTC()
	return AuditRow{Keys: Keys{PK: AuditPK(log), SK: AuditSK(at, newAuditNonce())}, Type: TypeAudit,
		At: at.Format(AuditTimeLayout), ActorID: actor.ID, ActorName: actor.Name, Action: entry.Action,
		EventID: string(log), MatchID: matchID, Summary: domain.ClipSummary(entry.Summary)}, nil
}

// newAuditNonce returns auditNonceLen random hex digits.
func newAuditNonce() string {
	var b [auditNonceLen / 2]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
