package core

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sort"
	"time"

	"github.com/truora/minidyn/interpreter"
	"github.com/truora/minidyn/interpreter/language"
	"github.com/truora/minidyn/types"
)

const defaultIndexActivationDelay = 0

// QueryInput struct to represent a query input
type QueryInput struct {
	Index                     string
	ExpressionAttributeValues map[string]*types.Item
	Limit                     int64
	ExclusiveStartKey         map[string]*types.Item
	KeyConditionExpression    string
	ConditionExpression       *string
	FilterExpression          string
	ProjectionExpression      string
	Aliases                   map[string]string
	ScanIndexForward          bool
	Scan                      bool

	// projected is what nativeProjection made of ProjectionExpression (set by SearchData).
	projected []string
}

// Table struct to mock a dynamodb table
type Table struct {
	Name                 string
	Indexes              map[string]*index
	AttributesDef        map[string]string
	SortedKeys           []string
	Data                 map[string]map[string]*types.Item
	KeySchema            keySchema
	BillingMode          *string
	UseNativeInterpreter bool
	NativeInterpreter    interpreter.Native
	LangInterpreter      interpreter.Language
	IndexActivationDelay time.Duration
}

// NewTable creates a new Table
func NewTable(name string) *Table {
	return &Table{
		Name:                 name,
		Indexes:              map[string]*index{},
		AttributesDef:        map[string]string{},
		SortedKeys:           []string{},
		Data:                 map[string]map[string]*types.Item{},
		IndexActivationDelay: defaultIndexActivationDelay,
	}
}

// ValidatePrimaryKeyMap checks that a Key map for GetItem, DeleteItem, or UpdateItem
// contains exactly the table's primary key attribute names (hash and range when defined).
func (t *Table) ValidatePrimaryKeyMap(key map[string]*types.Item) error {
	return t.KeySchema.validatePrimaryKeyMap(key)
}

// SetAttributeDefinition sets the attribute definition of a table
func (t *Table) SetAttributeDefinition(attrs []*types.AttributeDefinition) {
	for _, attr := range attrs {
		t.AttributesDef[*attr.AttributeName] = *attr.AttributeType
	}
}

func parseKeySchema(schema []*types.KeySchemaElement) (keySchema, error) {
	var ks keySchema

	for _, element := range schema {
		if element.KeyType == "HASH" {
			ks.HashKey = element.AttributeName
			continue
		}

		ks.RangeKey = element.AttributeName
	}

	if ks.HashKey == "" {
		return ks, types.NewError("ValidationException", "No Hash Key specified in schema. All Dynamo DB Tables must have exactly one hash key", nil)
	}

	return ks, nil
}

// CreatePrimaryIndex creates the primary index of a table
func (t *Table) CreatePrimaryIndex(input *types.CreateTableInput) error {
	ks, err := parseKeySchema(input.KeySchema)
	if err != nil {
		return err
	}

	err = t.validateAttributeDefinition(ks, "")
	if err != nil {
		return err
	}

	// types-local check this after validate the key schema
	if t.BillingMode == nil || types.StringValue(t.BillingMode) != "PAY_PER_REQUEST" {
		if input.ProvisionedThroughput == nil {
			// https://github.com/aws/aws-sdk-go/issues/3140
			return types.NewError("ValidationException", "No provisioned throughput specified for the table", nil)
		}
	}

	t.KeySchema = ks

	return nil
}

func isValidKeyAttributeType(typ string) bool {
	switch typ {
	case "S", "N", "B":
		return true
	default:
		return false
	}
}

func (t *Table) validateAttributeDefinition(ks keySchema, message string) error {
	if _, ok := t.AttributesDef[ks.HashKey]; !ok {
		return types.NewError("ValidationException", fmt.Sprintf("%sHash Key not specified in Attribute Definitions.  Type unknown.", message), nil)
	}

	if _, ok := t.AttributesDef[ks.RangeKey]; ks.RangeKey != "" && !ok {
		return types.NewError("ValidationException", fmt.Sprintf("%sRange Key not specified in Attribute Definitions.  Type unknown.", message), nil)
	}

	hashType := t.AttributesDef[ks.HashKey]
	if !isValidKeyAttributeType(hashType) {
		return types.NewError("ValidationException", fmt.Sprintf(
			"%sHash key attribute %q has invalid type %q; key attributes must be scalar types S, N, or B.",
			message, ks.HashKey, hashType,
		), nil)
	}

	if ks.RangeKey != "" {
		rangeType := t.AttributesDef[ks.RangeKey]
		if !isValidKeyAttributeType(rangeType) {
			return types.NewError("ValidationException", fmt.Sprintf(
				"%sRange key attribute %q has invalid type %q; key attributes must be scalar types S, N, or B.",
				message, ks.RangeKey, rangeType,
			), nil)
		}
	}

	return nil
}

func buildGSI(t *Table, gsiInput *types.GlobalSecondaryIndex) (*index, error) {
	if t.BillingMode == nil || types.StringValue(t.BillingMode) != "PAY_PER_REQUEST" {
		if gsiInput.ProvisionedThroughput == nil {
			// https://github.com/aws/aws-sdk-go/issues/3140
			return nil, types.NewError("ValidationException", "No provisioned throughput specified for the global secondary index", nil)
		}
	}

	ks, err := parseKeySchema(gsiInput.KeySchema)
	if err != nil {
		return nil, err
	}

	err = t.validateAttributeDefinition(ks, "Global Secondary Index ")
	if err != nil {
		return nil, err
	}

	i := newIndex(t, indexTypeGlobal, ks)
	i.projection = gsiInput.Projection

	return i, nil
}

// ApplyIndexChange applies the index change
func (t *Table) ApplyIndexChange(change *types.GlobalSecondaryIndexUpdate) error {
	switch {
	case change.Create != nil:
		{
			gsi := &types.GlobalSecondaryIndex{
				IndexName:             change.Create.IndexName,
				KeySchema:             change.Create.KeySchema,
				Projection:            change.Create.Projection,
				ProvisionedThroughput: change.Create.ProvisionedThroughput,
			}

			return t.addGlobalIndex(gsi)
		}
	case change.Delete != nil:
		return t.deleteIndex(*change.Delete.IndexName)
	case change.Update != nil:
		return t.updateIndex(*change.Update.IndexName, change.Update.ProvisionedThroughput)
	}

	return nil
}

// AddGlobalIndexes adds global indexes to a table
func (t *Table) AddGlobalIndexes(input []*types.GlobalSecondaryIndex) error {
	if input != nil && len(input) == 0 {
		return types.NewError("ValidationException", "GSI list is empty/invalid", nil)
	}

	for _, gsiInput := range input {
		if err := t.addGlobalIndex(gsiInput); err != nil {
			return err
		}
	}

	return nil
}

func (t *Table) addGlobalIndex(gsiInput *types.GlobalSecondaryIndex) error {
	i, err := buildGSI(t, gsiInput)
	if err != nil {
		return err
	}

	i.createdAt = time.Now()
	t.Indexes[*gsiInput.IndexName] = i

	return nil
}

func (t *Table) deleteIndex(indexName string) error {
	if _, ok := t.Indexes[indexName]; !ok {
		return types.NewError("ResourceNotFoundException", "Requested resource not found", nil)
	}

	delete(t.Indexes, indexName)

	return nil
}

func (t *Table) updateIndex(indexName string, provisionedThroughput *types.ProvisionedThroughput) error {
	// we do not have support for provisionedThroughput values in the index
	return nil
}

func buildLSI(t *Table, lsiInput *types.LocalSecondaryIndex) (*index, error) {
	ks, err := parseKeySchema(lsiInput.KeySchema)
	if err != nil {
		return nil, err
	}

	err = t.validateAttributeDefinition(ks, "Local Secondary Index ")
	if err != nil {
		return nil, err
	}

	i := newIndex(t, indexTypeLocal, ks)
	i.projection = lsiInput.Projection

	return i, nil
}

// AddLocalIndexes adds local indexes to a table
func (t *Table) AddLocalIndexes(input []*types.LocalSecondaryIndex) error {
	if input != nil && len(input) == 0 {
		return types.NewError("ValidationException", "ValidationException: LSI list is empty/invalid", nil)
	}

	for _, lsi := range input {
		i, err := buildLSI(t, lsi)
		if err != nil {
			return err
		}

		t.Indexes[*lsi.IndexName] = i
	}

	return nil
}

func validateSearchInputMaps(input QueryInput) error {
	if err := types.ValidateItemMap(input.ExpressionAttributeValues); err != nil {
		return types.NewError("ValidationException", err.Error(), nil)
	}

	if err := types.ValidateItemMap(input.ExclusiveStartKey); err != nil {
		return types.NewError("ValidationException", err.Error(), nil)
	}

	return nil
}

// validateSearchExpressionAttributeNames rejects up front any Query/Scan expression that
// references an attribute name placeholder (#name) not declared in ExpressionAttributeNames.
// DynamoDB validates this before scanning, so it must error even when the table is empty or
// no item matches (when the per-item interpreter checks would never run).
func validateSearchExpressionAttributeNames(input QueryInput) error {
	checks := []struct {
		label      string
		expression string
	}{
		{"KeyConditionExpression", input.KeyConditionExpression},
		{"FilterExpression", input.FilterExpression},
		{"ProjectionExpression", input.ProjectionExpression},
	}

	for _, c := range checks {
		if err := interpreter.ValidateExpressionAttributeNamesDeclared(c.label, c.expression, input.Aliases); err != nil {
			return types.NewError("ValidationException", err.Error(), nil)
		}
	}

	return nil
}

func validateUpdateItemInputKeysAndValues(input *types.UpdateItemInput) error {
	if err := types.ValidateItemMap(input.Key); err != nil {
		return types.NewError("ValidationException", err.Error(), nil)
	}

	if err := types.ValidateItemMap(input.ExpressionAttributeValues); err != nil {
		return types.NewError("ValidationException", err.Error(), nil)
	}

	return nil
}

func (t *Table) parseStartKey(schema keySchema, startkeyAttr map[string]*types.Item) string {
	startKey := ""
	if len(startkeyAttr) != 0 {
		startKey, _ = schema.GetKey(t.AttributesDef, startkeyAttr)
	}

	return startKey
}

func shouldReturnNextKey(item map[string]*types.Item, count, scanned, limit, keysSize int64) bool {
	if len(item) == 0 || limit == 0 {
		return false
	}

	return scanned <= keysSize && limit <= count
}

func shouldBreakPage(count, limit int64) bool {
	return limit != 0 && limit == count
}

// GetKeyAt returns the key value in a given position
func GetKeyAt(sortedKeys []string, size int64, pos int64, forward bool) string {
	if !forward {
		return sortedKeys[size-1-int64(pos)]
	}

	return sortedKeys[pos]
}

// SearchData queries the table based on the input.
//
// A Query whose key condition fixes the partition key walks only that partition's keys and,
// for a string sort key, stops after the run of sort keys the condition selects (see
// partition.go). Limit counts the items that match the key condition, before any filter,
// as DynamoDB does.
func (t *Table) SearchData(input QueryInput) ([]map[string]*types.Item, map[string]*types.Item, error) {
	if err := validateSearchInputMaps(input); err != nil {
		return nil, nil, err
	}

	if err := validateSearchExpressionAttributeNames(input); err != nil {
		return nil, nil, err
	}

	var idx *index

	ks := t.KeySchema

	if input.Index != "" {
		i, ok := t.Indexes[input.Index]
		if !ok {
			return nil, nil, types.NewError("ValidationException", "The table does not have the specified index: "+input.Index, nil)
		}

		idx, ks = i, i.keySchema
	}

	keys := t.keysToSearch(input, idx, ks)
	// Within a partition a string sort key is walked in the order the interpreter compares
	// it, so the keys matching a key condition are one contiguous run.
	stopAfterRun := keys.partitioned && ks.RangeKey != "" && t.AttributesDef[ks.RangeKey] == "S"

	input.projected, _ = nativeProjection(input.ProjectionExpression, input.Aliases)

	var native func(map[string]*types.Item) (bool, bool)
	if !input.Scan {
		native, _ = nativeKeyMatch(input, ks, t.AttributesDef)
	}

	startKey := t.parseStartKey(t.KeySchema, input.ExclusiveStartKey)
	started := startKey == ""
	items := []map[string]*types.Item{}
	last := map[string]*types.Item{}
	inRun := false

	var count int64

	for pos := range keys.n {
		n := pos
		if !input.ScanIndexForward {
			n = keys.n - 1 - pos
		}

		pk := keys.pk(n)

		if !started {
			started = pk == startKey
			continue
		}

		stored := t.Data[pk]

		nativeMatched := false

		if native != nil {
			// The whole key condition in Go (partition and sort key): see nativeKeyMatch.
			var inPartition bool
			if inPartition, nativeMatched = native(stored); !inPartition {
				continue // another partition, as below
			}
		} else if keys.partitioned {
			if h, ok := t.hashValue(ks, stored); !ok || h != keys.hash {
				continue // a partition whose key starts with this one's key and a separator
			}
		}

		keyMatched := input.Scan || nativeMatched

		if input.KeyConditionExpression != "" && native == nil {
			var err error

			keyMatched, err = t.InterpreterMatch(interpreter.MatchInput{
				TableName:      t.Name,
				Expression:     input.KeyConditionExpression,
				ExpressionType: interpreter.ExpressionTypeKey,
				Item:           keyAttributes(ks, stored),
				Aliases:        input.Aliases,
				Attributes:     input.ExpressionAttributeValues,
			})
			if err != nil {
				return nil, nil, types.NewError("ValidationException", err.Error(), nil)
			}
		}

		if !keyMatched {
			if inRun && stopAfterRun {
				break
			}

			continue
		}

		inRun = true
		count++
		last = stored

		item, matched, err := t.searchResult(input, idx, stored)
		if err != nil {
			return nil, nil, types.NewError("ValidationException", err.Error(), nil)
		}

		if matched {
			items = append(items, item)
		}

		if shouldBreakPage(count, input.Limit) {
			break
		}
	}

	return items, t.getLastKey(last, input.Limit, count, count, int64(keys.n), idx), nil
}

// keyAttributes returns the attributes of item a key condition on ks may name: its hash and
// range key. The interpreter converts every attribute it is given, so handing it the key
// alone keeps a Query's cost per item independent of the item's size.
func keyAttributes(ks keySchema, item map[string]*types.Item) map[string]*types.Item {
	keys := make(map[string]*types.Item, 2)
	if v, ok := item[ks.HashKey]; ok {
		keys[ks.HashKey] = v
	}

	if v, ok := item[ks.RangeKey]; ok && ks.RangeKey != "" {
		keys[ks.RangeKey] = v
	}

	return keys
}

// searchResult applies the filter expression to a stored item that matched the key
// condition and returns what the search returns for it: the index's projection of it,
// then the projection expression.
func (t *Table) searchResult(input QueryInput, idx *index, stored map[string]*types.Item) (map[string]*types.Item, bool, error) {
	if input.FilterExpression != "" {
		matched, err := t.InterpreterMatch(interpreter.MatchInput{
			TableName:      t.Name,
			Expression:     input.FilterExpression,
			ExpressionType: interpreter.ExpressionTypeFilter,
			Item:           stored,
			Aliases:        input.Aliases,
			Attributes:     input.ExpressionAttributeValues,
		})
		if err != nil || !matched {
			return nil, false, err
		}
	}

	if input.projected != nil {
		// A plain list of top-level names (nativeProjection): those attributes of what the
		// index shows of the item.
		base := stored
		if idx != nil && !idx.projectsAll() {
			base = idx.ProjectItem(stored)
		}

		projected := make(map[string]*types.Item, len(input.projected))
		for _, name := range input.projected {
			if v, ok := base[name]; ok {
				projected[name] = v
			}
		}

		return projected, true, nil
	}

	base := stored
	if idx != nil {
		base = idx.ProjectItem(stored)
	}

	if input.ProjectionExpression != "" {
		projected, err := t.LangInterpreter.Project(interpreter.ProjectInput{
			Expression: input.ProjectionExpression,
			Item:       base,
			Aliases:    input.Aliases,
		})

		return projected, err == nil, err
	}

	if idx != nil {
		return base, true, nil
	}

	return copyItem(stored), true, nil
}

func (t *Table) getLastKey(item map[string]*types.Item, limit, count, scanned, keysSize int64, index *index) map[string]*types.Item {
	if !shouldReturnNextKey(item, count, scanned, limit, keysSize) {
		return map[string]*types.Item{}
	}

	key := t.KeySchema.getKeyItem(item)

	if index != nil {
		iKey := index.keySchema.getKeyItem(item)
		maps.Copy(key, iKey)
	}

	return key
}

// InterpreterMatch evaluates a match expression against an item
func (t *Table) InterpreterMatch(input interpreter.MatchInput) (bool, error) {
	if t.UseNativeInterpreter {
		matched, err := t.NativeInterpreter.Match(input)
		if err == nil {
			return matched, nil
		}
	}

	matched, err := t.LangInterpreter.Match(input)
	if err != nil {
		return false, err
	}

	return matched, nil
}

func (t *Table) matchKey(input QueryInput, item map[string]*types.Item) (interpreter.ExpressionType, bool, error) { //nolint:gocognit // key, filter, and conditional expression branches
	var lastMatchExpressionType interpreter.ExpressionType
	matched := input.Scan

	if input.KeyConditionExpression != "" {
		var err error

		matched, err = t.InterpreterMatch(interpreter.MatchInput{
			TableName:      t.Name,
			Expression:     input.KeyConditionExpression,
			ExpressionType: interpreter.ExpressionTypeKey,
			Item:           item,
			Aliases:        input.Aliases,
			Attributes:     input.ExpressionAttributeValues,
		})
		if err != nil {
			return interpreter.ExpressionTypeKey, false, err
		}
		lastMatchExpressionType = interpreter.ExpressionTypeKey
	}

	if input.FilterExpression != "" {
		if matched {
			m, err := t.InterpreterMatch(interpreter.MatchInput{
				TableName:      t.Name,
				Expression:     input.FilterExpression,
				ExpressionType: interpreter.ExpressionTypeFilter,
				Item:           item,
				Aliases:        input.Aliases,
				Attributes:     input.ExpressionAttributeValues,
			})
			if err != nil {
				return interpreter.ExpressionTypeFilter, false, err
			}
			matched = m
		}
		lastMatchExpressionType = interpreter.ExpressionTypeFilter
	}

	if input.ConditionExpression != nil && *input.ConditionExpression != "" {
		var err error

		matched, err = t.InterpreterMatch(interpreter.MatchInput{
			TableName:      t.Name,
			Expression:     *input.ConditionExpression,
			ExpressionType: interpreter.ExpressionTypeConditional,
			Item:           item,
			Aliases:        input.Aliases,
			Attributes:     input.ExpressionAttributeValues,
		})
		if err != nil {
			return interpreter.ExpressionTypeConditional, false, err
		}
		lastMatchExpressionType = interpreter.ExpressionTypeConditional
	}

	return lastMatchExpressionType, matched, nil
}

func (t *Table) setItem(key string, item map[string]*types.Item) {
	_, exists := t.Data[key]
	t.Data[key] = item

	if !exists {
		t.SortedKeys = slices.Insert(t.SortedKeys, sort.SearchStrings(t.SortedKeys, key), key)
	}
}

func (t *Table) getItem(key string) map[string]*types.Item {
	item, exists := t.Data[key]
	if !exists {
		return map[string]*types.Item{}
	}

	return item
}

// Clear removes data and sorted keys from a table
func (t *Table) Clear() {
	t.SortedKeys = []string{}
	t.Data = map[string]map[string]*types.Item{}
}

// TableSnapshot captures a point-in-time copy of mutable table state for transactional rollback
type TableSnapshot struct {
	data       map[string]map[string]*types.Item
	sortedKeys []string
	indexes    map[string]indexSnapshot
}

// Snapshot returns a deep copy of the table's mutable state
func (t *Table) Snapshot() TableSnapshot {
	data := make(map[string]map[string]*types.Item, len(t.Data))
	for k, v := range t.Data {
		data[k] = deepCopyItemMap(v)
	}

	keys := make([]string, len(t.SortedKeys))
	copy(keys, t.SortedKeys)

	indexes := make(map[string]indexSnapshot, len(t.Indexes))
	for name, idx := range t.Indexes {
		indexes[name] = idx.snapshot()
	}

	return TableSnapshot{data: data, sortedKeys: keys, indexes: indexes}
}

// Restore replaces the table's mutable state with a previously taken snapshot
func (t *Table) Restore(s TableSnapshot) {
	t.Data = s.data
	t.SortedKeys = s.sortedKeys

	for name, idx := range t.Indexes {
		if snap, ok := s.indexes[name]; ok {
			idx.restore(snap)
		}
	}
}

// Put puts items into table
func (t *Table) Put(input *types.PutItemInput) (map[string]*types.Item, error) { //nolint:gocognit // conditional write, key resolution, GSI updates
	if err := types.ValidateItemMap(input.Item); err != nil {
		return copyItem(input.Item), types.NewError("ValidationException", err.Error(), nil)
	}

	if err := types.ValidateItemMap(input.ExpressionAttributeValues); err != nil {
		return copyItem(input.Item), types.NewError("ValidationException", err.Error(), nil)
	}

	item := copyItem(input.Item)

	key, err := t.KeySchema.GetKey(t.AttributesDef, input.Item)
	if err != nil {
		return item, types.NewError("ValidationException", err.Error(), nil)
	}

	// support conditional writes
	if input.ConditionExpression != nil {
		_, matched, merr := t.matchKey(QueryInput{
			Index:                     PrimaryIndexName,
			ExpressionAttributeValues: input.ExpressionAttributeValues,
			Aliases:                   input.ExpressionAttributeNames,
			Limit:                     1,
			ConditionExpression:       input.ConditionExpression,
		}, t.getItem(key))
		if merr != nil {
			return item, types.NewError("ValidationException", merr.Error(), nil)
		}

		if !matched {
			return item, &types.ConditionalCheckFailedException{MessageText: ErrConditionalRequestFailed.Error()}
		}
	}

	t.setItem(key, item)

	for _, index := range t.Indexes {
		err := index.putData(key, item)
		if err != nil {
			return nil, types.NewError("ValidationException", err.Error(), nil)
		}
	}

	return item, nil
}

func (t *Table) interpreterUpdate(input interpreter.UpdateInput) error {
	if t.UseNativeInterpreter {
		return t.NativeInterpreter.Update(input)
	}

	return t.LangInterpreter.Update(input)
}

func validateUpdateItemReturnValues(rv *string) error {
	if rv == nil || *rv == "" {
		return nil
	}

	switch *rv {
	case "NONE", "ALL_OLD", "UPDATED_OLD", "UPDATED_NEW", "ALL_NEW":
		return nil
	default:
		return types.NewError("ValidationException",
			fmt.Sprintf("1 validation error detected: Value '%s' at 'returnValues' failed to satisfy constraint: Member must satisfy enum value set: [NONE, ALL_OLD, UPDATED_OLD, UPDATED_NEW, ALL_NEW]", *rv),
			nil)
	}
}

func dynamoItemEqual(a, b *types.Item) bool {
	return reflect.DeepEqual(a, b)
}

func changedUpdateAttributeKeys(oldItem, newItem map[string]*types.Item) []string {
	keys := make(map[string]struct{})

	for k := range oldItem {
		keys[k] = struct{}{}
	}

	for k := range newItem {
		keys[k] = struct{}{}
	}

	changed := make([]string, 0, len(keys))

	for k := range keys {
		ov, okO := oldItem[k]
		nv, okN := newItem[k]

		if !okO {
			ov = nil
		}

		if !okN {
			nv = nil
		}

		if !dynamoItemEqual(ov, nv) {
			changed = append(changed, k)
		}
	}

	sort.Strings(changed)

	return changed
}

func buildUpdateItemReturnAttributes(rv *string, oldItem, newItem map[string]*types.Item) map[string]*types.Item {
	mode := ""

	if rv != nil {
		mode = *rv
	}

	switch mode {
	case "", "NONE":
		return nil
	case "ALL_NEW":
		return copyItem(newItem)
	case "ALL_OLD":
		return copyItem(oldItem)
	case "UPDATED_OLD":
		ck := changedUpdateAttributeKeys(oldItem, newItem)
		if len(ck) == 0 {
			return map[string]*types.Item{}
		}

		out := make(map[string]*types.Item, len(ck))

		for _, k := range ck {
			if v, ok := oldItem[k]; ok {
				out[k] = deepCopyTypesItem(v)
			}
		}

		return out
	case "UPDATED_NEW":
		ck := changedUpdateAttributeKeys(oldItem, newItem)
		if len(ck) == 0 {
			return map[string]*types.Item{}
		}

		out := make(map[string]*types.Item, len(ck))

		for _, k := range ck {
			if v, ok := newItem[k]; ok {
				out[k] = deepCopyTypesItem(v)
			}
		}

		return out
	default:
		return nil
	}
}

// Update updates an item in the table based on the input
func (t *Table) Update(input *types.UpdateItemInput) (map[string]*types.Item, error) { //nolint:gocognit,gocyclo // conditional writes, interpreter update, GSI updates
	if err := validateUpdateItemInputKeysAndValues(input); err != nil {
		return nil, err
	}

	if err := validateUpdateItemReturnValues(input.ReturnValues); err != nil {
		return nil, err
	}

	if err := t.KeySchema.validatePrimaryKeyMap(input.Key); err != nil {
		return nil, types.NewError("ValidationException", err.Error(), nil)
	}

	if !t.KeySchema.Secondary {
		if err := language.ValidateUpdateExpressionDoesNotTargetPrimaryKey(
			input.UpdateExpression,
			input.ExpressionAttributeNames,
			t.KeySchema.HashKey,
			t.KeySchema.RangeKey,
		); err != nil {
			return nil, types.NewError("ValidationException", err.Error(), nil)
		}
	}

	// update primary index
	key, err := t.KeySchema.GetKey(t.AttributesDef, input.Key)
	if err != nil {
		return nil, types.NewError("ValidationException", err.Error(), nil)
	}

	item, ok := t.Data[key]
	if !ok {
		// it allow the use of attribute_exists to check if the item exists
		item = map[string]*types.Item{}
	}

	// support conditional writes
	if input.ConditionExpression != nil {
		query := QueryInput{
			Index:                     PrimaryIndexName,
			ExpressionAttributeValues: input.ExpressionAttributeValues,
			Limit:                     1,
			ConditionExpression:       input.ConditionExpression,
			Aliases:                   input.ExpressionAttributeNames,
		}

		_, matched, merr := t.matchKey(query, item)
		if merr != nil {
			return nil, types.NewError("ValidationException", merr.Error(), nil)
		}

		if !matched {
			checkErr := &types.ConditionalCheckFailedException{
				MessageText: ErrConditionalRequestFailed.Error(),
			}

			handleConditionalCheckError(input, checkErr, item)

			return nil, checkErr
		}
	}

	if !ok {
		// types creates a new item when the item does not exists
		item = copyItem(input.Key)
	}

	oldItem := deepCopyItemMap(item)

	err = t.interpreterUpdate(interpreter.UpdateInput{
		TableName:  t.Name,
		Expression: input.UpdateExpression,
		Item:       item,
		Attributes: input.ExpressionAttributeValues,
		Aliases:    input.ExpressionAttributeNames,
	})
	if err != nil {
		return nil, types.NewError("ValidationException", err.Error(), nil)
	}

	t.setItem(key, item)

	// update secondary Indexes
	for _, index := range t.Indexes {
		err := index.updateData(key, item, oldItem)
		if err != nil {
			return nil, types.NewError("ValidationException", err.Error(), nil)
		}
	}

	newItem := copyItem(item)

	return buildUpdateItemReturnAttributes(input.ReturnValues, oldItem, newItem), nil
}

// Delete deletes an item in the table based on the input
func (t *Table) Delete(input *types.DeleteItemInput) (map[string]*types.Item, error) { //nolint:gocognit,gocyclo // conditional delete, key resolution, index cleanup
	if err := types.ValidateItemMap(input.Key); err != nil {
		return nil, types.NewError("ValidationException", err.Error(), nil)
	}

	if err := types.ValidateItemMap(input.ExpressionAttributeValues); err != nil {
		return nil, types.NewError("ValidationException", err.Error(), nil)
	}

	if err := t.KeySchema.validatePrimaryKeyMap(input.Key); err != nil {
		return nil, types.NewError("ValidationException", err.Error(), nil)
	}

	key, err := t.KeySchema.GetKey(t.AttributesDef, input.Key)
	if err != nil {
		return nil, types.NewError("ValidationException", err.Error(), nil)
	}

	item, ok := t.Data[key]

	existingForCond := item
	if !ok {
		existingForCond = map[string]*types.Item{}
	}

	if input.ConditionExpression != nil && *input.ConditionExpression != "" {
		aliases := map[string]string{}

		for k, v := range input.ExpressionAttributeNames {
			if v != nil {
				aliases[k] = *v
			}
		}

		_, matched, merr := t.matchKey(QueryInput{
			Index:                     PrimaryIndexName,
			ExpressionAttributeValues: input.ExpressionAttributeValues,
			Aliases:                   aliases,
			Limit:                     1,
			ConditionExpression:       input.ConditionExpression,
		}, existingForCond)
		if merr != nil {
			return nil, types.NewError("ValidationException", merr.Error(), nil)
		}

		if !matched {
			return nil, &types.ConditionalCheckFailedException{MessageText: ErrConditionalRequestFailed.Error()}
		}
	}

	if !ok {
		return nil, nil
	}

	item = copyItem(item)

	t.removeItem(key)

	return item, nil
}

// removeItem removes the item stored under key from the table and its indexes.
func (t *Table) removeItem(key string) {
	delete(t.Data, key)

	if pos := sort.SearchStrings(t.SortedKeys, key); pos < len(t.SortedKeys) && t.SortedKeys[pos] == key {
		t.SortedKeys = slices.Delete(t.SortedKeys, pos, pos+1)
	}

	for _, index := range t.Indexes {
		index.set(key, "")
	}
}

// ItemSnapshot is the state of one item before a change, for rolling a transaction back
// (pickem patch: a transaction copies the items it touches, not the whole table).
type ItemSnapshot struct {
	key  string
	item map[string]*types.Item // deep copy; nil when there was no item
}

// SnapshotItem returns the current state of the item stored under key (a key as built by
// KeySchema.GetKey).
func (t *Table) SnapshotItem(key string) ItemSnapshot {
	return ItemSnapshot{key: key, item: deepCopyItemMap(t.Data[key])}
}

// RestoreItem puts the item back into the state s recorded, indexes included.
func (t *Table) RestoreItem(s ItemSnapshot) error {
	if s.item == nil {
		if _, ok := t.Data[s.key]; ok {
			t.removeItem(s.key)
		}

		return nil
	}

	t.setItem(s.key, s.item)

	for _, index := range t.Indexes {
		if err := index.putData(s.key, s.item); err != nil {
			return err
		}
	}

	return nil
}

// Description returns the description of a table
func (t *Table) Description(name string) *types.TableDescription {
	// TODO: implement other fields for TableDescription
	gsi, lsi := t.IndexesDescription()

	return &types.TableDescription{
		TableName:              name,
		ItemCount:              int64(len(t.SortedKeys)),
		KeySchema:              t.KeySchema.describe(),
		GlobalSecondaryIndexes: gsi,
		LocalSecondaryIndexes:  lsi,
	}
}

// IndexesDescription returns the description of the table indexes
func (t *Table) IndexesDescription() ([]types.GlobalSecondaryIndexDescription, []types.LocalSecondaryIndexDescription) {
	gsi := []types.GlobalSecondaryIndexDescription{}
	lsi := []types.LocalSecondaryIndexDescription{}

	for indexName, index := range t.Indexes {
		schema := index.keySchema.describe()
		count := index.count()

		switch index.typ {
		case indexTypeGlobal:
			{
				status := "ACTIVE"
				if t.IndexActivationDelay > 0 && time.Since(index.createdAt) < t.IndexActivationDelay {
					status = "CREATING"
				}

				gsi = append(gsi, types.GlobalSecondaryIndexDescription{
					IndexName:   &indexName,
					ItemCount:   count,
					KeySchema:   schema,
					Projection:  index.projection,
					IndexStatus: &status,
				})
			}
		case indexTypeLocal:
			{
				lsi = append(lsi, types.LocalSecondaryIndexDescription{
					IndexName:  &indexName,
					ItemCount:  count,
					KeySchema:  schema,
					Projection: index.projection,
				})
			}
		}
	}

	return gsi, lsi
}

func handleConditionalCheckError(input *types.UpdateItemInput, checkErr *types.ConditionalCheckFailedException, item map[string]*types.Item) {
	if input.ReturnValuesOnConditionCheckFailure != nil && *input.ReturnValuesOnConditionCheckFailure == "ALL_OLD" {
		checkErr.Item = item
	}
}
