package table

import "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

// StringValue is v as a string attribute value.
func StringValue(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }

// Key is the primary key (PK, SK) of an item.
func Key(pk, sk string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{attrPK: StringValue(pk), attrSK: StringValue(sk)}
}

// ItemType is an item's type (its AttrType attribute), "" if it has none.
func ItemType(item map[string]types.AttributeValue) string {
	if v, ok := item[AttrType].(*types.AttributeValueMemberS); ok {
		return v.Value
	}
	return ""
}

// ItemString is an item's string attribute attr, "" if it has none.
func ItemString(item map[string]types.AttributeValue, attr string) string {
	if v, ok := item[attr].(*types.AttributeValueMemberS); ok {
		return v.Value
	}
	return ""
}
