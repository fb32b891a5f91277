package table

import (
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/pickem/api/internal/capacity"
)

// itemSize is an item's size by capacity's rules (0 for no item): the length of each
// attribute name plus the size of its value.
func itemSize(item map[string]types.AttributeValue) int {
	n := 0
	for name, v := range item {
		n += len(name) + valueSize(v)
	}
	return n
}

// valueSize is the size of one attribute value as capacity.ValueSize counts its wire form:
// strings and binaries their length, numbers capacity.NumberSize, booleans and null 1 byte,
// sets their elements, lists and maps capacity.ContainerSize and their elements.
func valueSize(v types.AttributeValue) int {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return len(v.Value)
	case *types.AttributeValueMemberN:
		return capacity.NumberSize(v.Value)
	case *types.AttributeValueMemberB:
		return len(v.Value)
	case *types.AttributeValueMemberBOOL, *types.AttributeValueMemberNULL:
		return 1
	case *types.AttributeValueMemberSS:
		n := 0
		for _, s := range v.Value {
			n += len(s)
		}
		return n
	case *types.AttributeValueMemberNS:
		n := 0
		for _, s := range v.Value {
			n += capacity.NumberSize(s)
		}
		return n
	case *types.AttributeValueMemberBS:
		n := 0
		for _, b := range v.Value {
			n += len(b)
		}
		return n
	case *types.AttributeValueMemberL:
		n := capacity.ContainerSize(len(v.Value))
		for _, e := range v.Value {
			n += valueSize(e)
		}
		return n
	case *types.AttributeValueMemberM:
		return capacity.ContainerSize(len(v.Value)) + itemSize(v.Value)
	}
	return 0
}
