package table

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/pickem/api/internal/capacity"
)

// TestItemSizeIsCapacitysRule: ItemSize of an item equals capacity.ItemSize of the item in
// DynamoDB's JSON wire format (the rule the AWS-faithful engine bills by), for every kind
// of value, nested ones included.
func TestItemSizeIsCapacitysRule(t *testing.T) {
	s := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	n := func(v string) types.AttributeValue { return &types.AttributeValueMemberN{Value: v} }
	items := map[string]map[string]types.AttributeValue{
		"Empty":   {},
		"Strings": {"PK": s("USER#ü-ñ"), "SK": s(""), "name": s(strings.Repeat("x", 1500))},
		"Numbers": {"a": n("0"), "b": n("-12.500"), "c": n("1e10"), "d": n("12345678901234567890"), "e": n("0.000123")},
		"Scalars": {"b": &types.AttributeValueMemberB{Value: []byte{0, 1, 2, 255}}, "t": &types.AttributeValueMemberBOOL{Value: true},
			"z": &types.AttributeValueMemberNULL{Value: true}},
		"Sets": {"ss": &types.AttributeValueMemberSS{Value: []string{"a", "bcd"}}, "ns": &types.AttributeValueMemberNS{Value: []string{"1", "22.5"}},
			"bs": &types.AttributeValueMemberBS{Value: [][]byte{{1}, {2, 3}}}},
		"Nested": {"picks": &types.AttributeValueMemberL{Value: []types.AttributeValue{
			&types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"matchId": s("00000000-0000-4000-8000-000000000001"), "team": n("2")}},
			&types.AttributeValueMemberL{Value: []types.AttributeValue{}},
			s("x"),
		}}, "m": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{}}},
	}
	for name, item := range items {
		want, err := capacity.ItemSize(wireItem(item))
		if err != nil {
			t.Fatal(err)
		}
		if got := ItemSize(item); got != want {
			t.Errorf("%s: ItemSize = %d, capacity.ItemSize of the wire form = %d", name, got, want)
		}
	}
}

// wireItem is an item in DynamoDB's JSON wire format.
func wireItem(item map[string]types.AttributeValue) capacity.Item {
	out := make(capacity.Item, len(item))
	for name, v := range item {
		out[name] = wireValue(v)
	}
	return out
}

func wireValue(v types.AttributeValue) json.RawMessage {
	var w any
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		w = map[string]string{"S": v.Value}
	case *types.AttributeValueMemberN:
		w = map[string]string{"N": v.Value}
	case *types.AttributeValueMemberB:
		w = map[string][]byte{"B": v.Value}
	case *types.AttributeValueMemberBOOL:
		w = map[string]bool{"BOOL": v.Value}
	case *types.AttributeValueMemberNULL:
		w = map[string]bool{"NULL": v.Value}
	case *types.AttributeValueMemberSS:
		w = map[string][]string{"SS": v.Value}
	case *types.AttributeValueMemberNS:
		w = map[string][]string{"NS": v.Value}
	case *types.AttributeValueMemberBS:
		w = map[string][][]byte{"BS": v.Value}
	case *types.AttributeValueMemberL:
		l := make([]json.RawMessage, len(v.Value))
		for i, e := range v.Value {
			l[i] = wireValue(e)
		}
		w = map[string][]json.RawMessage{"L": l}
	case *types.AttributeValueMemberM:
		w = map[string]capacity.Item{"M": wireItem(v.Value)}
	}
	b, err := json.Marshal(w)
	if err != nil {
		panic(err)
	}
	return b
}

// BenchmarkItemSize weighs a scored prediction of twelve picks: directly, and through its
// wire form as capacity.ItemSize reads it.
func BenchmarkItemSize(b *testing.B) {
	var picks []types.AttributeValue
	var ids []string
	for i := range 12 {
		id := "00000000-0000-4000-8000-0000000000" + string(rune('a'+i)) + "0"
		ids = append(ids, id)
		picks = append(picks, &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{
			"matchId": &types.AttributeValueMemberS{Value: id}, "team": &types.AttributeValueMemberN{Value: "1"}}})
	}
	item := map[string]types.AttributeValue{
		"PK": &types.AttributeValueMemberS{Value: "USER#player-00042"}, "SK": &types.AttributeValueMemberS{Value: "EVENT#2025-07-06-all-in"},
		"GSI_PK": &types.AttributeValueMemberS{Value: "EVENT#2025-07-06-all-in#03"}, "GSI_SK": &types.AttributeValueMemberS{Value: "SCORE#999880#player-00042"},
		"type": &types.AttributeValueMemberS{Value: "prediction"}, "userName": &types.AttributeValueMemberS{Value: "Player 42"},
		"picks": &types.AttributeValueMemberL{Value: picks}, "correctIds": &types.AttributeValueMemberSS{Value: ids},
		"points": &types.AttributeValueMemberN{Value: "120"}, "version": &types.AttributeValueMemberN{Value: "3"},
	}
	b.Run("Direct", func(b *testing.B) {
		for b.Loop() {
			ItemSize(item)
		}
	})
	b.Run("WireForm", func(b *testing.B) {
		for b.Loop() {
			if _, err := capacity.ItemSize(wireItem(item)); err != nil {
				b.Fatal(err)
			}
		}
	})
}
