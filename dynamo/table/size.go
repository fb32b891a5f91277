package table

import (
	"encoding/json"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/pickem/api/internal/capacity"
)

// itemSize is an item's size by capacity's rules (0 for no item).
func itemSize(item map[string]types.AttributeValue) int {
	if item == nil {
		return 0
	}
	n, err := capacity.ItemSize(wireItem(item))
	if err != nil {
		panic(err) // wireItem writes only what ItemSize reads
	}
	return n
}

// wireItem returns an item in DynamoDB's JSON wire format, which capacity reads.
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
		panic(err) // plain data
	}
	return b
}
