package table

import (
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

	"github.com/pickem/api/domain"
)

// OpenAt is the condition that an event row or lock copy is open for picks at now: the
// table's form of !domain.Event.Locked(now) (stored UPCOMING, start after now; starts are
// whole seconds).
func OpenAt(now time.Time) expression.ConditionBuilder {
	return expression.Name("state").Equal(expression.Value(string(domain.StateUpcoming))).
		And(expression.Name("startsAt").GreaterThan(expression.Value(FormatTime(now))))
}

// VersionIs is the condition that an item's version is v.
func VersionIs(v int) expression.ConditionBuilder {
	return expression.Name("version").Equal(expression.Value(v))
}

// RevIs is the condition that an item's rev (an event row's, a league's) is r.
func RevIs(r int) expression.ConditionBuilder {
	return expression.Name("rev").Equal(expression.Value(r))
}

// LiveVersionIs is the condition that an event row's live version is v (the attribute is
// absent while 0).
func LiveVersionIs(v int) expression.ConditionBuilder {
	if v == 0 {
		return expression.AttributeNotExists(expression.Name("liveVersion"))
	}
	return expression.Name("liveVersion").Equal(expression.Value(v))
}

// NotExists is the condition that no item has the key written: a new item.
func NotExists() expression.ConditionBuilder {
	return expression.AttributeNotExists(expression.Name(attrPK))
}

// Exists is the condition that the item written exists.
func Exists() expression.ConditionBuilder {
	return expression.AttributeExists(expression.Name(attrPK))
}

// PrefixRange is the key condition of the items of partition pk whose sort key starts
// with prefix, as a BETWEEN range (see CardLast).
func PrefixRange(pk, prefix string) expression.KeyConditionBuilder {
	upper := prefix[:len(prefix)-1] + string(rune(prefix[len(prefix)-1]+1))
	return expression.Key(attrPK).Equal(expression.Value(pk)).
		And(expression.Key(attrSK).Between(expression.Value(prefix), expression.Value(upper)))
}
