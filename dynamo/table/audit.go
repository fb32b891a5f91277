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

// NewAuditNonce returns auditNonceLen random hex digits.
func NewAuditNonce() string {
	var b [auditNonceLen / 2]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
