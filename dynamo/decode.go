package dynamo

import (
	"fmt"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Rows on the read paths of the screens (reads.go) are decoded by hand rather than with
// attributevalue.UnmarshalMap, which walks each row struct by reflection: a standings page
// of 100 rows takes 246 µs and 400 allocations with UnmarshalMap against 27 µs and none by
// hand, 50 predictions of 10 picks 383 µs against 65 µs (BenchmarkDecodeRows, 2-core dev
// machine) — UnmarshalMap alone was about a fifth of what the stack adds to a 100-row page. Each decoder gives exactly what UnmarshalMap
// gives for every value this package writes; decode_test.go checks that field for field,
// on every row type filled by reflection, so a field added to a row struct without a line
// here fails the tests. Writes still use attributevalue.MarshalMap.
//
// Like UnmarshalMap, a missing or NULL attribute leaves the zero value. A stored value of
// another type is an error naming the attribute (UnmarshalMap's messages differ).

// fields reads the attributes of one item (or of one map value inside it). The first
// error sticks; read everything, then check err.
type fields struct {
	m   map[string]types.AttributeValue
	err error
}

func (f *fields) fail(name string, v types.AttributeValue, want string) {
	if f.err == nil {
		f.err = fmt.Errorf("attribute %q: stored %T, want %s", name, v, want)
	}
}

func (f *fields) str(name string) string {
	switch v := f.m[name].(type) {
	case nil, *types.AttributeValueMemberNULL:
	case *types.AttributeValueMemberS:
		return v.Value
	case *types.AttributeValueMemberN: // UnmarshalMap gives a number's text to a string field
		return v.Value
	default:
		f.fail(name, v, "S")
	}
	return ""
}

// strPtr is nil when the attribute is missing or NULL.
func (f *fields) strPtr(name string) *string {
	switch f.m[name].(type) {
	case nil, *types.AttributeValueMemberNULL:
		return nil
	}
	s := f.str(name)
	return &s
}

func (f *fields) int(name string) int {
	switch v := f.m[name].(type) {
	case nil, *types.AttributeValueMemberNULL:
	case *types.AttributeValueMemberN:
		n, err := strconv.ParseInt(v.Value, 10, 0)
		if err != nil && f.err == nil {
			f.err = fmt.Errorf("attribute %q: %w", name, err)
		}
		return int(n)
	default:
		f.fail(name, v, "N")
	}
	return 0
}

// intPtr is nil when the attribute is missing or NULL.
func (f *fields) intPtr(name string) *int {
	switch f.m[name].(type) {
	case nil, *types.AttributeValueMemberNULL:
		return nil
	}
	n := f.int(name)
	return &n
}

func (f *fields) bool(name string) bool {
	switch v := f.m[name].(type) {
	case nil, *types.AttributeValueMemberNULL:
	case *types.AttributeValueMemberBOOL:
		return v.Value
	default:
		f.fail(name, v, "BOOL")
	}
	return false
}

// list returns the elements of a list attribute; nil when it is missing or NULL.
func (f *fields) list(name string) []types.AttributeValue {
	switch v := f.m[name].(type) {
	case nil, *types.AttributeValueMemberNULL:
	case *types.AttributeValueMemberL:
		if v.Value == nil {
			return []types.AttributeValue{} // a present list decodes to a non-nil slice
		}
		return v.Value
	default:
		f.fail(name, v, "L")
	}
	return nil
}

// strings decodes a list of strings; nil when the attribute is missing or NULL, non-nil
// (possibly empty) when present.
func (f *fields) strings(name string) []string {
	l := f.list(name)
	if l == nil {
		return nil
	}
	out := make([]string, len(l))
	for i, v := range l {
		s, ok := v.(*types.AttributeValueMemberS)
		if !ok {
			f.fail(name+"[]", v, "S")
			return nil
		}
		out[i] = s.Value
	}
	return out
}

// ints decodes a list of numbers; nil when the attribute is missing or NULL.
func (f *fields) ints(name string) []int {
	l := f.list(name)
	if l == nil {
		return nil
	}
	out := make([]int, len(l))
	for i, v := range l {
		n, ok := v.(*types.AttributeValueMemberN)
		if !ok {
			f.fail(name+"[]", v, "N")
			return nil
		}
		x, err := strconv.ParseInt(n.Value, 10, 0)
		if err != nil && f.err == nil {
			f.err = fmt.Errorf("attribute %q: %w", name, err)
		}
		out[i] = int(x)
	}
	return out
}

// maps returns the maps of a list of maps, for nested rows.
func (f *fields) maps(name string) []fields {
	l := f.list(name)
	if l == nil {
		return nil
	}
	out := make([]fields, len(l))
	for i, v := range l {
		m, ok := v.(*types.AttributeValueMemberM)
		if !ok {
			f.fail(name+"[]", v, "M")
			return nil
		}
		out[i] = fields{m: m.Value}
	}
	return out
}

// mapValue returns the map attribute name; ok is false when it is missing or NULL.
func (f *fields) mapValue(name string) (_ fields, ok bool) {
	switch v := f.m[name].(type) {
	case nil, *types.AttributeValueMemberNULL:
	case *types.AttributeValueMemberM:
		return fields{m: v.Value}, true
	default:
		f.fail(name, v, "M")
	}
	return fields{}, false
}

// merge keeps the first error of a nested decoder.
func (f *fields) merge(name string, nested *fields) {
	if nested.err != nil && f.err == nil {
		f.err = fmt.Errorf("%s: %w", name, nested.err)
	}
}

func (f *fields) keys() keys { return keys{PK: f.str(attrPK), SK: f.str(attrSK)} }

func (f *fields) indexKeys() indexKeys {
	return indexKeys{GSIPK: f.str(attrGSIPK), GSISK: f.str(attrGSISK)}
}

func (r *userRow) decode(item map[string]types.AttributeValue) error {
	f := fields{m: item}
	*r = userRow{
		keys:        f.keys(),
		Type:        f.str("type"),
		ID:          f.str("id"),
		Name:        f.str("name"),
		NameVersion: f.int("nameVersion"),
		CreatedAt:   f.str("createdAt"),
	}
	return f.err
}

func (r *eventRow) decode(item map[string]types.AttributeValue) error {
	f := fields{m: item}
	*r = eventRow{
		keys:          f.keys(),
		indexKeys:     f.indexKeys(),
		Type:          f.str("type"),
		ID:            f.str("id"),
		Name:          f.str("name"),
		StartsAt:      f.str("startsAt"),
		Season:        f.int("season"),
		State:         f.str("state"),
		CardVersion:   f.int("cardVersion"),
		CardHash:      f.str("cardHash"),
		Rev:           f.int("rev"),
		Layout:        f.int("layout"),
		LockCopies:    f.int("lockCopies"),
		ScoredMatches: f.int("scoredMatches"),
		ScoredVersion: f.int("scoredVersion"),
	}
	return f.err
}

func (r *matchRow) decode(item map[string]types.AttributeValue) error {
	f := fields{m: item}
	*r = matchRow{
		keys:          f.keys(),
		indexKeys:     f.indexKeys(),
		Type:          f.str("type"),
		EventID:       f.str("eventId"),
		ID:            f.str("id"),
		Position:      f.int("position"),
		Name:          f.str("name"),
		Points:        f.int("points"),
		Preshow:       f.bool("preshow"),
		Championships: f.strings("championships"),
	}
	if teams := f.maps("teams"); teams != nil {
		r.Teams = make([]teamRow, len(teams))
		for i := range teams {
			t := &teams[i]
			r.Teams[i] = teamRow{Name: t.strPtr("name"), Members: t.strings("members"), Champion: t.bool("champion")}
			f.merge("teams", t)
		}
	}
	if res, ok := f.mapValue("result"); ok {
		r.Result = &resultRow{Outcome: res.str("outcome"), Winner: res.intPtr("winner")}
		f.merge("result", &res)
	}
	r.PickCounts = f.ints("pickCounts")
	return f.err
}

func (r *predictionRow) decode(item map[string]types.AttributeValue) error {
	f := fields{m: item}
	*r = predictionRow{
		keys:            f.keys(),
		indexKeys:       f.indexKeys(),
		Type:            f.str("type"),
		UserID:          f.str("userId"),
		UserName:        f.str("userName"),
		UserNameVersion: f.int("userNameVersion"),
		EventID:         f.str("eventId"),
		EventName:       f.str("eventName"),
		EventStartsAt:   f.str("eventStartsAt"),
		Season:          f.int("season"),
		Points:          f.intPtr("points"),
		Correct:         f.intPtr("correct"),
		CorrectIDs:      f.strings("correctIds"),
		ScoredWith:      f.intPtr("scoredWith"),
		UpdatedAt:       f.str("updatedAt"),
		Version:         f.int("version"),
		Counted:         f.bool("counted"),
	}
	if picks := f.maps("picks"); picks != nil {
		r.Picks = make([]pickRow, len(picks))
		for i := range picks {
			p := &picks[i]
			r.Picks[i] = pickRow{MatchID: p.str("matchId"), Team: p.int("team")}
			f.merge("picks", p)
		}
	}
	return f.err
}

func (r *standingRow) decode(item map[string]types.AttributeValue) error {
	f := fields{m: item}
	*r = standingRow{
		keys:            f.keys(),
		indexKeys:       f.indexKeys(),
		Type:            f.str("type"),
		UserID:          f.str("userId"),
		UserName:        f.str("userName"),
		UserNameVersion: f.int("userNameVersion"),
		Season:          f.int("season"),
		Points:          f.int("points"),
		Correct:         f.int("correct"),
		EventsPlayed:    f.int("eventsPlayed"),
		Version:         f.int("version"),
	}
	return f.err
}
