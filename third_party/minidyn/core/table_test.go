package core

import (
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/stretchr/testify/require"
	"github.com/truora/minidyn/interpreter"
	"github.com/truora/minidyn/types"
)

var tableName = "pokemons"

type pokemon struct {
	ID         string   `json:"id"`
	Type       string   `json:"type"`
	SecondType string   `json:"second_type"`
	Name       string   `json:"name"`
	Level      int64    `json:"lvl"`
	Moves      []string `json:"moves" dynamodbav:"moves,stringset,omitempty"`
	Local      []string `json:"local"`
}

func createPokemon(creature pokemon) map[string]*types.Item {
	item := map[string]*types.Item{
		"id":   {S: new(creature.ID)},
		"type": {S: new(creature.Type)},
		"name": {S: new(creature.Name)},
	}

	return item
}

// primaryKeyFromPokemonItem returns only the attributes used in createPokemonTable's primary key (id + name).
func primaryKeyFromPokemonItem(item map[string]*types.Item) map[string]*types.Item {
	return map[string]*types.Item{
		"id":   item["id"],
		"name": item["name"],
	}
}

func createPokemonTable() (*Table, error) {
	table := NewTable(tableName)

	table.AttributesDef = map[string]string{"id": "S", "name": "S"}
	table.KeySchema = keySchema{"id", "name", false}
	invertStr, allStr := "invert", "ALL"
	globalSecondaryIndexes := []*types.GlobalSecondaryIndex{
		{
			ProvisionedThroughput: &types.ProvisionedThroughput{
				ReadCapacityUnits:  1,
				WriteCapacityUnits: 1,
			},
			IndexName: &invertStr,
			KeySchema: []*types.KeySchemaElement{
				{
					AttributeName: "id",
					KeyType:       "HASH",
				},
				{
					AttributeName: "name",
					KeyType:       "RANGE",
				},
			},
			Projection: &types.Projection{
				ProjectionType: &allStr,
			},
		},
	}

	globalSecondaryIndexes[0].ProvisionedThroughput = &types.ProvisionedThroughput{
		ReadCapacityUnits:  1,
		WriteCapacityUnits: 1,
	}

	err := table.AddGlobalIndexes(globalSecondaryIndexes)
	if err != nil {
		return nil, err
	}

	return table, nil
}

func createGlobalSecondaryIndex() *types.GlobalSecondaryIndexUpdate {
	return &types.GlobalSecondaryIndexUpdate{
		Create: &types.CreateGlobalSecondaryIndexAction{},
		Delete: &types.DeleteGlobalSecondaryIndexAction{},
		Update: &types.UpdateGlobalSecondaryIndexAction{},
	}
}

func createLocalSecondaryIndex() []*types.LocalSecondaryIndex {
	return []*types.LocalSecondaryIndex{
		{
			IndexName: new("indexname"),
		},
	}
}

func TestAddLocalIndexes(t *testing.T) {
	c := require.New(t)

	localIndexes := createLocalSecondaryIndex()
	newTable := NewTable(tableName)

	err := newTable.AddLocalIndexes(localIndexes)
	c.Contains(err.Error(), " No Hash Key specified in schema.")

	localIndexes[0].KeySchema = []*types.KeySchemaElement{
		{
			AttributeName: "id",
			KeyType:       "HASH",
		},
	}

	err = newTable.AddLocalIndexes(localIndexes)
	c.Contains(err.Error(), "Local Secondary Index Hash Key not specified in Attribute Definitions.")

	newTable, err = createPokemonTable()
	c.NoError(err)

	err = newTable.AddLocalIndexes(localIndexes)
	c.NoError(err)

	err = newTable.AddLocalIndexes([]*types.LocalSecondaryIndex{})
	c.Contains(err.Error(), "ValidationException: LSI list is empty/invalid")
}

func TestTableIndexesDescription(t *testing.T) {
	c := require.New(t)

	newTable, err := createPokemonTable()
	c.NoError(err)

	localIndexes := createLocalSecondaryIndex()
	localIndexes[0].KeySchema = []*types.KeySchemaElement{
		{
			AttributeName: "id",
			KeyType:       "HASH",
		},
	}
	c.NoError(newTable.AddLocalIndexes(localIndexes))

	_, lsi := newTable.IndexesDescription()
	c.Len(lsi, 1)
	c.Equal("indexname", *lsi[0].IndexName)
}

func TestApplyIndexChange(t *testing.T) {
	c := require.New(t)

	globalSecondaryIndex := createGlobalSecondaryIndex()
	newTable := NewTable(tableName)

	err := newTable.ApplyIndexChange(globalSecondaryIndex)
	c.Contains(err.Error(), "No provisioned throughput specified for the global secondary index")

	newTable.BillingMode = new("PAY_PER_REQUEST")
	err = newTable.ApplyIndexChange(globalSecondaryIndex)
	c.Contains(err.Error(), "No Hash Key specified in schema.")

	newTable, err = createPokemonTable()
	c.NoError(err)

	newTable.BillingMode = new("PAY_PER_REQUEST")
	createTableInput := &types.CreateTableInput{
		KeySchema: []*types.KeySchemaElement{
			{
				AttributeName: "id",
				KeyType:       "HASH",
			},
		},
	}

	err = newTable.CreatePrimaryIndex(createTableInput)
	c.NoError(err)

	globalSecondaryIndex.Create = &types.CreateGlobalSecondaryIndexAction{
		KeySchema: []*types.KeySchemaElement{
			{
				AttributeName: "id",
				KeyType:       "HASH",
			},
		},
		IndexName: new("indexname"),
	}

	err = newTable.ApplyIndexChange(globalSecondaryIndex)
	c.NoError(err)

	globalSecondaryIndex.Create = nil

	globalSecondaryIndex.Delete = &types.DeleteGlobalSecondaryIndexAction{
		IndexName: new("indexname"),
	}

	err = newTable.ApplyIndexChange(globalSecondaryIndex)
	c.NoError(err)

	newTable.Indexes = map[string]*index{}
	err = newTable.ApplyIndexChange(globalSecondaryIndex)
	c.Contains(err.Error(), "Requested resource not found")

	globalSecondaryIndex.Delete = nil

	globalSecondaryIndex.Update = &types.UpdateGlobalSecondaryIndexAction{
		IndexName: new("indexname"),
	}

	err = newTable.ApplyIndexChange(globalSecondaryIndex)
	c.NoError(err)

	globalSecondaryIndex.Update = nil

	err = newTable.ApplyIndexChange(globalSecondaryIndex)
	c.NoError(err)

	err = newTable.AddGlobalIndexes([]*types.GlobalSecondaryIndex{})
	c.Contains(err.Error(), "GSI list is empty/invalid")
}

func TestCreatePrimaryIndex(t *testing.T) {
	c := require.New(t)

	newTable := NewTable(tableName)
	createTableInput := &types.CreateTableInput{}

	err := newTable.CreatePrimaryIndex(createTableInput)
	c.Contains(err.Error(), "No Hash Key specified in schema.")

	createTableInput.KeySchema = []*types.KeySchemaElement{
		{
			AttributeName: "id",
			KeyType:       "HASH",
		},
	}

	err = newTable.CreatePrimaryIndex(createTableInput)
	c.Contains(err.Error(), "Hash Key not specified in Attribute Definitions")

	newTable, err = createPokemonTable()
	c.NoError(err)

	err = newTable.CreatePrimaryIndex(createTableInput)
	c.Contains(err.Error(), "No provisioned throughput specified for the table")

	newTable.BillingMode = new("PAY_PER_REQUEST")
	err = newTable.CreatePrimaryIndex(createTableInput)
	c.NoError(err)
}

func TestValidateKeyAttributeScalarTypesPrimaryIndex(t *testing.T) {
	c := require.New(t)

	tbl := NewTable(tableName)
	tbl.BillingMode = new("PAY_PER_REQUEST")
	tbl.AttributesDef = map[string]string{"pk": "BOOL"}
	err := tbl.CreatePrimaryIndex(&types.CreateTableInput{
		KeySchema: []*types.KeySchemaElement{{AttributeName: "pk", KeyType: "HASH"}},
	})
	c.Error(err)
	c.Contains(err.Error(), "pk")
	c.Contains(err.Error(), "BOOL")
	c.Contains(err.Error(), "S, N, or B")

	tbl.AttributesDef = map[string]string{"pk": "S", "sk": "L"}
	err = tbl.CreatePrimaryIndex(&types.CreateTableInput{
		KeySchema: []*types.KeySchemaElement{
			{AttributeName: "pk", KeyType: "HASH"},
			{AttributeName: "sk", KeyType: "RANGE"},
		},
	})
	c.Error(err)
	c.Contains(err.Error(), "sk")
	c.Contains(err.Error(), "L")

	tbl.AttributesDef = map[string]string{"pk": "N"}
	err = tbl.CreatePrimaryIndex(&types.CreateTableInput{
		KeySchema: []*types.KeySchemaElement{{AttributeName: "pk", KeyType: "HASH"}},
	})
	c.NoError(err)

	tbl.AttributesDef = map[string]string{"pk": "B", "sk": "N"}
	err = tbl.CreatePrimaryIndex(&types.CreateTableInput{
		KeySchema: []*types.KeySchemaElement{
			{AttributeName: "pk", KeyType: "HASH"},
			{AttributeName: "sk", KeyType: "RANGE"},
		},
	})
	c.NoError(err)
}

func TestValidateKeyAttributeScalarTypesGSI(t *testing.T) {
	c := require.New(t)

	tbl := NewTable(tableName)
	tbl.BillingMode = new("PAY_PER_REQUEST")
	tbl.AttributesDef = map[string]string{"pk": "S", "gsi_h": "BOOL"}
	idxName := "by-bool"
	err := tbl.AddGlobalIndexes([]*types.GlobalSecondaryIndex{{
		IndexName:             &idxName,
		KeySchema:             []*types.KeySchemaElement{{AttributeName: "gsi_h", KeyType: "HASH"}},
		Projection:            &types.Projection{ProjectionType: aws.String("ALL")},
		ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: 1, WriteCapacityUnits: 1},
	}})
	c.Error(err)
	c.Contains(err.Error(), "Global Secondary Index ")
	c.Contains(err.Error(), "gsi_h")
	c.Contains(err.Error(), "BOOL")

	tbl.AttributesDef = map[string]string{"pk": "S", "gsi_h": "N", "gsi_r": "M"}
	idxName = "by-map"
	err = tbl.AddGlobalIndexes([]*types.GlobalSecondaryIndex{{
		IndexName: &idxName,
		KeySchema: []*types.KeySchemaElement{
			{AttributeName: "gsi_h", KeyType: "HASH"},
			{AttributeName: "gsi_r", KeyType: "RANGE"},
		},
		Projection:            &types.Projection{ProjectionType: aws.String("ALL")},
		ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: 1, WriteCapacityUnits: 1},
	}})
	c.Error(err)
	c.Contains(err.Error(), "gsi_r")
	c.Contains(err.Error(), "M")

	tbl.AttributesDef = map[string]string{"pk": "S", "gsi_h": "B", "gsi_r": "N"}
	idxName = "by-bin"
	err = tbl.AddGlobalIndexes([]*types.GlobalSecondaryIndex{{
		IndexName: &idxName,
		KeySchema: []*types.KeySchemaElement{
			{AttributeName: "gsi_h", KeyType: "HASH"},
			{AttributeName: "gsi_r", KeyType: "RANGE"},
		},
		Projection:            &types.Projection{ProjectionType: aws.String("ALL")},
		ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: 1, WriteCapacityUnits: 1},
	}})
	c.NoError(err)
}

func TestValidateKeyAttributeScalarTypesLSI(t *testing.T) {
	c := require.New(t)

	tbl := NewTable(tableName)
	tbl.BillingMode = new("PAY_PER_REQUEST")
	tbl.AttributesDef = map[string]string{"pk": "S", "sk": "S", "lsi_r": "BOOL"}
	idxName := "lsi-bad"
	err := tbl.AddLocalIndexes([]*types.LocalSecondaryIndex{{
		IndexName: &idxName,
		KeySchema: []*types.KeySchemaElement{
			{AttributeName: "pk", KeyType: "HASH"},
			{AttributeName: "lsi_r", KeyType: "RANGE"},
		},
		Projection: &types.Projection{ProjectionType: aws.String("ALL")},
	}})
	c.Error(err)
	c.Contains(err.Error(), "Local Secondary Index ")
	c.Contains(err.Error(), "lsi_r")

	tbl.AttributesDef = map[string]string{"pk": "S", "sk": "S", "lsi_r": "B"}
	idxName = "lsi-ok"
	err = tbl.AddLocalIndexes([]*types.LocalSecondaryIndex{{
		IndexName: &idxName,
		KeySchema: []*types.KeySchemaElement{
			{AttributeName: "pk", KeyType: "HASH"},
			{AttributeName: "lsi_r", KeyType: "RANGE"},
		},
		Projection: &types.Projection{ProjectionType: aws.String("ALL")},
	}})
	c.NoError(err)
}

func TestCreateTableIndexes(t *testing.T) {
	c := require.New(t)

	newTable := NewTable(tableName)
	newTable.AttributesDef = map[string]string{"partition": "S", "range": "S"}
	c.Equal(newTable.Name, tableName)

	invertStr, allStr := "invert", "ALL"
	globalSecondaryIndexes := []*types.GlobalSecondaryIndex{
		{
			IndexName: &invertStr,
			KeySchema: []*types.KeySchemaElement{
				{
					AttributeName: "range",
					KeyType:       "HASH",
				},
				{
					AttributeName: "no_defined",
					KeyType:       "RANGE",
				},
			},
			Projection: &types.Projection{
				ProjectionType: &allStr,
			},
		},
	}

	err := newTable.AddGlobalIndexes(globalSecondaryIndexes)
	c.Contains(err.Error(), "No provisioned throughput specified for the global secondary index")

	globalSecondaryIndexes[0].ProvisionedThroughput = &types.ProvisionedThroughput{
		ReadCapacityUnits:  1,
		WriteCapacityUnits: 1,
	}

	err = newTable.AddGlobalIndexes(globalSecondaryIndexes)
	c.Contains(err.Error(), "Global Secondary Index Range Key not specified in Attribute Definitions")

	globalSecondaryIndexes[0].KeySchema[1].AttributeName = "partition"

	err = newTable.AddGlobalIndexes(globalSecondaryIndexes)
	c.NoError(err)
}

func TestDescriptionTable(t *testing.T) {
	c := require.New(t)

	newTable := NewTable(tableName)
	newTable.AttributesDef = map[string]string{"partition": "S", "range": "S"}
	newTable.KeySchema = keySchema{"range", "HAS", false}

	invertStr, allStr := "invert", "ALL"
	globalSecondaryIndexes := []*types.GlobalSecondaryIndex{
		{
			ProvisionedThroughput: &types.ProvisionedThroughput{
				ReadCapacityUnits:  1,
				WriteCapacityUnits: 1,
			},
			IndexName: &invertStr,
			KeySchema: []*types.KeySchemaElement{
				{
					AttributeName: "range",
					KeyType:       "HASH",
				},
				{
					AttributeName: "partition",
					KeyType:       "RANGE",
				},
			},
			Projection: &types.Projection{
				ProjectionType: &allStr,
			},
		},
	}

	err := newTable.AddGlobalIndexes(globalSecondaryIndexes)
	c.NoError(err)

	d := newTable.Description(tableName)
	c.Equal(d.TableName, d.TableName)
}

func TestGetKey(t *testing.T) {
	c := require.New(t)

	newTable := NewTable(tableName)
	newTable.AttributesDef = map[string]string{"HASH": "S", "range": "S"}
	newTable.KeySchema = keySchema{"range", "HASH", false}

	k, err := newTable.KeySchema.GetKey(map[string]string{"HASH": "S", "range": "S"}, map[string]*types.Item{"range": {S: new("range")}, "HASH": {S: new("HASH")}})
	c.NoError(err)
	c.Equal("range.HASH", k)

	_, err = newTable.KeySchema.GetKey(map[string]string{"incorrect": "S", "range": "S"}, map[string]*types.Item{"range": {S: new("range")}, "HASH": {S: new("HASH")}})
	c.EqualError(err, `Invalid attribute value type; field "HASH"`)

	_, err = newTable.KeySchema.GetKey(map[string]string{"HASH": "S", "": "S"}, map[string]*types.Item{"range": {S: new("range")}, "HASH": {S: new("HASH")}})
	c.EqualError(err, `Invalid attribute value type; field "range"`)

	newTable.KeySchema = keySchema{"", "", true}
	_, err = newTable.KeySchema.GetKey(map[string]string{"incorrect": "S", "range": "S"}, map[string]*types.Item{"range": {S: new("range")}, "HASH": {S: new("HASH")}})
	c.NoError(err)
}

func TestGetKeys(t *testing.T) {
	c := require.New(t)

	val := GetKeyAt([]string{"gk"}, 0, 0, true)
	c.Equal(val, "gk")

	val = GetKeyAt([]string{"gk"}, 1, 0, false)
	c.Equal(val, "gk")

	val = GetKeyAt([]string{"gk"}, 0, 0, true)
	c.Equal(val, "gk")

	val = GetKeyAt([]string{"gk"}, 1, 0, false)
	c.Equal(val, "gk")
}

func TestDeleteItem(t *testing.T) {
	c := require.New(t)

	item := createPokemon(pokemon{
		ID:   "001",
		Type: "grass",
		Name: "Bulbasaur",
	})

	newTable, err := createPokemonTable()
	c.NoError(err)

	input := &types.PutItemInput{
		Item:      item,
		TableName: &newTable.Name,
	}

	_, err = newTable.Put(input)
	c.NoError(err)

	item = createPokemon(pokemon{
		ID:   "002",
		Type: "grass",
		Name: "Ivysaur",
	})
	input.Item = item
	_, err = newTable.Put(input)
	c.NoError(err)

	item = createPokemon(pokemon{
		ID:   "003",
		Type: "grass",
		Name: "Venusaur",
	})
	input.Item = item
	_, err = newTable.Put(input)
	c.NoError(err)
	c.Len(newTable.Data, 3)

	inp := &types.DeleteItemInput{
		Key: map[string]*types.Item{
			"id":   {S: new("002")},
			"name": {S: new("Ivysaur")},
		},
		TableName: &newTable.Name,
	}

	_, err = newTable.Delete(inp)
	c.NoError(err)
	c.Len(newTable.Data, 2)

	_, err = newTable.Delete(inp)
	c.NoError(err)
	c.Len(newTable.Data, 2)

	inp = &types.DeleteItemInput{
		Key: map[string]*types.Item{
			"id": {S: new("123")},
		},
		TableName: &newTable.Name,
	}

	_, err = newTable.Delete(inp)
	c.EqualError(err, `ValidationException: The number of conditions on the keys is invalid; expected 2 keys, got 1`)
}

func TestDeleteIndex(t *testing.T) {
	c := require.New(t)

	item := createPokemon(pokemon{
		ID:   "001",
		Type: "grass",
		Name: "Bulbasaur",
	})

	newTable, err := createPokemonTable()
	c.NoError(err)

	input := &types.PutItemInput{
		Item:      item,
		TableName: &newTable.Name,
	}

	_, err = newTable.Put(input)
	c.NoError(err)

	item = createPokemon(pokemon{
		ID:   "002",
		Type: "grass",
		Name: "Ivysaur",
	})
	input.Item = item
	_, err = newTable.Put(input)
	c.NoError(err)

	item = createPokemon(pokemon{
		ID:   "003",
		Type: "grass",
		Name: "Venusaur",
	})
	input.Item = item
	_, err = newTable.Put(input)
	c.NoError(err)
	c.Len(newTable.Data, 3)

	inp := &types.DeleteItemInput{
		Key: map[string]*types.Item{
			"id":   {S: new("002")},
			"name": {S: new("Ivysaur")},
		},
		TableName: &newTable.Name,
	}

	index := newTable.Indexes["invert"]
	index.entries = []indexEntry{{indexKey: "key1", pk: "key1"}, {indexKey: "key2", pk: "key2"}}
	newTable.Indexes["invert"] = index

	_, err = newTable.Delete(inp)
	c.NoError(err)
}

func TestSearchData(t *testing.T) {
	c := require.New(t)

	newTable, err := createPokemonTable()
	c.NoError(err)

	queryInput := QueryInput{}

	result, lastItem, err := newTable.SearchData(queryInput)
	c.NoError(err)
	c.Equal([]map[string]*types.Item{}, result)
	c.Equal(map[string]*types.Item{}, lastItem)

	item := createPokemon(pokemon{
		ID:   "001",
		Type: "grass",
		Name: "Bulbasaur",
	})

	input := &types.PutItemInput{
		Item:      item,
		TableName: &newTable.Name,
	}

	_, err = newTable.Put(input)
	c.NoError(err)

	queryInput = QueryInput{
		ExpressionAttributeValues: map[string]*types.Item{
			":id": {S: new("001")},
		},
	}

	result, lastItem, err = newTable.SearchData(queryInput)
	c.NoError(err)
	c.Equal([]map[string]*types.Item{}, result)
	c.Equal(map[string]*types.Item{}, lastItem)

	queryInput.Aliases = input.ExpressionAttributeNames
	queryInput.Limit = 1
	queryInput.ConditionExpression = input.ConditionExpression
	queryInput.ScanIndexForward = true

	newIndex := index{
		entries: []indexEntry{{indexKey: "ref2", pk: "ref1"}},
		refs:    map[string]string{"ref1": "ref2"},
		Table:   newTable,
	}

	newTable.Indexes = map[string]*index{
		"indice": &newIndex,
	}

	queryInput.Index = "indice"

	result, lastItem, err = newTable.SearchData(queryInput)
	c.NoError(err)
	c.Equal([]map[string]*types.Item{}, result)
	c.Equal(map[string]*types.Item{}, lastItem)

	queryInput.ExclusiveStartKey = item
	result, lastItem, err = newTable.SearchData(queryInput)
	c.NoError(err)
	c.Equal([]map[string]*types.Item{}, result)
	c.Equal(map[string]*types.Item{}, lastItem)

	newIndex.Clear()
}

func TestPut_duplicateSetValidationException(t *testing.T) {
	c := require.New(t)

	newTable := NewTable(tableName)
	newTable.AttributesDef = map[string]string{"id": "S", "name": "S"}
	newTable.KeySchema = keySchema{"id", "name", false}

	a, b := "x", "x"
	item := map[string]*types.Item{
		"id":   {S: new("001")},
		"name": {S: new("n")},
		"tags": {SS: []*string{&a, &b}},
	}

	_, err := newTable.Put(&types.PutItemInput{Item: item, TableName: &newTable.Name})
	c.Error(err)

	var apiErr types.Error
	c.True(errors.As(err, &apiErr))
	c.Equal("ValidationException", apiErr.Code())
	c.Contains(apiErr.Message(), "contains duplicates")
}

func TestSearchData_duplicateExpressionAttributeValues(t *testing.T) {
	c := require.New(t)

	newTable, err := createPokemonTable()
	c.NoError(err)

	a, b := "d", "d"
	_, _, err = newTable.SearchData(QueryInput{
		ExpressionAttributeValues: map[string]*types.Item{
			":v": {SS: []*string{&a, &b}},
		},
	})
	c.Error(err)

	var apiErr types.Error
	c.True(errors.As(err, &apiErr))
	c.Equal("ValidationException", apiErr.Code())
	c.Contains(apiErr.Message(), "contains duplicates")
}

func TestSearchData_undeclaredExpressionAttributeName(t *testing.T) {
	cases := []struct {
		name  string
		input QueryInput
		label string
	}{
		{
			name:  "KeyConditionExpression",
			input: QueryInput{KeyConditionExpression: "#a = :v"},
			label: "KeyConditionExpression",
		},
		{
			name:  "FilterExpression",
			input: QueryInput{FilterExpression: "#a = :v"},
			label: "FilterExpression",
		},
		{
			name:  "ProjectionExpression",
			input: QueryInput{ProjectionExpression: "#a"},
			label: "ProjectionExpression",
		},
	}

	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := require.New(t)

			newTable, err := createPokemonTable()
			c.NoError(err)

			// Empty table: the per-item interpreter checks never run, so validation must
			// happen up front to match DynamoDB.
			_, _, err = newTable.SearchData(tc.input)
			c.Error(err)

			var apiErr types.Error
			c.True(errors.As(err, &apiErr))
			c.Equal("ValidationException", apiErr.Code())
			c.Contains(apiErr.Message(), "Invalid "+tc.label+": An expression attribute name used in the document path is not defined; attribute name: #a")
		})
	}
}

func TestUpdate_duplicateExpressionAttributeValues(t *testing.T) {
	c := require.New(t)

	newTable, err := createPokemonTable()
	c.NoError(err)

	item := createPokemon(pokemon{
		ID:   "001",
		Type: "grass",
		Name: "Bulbasaur",
	})

	_, err = newTable.Put(&types.PutItemInput{Item: item, TableName: &newTable.Name})
	c.NoError(err)

	a, b := "p", "p"
	_, err = newTable.Update(&types.UpdateItemInput{
		Key: primaryKeyFromPokemonItem(item),
		ExpressionAttributeValues: map[string]*types.Item{
			":s": {SS: []*string{&a, &b}},
		},
	})
	c.Error(err)

	var apiErr types.Error
	c.True(errors.As(err, &apiErr))
	c.Equal("ValidationException", apiErr.Code())
	c.Contains(apiErr.Message(), "contains duplicates")
}

func TestUpdate(t *testing.T) {
	c := require.New(t)

	newTable, err := createPokemonTable()
	c.NoError(err)

	item := createPokemon(pokemon{
		ID:   "001",
		Type: "grass",
		Name: "Bulbasaur",
	})

	input := &types.PutItemInput{
		Item:      item,
		TableName: &newTable.Name,
	}

	_, err = newTable.Put(input)
	c.NoError(err)

	updateInput := &types.UpdateItemInput{}
	_, err = newTable.Update(updateInput)
	c.Contains(err.Error(), "The number of conditions on the keys is invalid")

	updateInput = &types.UpdateItemInput{
		ExpressionAttributeNames: map[string]string{
			"#id": "id",
		},
		ExpressionAttributeValues: map[string]*types.Item{
			":id": {S: new("002")},
		},
		Key: primaryKeyFromPokemonItem(item),
	}

	_, err = newTable.Update(updateInput)
	c.Contains(err.Error(), "invalid update expression")

	updateInput.ConditionExpression = new("attribute_not_exists(#id)")
	updateInput.ReturnValuesOnConditionCheckFailure = aws.String("ALL_OLD")

	_, err = newTable.Update(updateInput)

	var checkErr *types.ConditionalCheckFailedException
	c.True(errors.As(err, &checkErr))
	c.Contains(checkErr.Error(), "The conditional request failed")
	c.Len(checkErr.Item, 3)
	c.Equal("001", types.StringValue(checkErr.Item["id"].S))
	c.Equal("grass", types.StringValue(checkErr.Item["type"].S))
	c.Equal("Bulbasaur", types.StringValue(checkErr.Item["name"].S))

	updateInput.ConditionExpression = new("attribute_exists(id)")
	updateInput.UpdateExpression = "SET id = :id"
	updateInput.ReturnValues = aws.String("ALL_NEW")

	_, err = newTable.Update(updateInput)
	c.Error(err)

	var keyUpdateErr types.Error
	c.True(errors.As(err, &keyUpdateErr))
	c.Equal("ValidationException", keyUpdateErr.Code())
	c.Contains(keyUpdateErr.Message(), "Cannot update attribute id")
	c.Contains(keyUpdateErr.Message(), "part of the key")

	newTable.Clear()
}

func TestUpdateMultiClauseExpression(t *testing.T) {
	c := require.New(t)

	newTable, err := createPokemonTable()
	c.NoError(err)

	item := createPokemon(pokemon{
		ID:   "001",
		Type: "grass",
		Name: "Bulbasaur",
	})
	item["lvl"] = &types.Item{N: new("1")}

	input := &types.PutItemInput{
		Item:      item,
		TableName: &newTable.Name,
	}

	_, err = newTable.Put(input)
	c.NoError(err)

	updateInput := &types.UpdateItemInput{
		Key: primaryKeyFromPokemonItem(item),
		ExpressionAttributeNames: map[string]string{
			"#t": "type",
		},
		ExpressionAttributeValues: map[string]*types.Item{
			":new": {S: new("poison")},
			":one": {N: new("1")},
		},
		UpdateExpression: "SET #t = :new ADD lvl :one",
		ReturnValues:     aws.String("ALL_NEW"),
	}

	result, err := newTable.Update(updateInput)
	c.NoError(err)
	c.Equal("poison", types.StringValue(result["type"].S))
	c.Equal("2", types.StringValue(result["lvl"].N))

	newTable.Clear()
}

func TestUpdateReturnValuesSemantics(t *testing.T) {
	c := require.New(t)

	newTable, err := createPokemonTable()
	c.NoError(err)

	exprVals := map[string]*types.Item{":st": {S: new("poison")}}
	uexpr := "SET second_type = :st"

	run := func(id string, rv *string) map[string]*types.Item {
		t.Helper()

		item := createPokemon(pokemon{
			ID:   id,
			Type: "grass",
			Name: "Bulbasaur",
		})

		_, perr := newTable.Put(&types.PutItemInput{
			Item:      item,
			TableName: &newTable.Name,
		})
		c.NoError(perr)

		out, uerr := newTable.Update(&types.UpdateItemInput{
			TableName:                 &newTable.Name,
			Key:                       primaryKeyFromPokemonItem(item),
			ReturnValues:              rv,
			UpdateExpression:          uexpr,
			ExpressionAttributeValues: exprVals,
		})
		c.NoError(uerr)

		return out
	}

	c.Nil(run("rv-none", nil))
	c.Nil(run("rv-none-explicit", aws.String("NONE")))

	allOld := run("rv-all-old", aws.String("ALL_OLD"))
	c.Len(allOld, 3)
	c.Equal("Bulbasaur", types.StringValue(allOld["name"].S))
	c.Equal("grass", types.StringValue(allOld["type"].S))
	c.Equal("rv-all-old", types.StringValue(allOld["id"].S))

	updatedOld := run("rv-upd-old", aws.String("UPDATED_OLD"))
	c.Empty(updatedOld)

	updatedNew := run("rv-upd-new", aws.String("UPDATED_NEW"))
	c.Len(updatedNew, 1)
	c.Equal("poison", types.StringValue(updatedNew["second_type"].S))

	allNew := run("rv-all-new", aws.String("ALL_NEW"))
	c.Len(allNew, 4)
	c.Equal("poison", types.StringValue(allNew["second_type"].S))
	c.Equal("Bulbasaur", types.StringValue(allNew["name"].S))
	c.Equal("rv-all-new", types.StringValue(allNew["id"].S))

	newTable.Clear()
}

func TestUpdateInvalidReturnValues(t *testing.T) {
	c := require.New(t)

	newTable, err := createPokemonTable()
	c.NoError(err)

	item := createPokemon(pokemon{
		ID:   "bad-rv",
		Type: "grass",
		Name: "Bulbasaur",
	})

	_, err = newTable.Put(&types.PutItemInput{
		Item:      item,
		TableName: &newTable.Name,
	})
	c.NoError(err)

	_, err = newTable.Update(&types.UpdateItemInput{
		TableName:                 &newTable.Name,
		Key:                       primaryKeyFromPokemonItem(item),
		ReturnValues:              aws.String("NOT_A_REAL_MODE"),
		UpdateExpression:          "SET #n = :new",
		ExpressionAttributeNames:  map[string]string{"#n": "name"},
		ExpressionAttributeValues: map[string]*types.Item{":new": {S: new("X")}},
	})
	c.Error(err)
	c.Contains(err.Error(), "returnValues")

	newTable.Clear()
}

func TestUpdateDuplicateClauseKeywordError(t *testing.T) {
	c := require.New(t)

	newTable, err := createPokemonTable()
	c.NoError(err)

	item := createPokemon(pokemon{
		ID:   "001",
		Type: "grass",
		Name: "Bulbasaur",
	})

	input := &types.PutItemInput{
		Item:      item,
		TableName: &newTable.Name,
	}

	_, err = newTable.Put(input)
	c.NoError(err)

	updateInput := &types.UpdateItemInput{
		Key: primaryKeyFromPokemonItem(item),
		ExpressionAttributeNames: map[string]string{
			"#t": "type",
		},
		ExpressionAttributeValues: map[string]*types.Item{
			":a": {S: new("x")},
			":b": {S: new("y")},
		},
		UpdateExpression: "SET #t = :a SET type = :b",
	}

	_, err = newTable.Update(updateInput)
	c.Error(err)
	c.ErrorContains(err, "duplicate update clause keyword")

	newTable.Clear()
}

func TestPutItem(t *testing.T) {
	c := require.New(t)

	newTable := NewTable(tableName)

	item := map[string]*types.Item{
		"id":        {S: new("123")},
		"name":      {S: new("Lili")},
		"last_name": {S: new("Cruz")},
	}

	input := &types.PutItemInput{
		Item:      item,
		TableName: &newTable.Name,
	}

	_, err := newTable.Put(input)
	c.EqualError(err, `ValidationException: One of the required keys was not given a value; field: ""`)

	newTable.AttributesDef = map[string]string{"id": "S", "name": "S"}
	newTable.KeySchema = keySchema{"id", "name", false}

	condExp := "attribute_not_exists(#id)"
	input.ConditionExpression = &condExp
	input.ExpressionAttributeNames = map[string]string{
		"#id": "id",
	}

	input.ExpressionAttributeValues = map[string]*types.Item{
		":id": {S: new("456")},
	}

	_, err = newTable.Put(input)
	c.NoError(err)
}

func TestPutItemOverwriteReconcilesGSIKey(t *testing.T) {
	c := require.New(t)

	newTable := NewTable(tableName)
	newTable.AttributesDef = map[string]string{"id": "S", "type": "S"}
	newTable.KeySchema = keySchema{"id", "", false}

	indexName, allStr := "by-type", "ALL"
	err := newTable.AddGlobalIndexes([]*types.GlobalSecondaryIndex{
		{
			ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: 1, WriteCapacityUnits: 1},
			IndexName:             &indexName,
			KeySchema: []*types.KeySchemaElement{
				{AttributeName: "type", KeyType: "HASH"},
			},
			Projection: &types.Projection{ProjectionType: &allStr},
		},
	})
	c.NoError(err)

	put := func(id, typ string) {
		_, perr := newTable.Put(&types.PutItemInput{
			Item:      map[string]*types.Item{"id": {S: new(id)}, "type": {S: new(typ)}},
			TableName: &newTable.Name,
		})
		c.NoError(perr)
	}

	queryByType := func(typ string) []map[string]*types.Item {
		items, _, qerr := newTable.SearchData(QueryInput{
			Index:                     "by-type",
			KeyConditionExpression:    "#type = :type",
			Aliases:                   map[string]string{"#type": "type"},
			ExpressionAttributeValues: map[string]*types.Item{":type": {S: new(typ)}},
			ScanIndexForward:          true,
		})
		c.NoError(qerr)

		return items
	}

	put("001", "grass")
	c.Len(queryByType("grass"), 1)

	// Overwriting the same primary key with a changed GSI key must move the
	// projection: the new key becomes searchable and the old one is dropped.
	put("001", "fire")
	c.Len(queryByType("fire"), 1)
	c.Len(queryByType("grass"), 0)
}

func TestGetItem(t *testing.T) {
	c := require.New(t)

	item := createPokemon(pokemon{
		ID:   "001",
		Type: "grass",
		Name: "Bulbasaur",
	})

	newTable, err := createPokemonTable()
	c.NoError(err)

	newTable.Data = map[string]map[string]*types.Item{
		"item": item,
	}

	resultItem := newTable.getItem("item")
	c.Equal(item, resultItem)
}

func TestGetLastKey(t *testing.T) {
	c := require.New(t)

	newTable, err := createPokemonTable()
	c.NoError(err)

	item := createPokemon(pokemon{
		ID:   "001",
		Type: "grass",
		Name: "Bulbasaur",
	})

	newIndex := &index{
		entries: []indexEntry{{indexKey: "ref2", pk: "ref1"}},
		refs:    map[string]string{"ref1": "ref2"},
		Table:   newTable,
	}

	result := newTable.getLastKey(item, 1, 1, 1, 2, newIndex)
	c.Equal(item["id"], result["id"])
}

func TestInterpreterMatch(t *testing.T) {
	c := require.New(t)

	newTable, err := createPokemonTable()
	c.NoError(err)

	newTable.UseNativeInterpreter = true

	err = newTable.interpreterUpdate(interpreter.UpdateInput{})
	c.Contains(err.Error(), "unsupported expression or attribute type:")

	item := createPokemon(pokemon{
		ID:   "001",
		Type: "grass",
		Name: "Bulbasaur",
	})

	newTable.UseNativeInterpreter = true
	matchInput := interpreter.MatchInput{
		TableName:  tableName,
		Expression: "#id = :id",
		Item:       item,
		Attributes: map[string]*types.Item{
			":id": {
				S: new("001"),
			},
		},
		Aliases: map[string]string{
			"#id": "id",
		},
		ExpressionType: interpreter.ExpressionTypeConditional,
	}

	matched, err := newTable.InterpreterMatch(matchInput)
	c.NoError(err)
	c.True(matched)

	matchInput = interpreter.MatchInput{
		TableName: tableName,
	}

	_, err = newTable.InterpreterMatch(matchInput)
	c.Error(err)

	newTable.UseNativeInterpreter = false
	matchInput.Expression = "bad_expression(id)"

	_, err = newTable.InterpreterMatch(matchInput)
	c.Error(err)
}

func TestMatchKey(t *testing.T) {
	c := require.New(t)

	newTable, err := createPokemonTable()
	c.NoError(err)

	item := createPokemon(pokemon{
		ID:   "001",
		Type: "grass",
		Name: "Bulbasaur",
	})

	queryInput := QueryInput{
		ExpressionAttributeValues: map[string]*types.Item{
			":id": {S: new("001")},
		},
		Aliases: map[string]string{
			"#id": "id",
		},
		KeyConditionExpression: "#id = :id",
		FilterExpression:       "#id = :id",
		ConditionExpression:    new("attribute_exists(id)"),
	}

	expresionType, ok, err := newTable.matchKey(queryInput, item)
	c.NoError(err)
	c.True(ok)
	c.NotNil(expresionType)
}

func TestValidatePrimaryKeyMap_TableMethod(t *testing.T) {
	c := require.New(t)

	table := NewTable("pk_test")
	table.AttributesDef = map[string]string{"id": "S"}
	table.KeySchema = keySchema{"id", "", false}

	err := table.ValidatePrimaryKeyMap(map[string]*types.Item{})
	c.Error(err)
	c.Contains(err.Error(), "invalid")

	err = table.ValidatePrimaryKeyMap(map[string]*types.Item{"id": {S: aws.String("1")}})
	c.NoError(err)
}

func TestGSIUpdateMovesSecondaryIndexKey(t *testing.T) {
	c := require.New(t)

	table := NewTable("gsi_move")
	table.AttributesDef = map[string]string{"id": "S", "seg": "S"}
	table.KeySchema = keySchema{"id", "", false}
	table.LangInterpreter = interpreter.Language{}

	idxName := "by_seg"
	allStr := "ALL"

	err := table.AddGlobalIndexes([]*types.GlobalSecondaryIndex{{
		ProvisionedThroughput: &types.ProvisionedThroughput{
			ReadCapacityUnits:  1,
			WriteCapacityUnits: 1,
		},
		IndexName: &idxName,
		KeySchema: []*types.KeySchemaElement{
			{AttributeName: "seg", KeyType: "HASH"},
		},
		Projection: &types.Projection{ProjectionType: &allStr},
	}})
	c.NoError(err)

	idVal := "1"
	aVal := "alpha"
	bVal := "beta"

	_, err = table.Put(&types.PutItemInput{
		TableName: aws.String(table.Name),
		Item: map[string]*types.Item{
			"id":  {S: &idVal},
			"seg": {S: &aVal},
		},
	})
	c.NoError(err)

	queryBySeg := func(seg string) []map[string]*types.Item {
		t.Helper()

		items, _, qerr := table.SearchData(QueryInput{
			Index:                  idxName,
			KeyConditionExpression: "#s = :s",
			Aliases:                map[string]string{"#s": "seg"},
			ExpressionAttributeValues: map[string]*types.Item{
				":s": {S: &seg},
			},
			ScanIndexForward: true,
		})
		c.NoError(qerr)

		return items
	}

	matched := queryBySeg(aVal)
	c.Len(matched, 1)
	c.Equal(idVal, *matched[0]["id"].S)
	c.Equal(aVal, *matched[0]["seg"].S)
	c.Empty(queryBySeg(bVal))

	_, err = table.Update(&types.UpdateItemInput{
		TableName: aws.String(table.Name),
		Key: map[string]*types.Item{
			"id": {S: &idVal},
		},
		UpdateExpression: "SET seg = :b",
		ExpressionAttributeValues: map[string]*types.Item{
			":b": {S: &bVal},
		},
	})
	c.NoError(err)

	matched = queryBySeg(bVal)
	c.Len(matched, 1)
	c.Equal(idVal, *matched[0]["id"].S)
	c.Equal(bVal, *matched[0]["seg"].S)
	c.Empty(queryBySeg(aVal))
}

func TestMatchKey_errorsAndFilterBranches(t *testing.T) {
	c := require.New(t)

	table, err := createPokemonTable()
	c.NoError(err)

	item := createPokemon(pokemon{
		ID:   "001",
		Type: "grass",
		Name: "Bulbasaur",
	})

	t.Run("KeyConditionExpression_syntax_error", func(t *testing.T) {
		t.Parallel()

		req := require.New(t)

		_, _, err := table.matchKey(QueryInput{
			KeyConditionExpression: ")))",
			ExpressionAttributeValues: map[string]*types.Item{
				":id": {S: new("001")},
			},
		}, item)
		req.Error(err)
	})

	t.Run("FilterExpression_error", func(t *testing.T) {
		t.Parallel()

		req := require.New(t)

		_, _, err := table.matchKey(QueryInput{
			KeyConditionExpression: "#id = :id",
			FilterExpression:       ")))",
			Aliases: map[string]string{
				"#id": "id",
			},
			ExpressionAttributeValues: map[string]*types.Item{
				":id": {S: new("001")},
			},
		}, item)
		req.Error(err)
	})

	t.Run("ConditionExpression_error", func(t *testing.T) {
		t.Parallel()

		req := require.New(t)

		_, _, err := table.matchKey(QueryInput{
			ConditionExpression: aws.String(")))"),
			ExpressionAttributeValues: map[string]*types.Item{
				":id": {S: new("001")},
			},
		}, item)
		req.Error(err)
	})

	t.Run("Filter_skipped_when_key_unmatched", func(t *testing.T) {
		t.Parallel()

		req := require.New(t)

		exprType, matched, err := table.matchKey(QueryInput{
			KeyConditionExpression: "#id = :id",
			FilterExpression:       "#id = :id",
			Aliases: map[string]string{
				"#id": "id",
			},
			ExpressionAttributeValues: map[string]*types.Item{
				":id": {S: new("999")},
			},
		}, item)
		req.NoError(err)
		req.False(matched)
		req.Equal(interpreter.ExpressionTypeFilter, exprType)
	})
}

func TestSearchData_projectionExpressionError(t *testing.T) {
	c := require.New(t)

	table := NewTable("proj_err")
	table.AttributesDef = map[string]string{"id": "S"}
	table.KeySchema = keySchema{"id", "", false}
	table.LangInterpreter = interpreter.Language{}

	_, err := table.Put(&types.PutItemInput{
		TableName: aws.String("proj_err"),
		Item: map[string]*types.Item{
			"id": {S: aws.String("1")},
		},
	})
	c.NoError(err)

	_, _, err = table.SearchData(QueryInput{
		Scan:                 true,
		ProjectionExpression: "@@@",
	})
	c.Error(err)
}

func TestDelete_conditionalCheckFailedAndExpressionValues(t *testing.T) {
	c := require.New(t)

	table, err := createPokemonTable()
	c.NoError(err)

	item := createPokemon(pokemon{
		ID:   "001",
		Type: "grass",
		Name: "Bulbasaur",
	})

	_, err = table.Put(&types.PutItemInput{
		Item:      item,
		TableName: aws.String(table.Name),
	})
	c.NoError(err)

	t.Run("duplicate_set_values_returns_validation_exception", func(t *testing.T) {
		t.Parallel()

		req := require.New(t)

		dupA, dupB := "x", "x"
		_, derr := table.Delete(&types.DeleteItemInput{
			TableName: aws.String(table.Name),
			Key:       primaryKeyFromPokemonItem(item),
			ExpressionAttributeValues: map[string]*types.Item{
				":bad": {SS: []*string{&dupA, &dupB}},
			},
		})
		req.Error(derr)

		var apiErr types.Error
		req.True(errors.As(derr, &apiErr))
		req.Equal("ValidationException", apiErr.Code())
	})

	t.Run("failing_condition_returns_conditional_check_failed", func(t *testing.T) {
		t.Parallel()

		req := require.New(t)

		cond := "attribute_exists(nonexistent)"
		_, derr := table.Delete(&types.DeleteItemInput{
			TableName:                 aws.String(table.Name),
			Key:                       primaryKeyFromPokemonItem(item),
			ConditionExpression:       &cond,
			ExpressionAttributeValues: map[string]*types.Item{},
		})

		var checkErr *types.ConditionalCheckFailedException
		req.True(errors.As(derr, &checkErr))
	})

	t.Run("delete_missing_item_succeeds", func(t *testing.T) {
		t.Parallel()

		req := require.New(t)

		_, derr := table.Delete(&types.DeleteItemInput{
			TableName: aws.String(table.Name),
			Key: map[string]*types.Item{
				"id":   {S: aws.String("missing")},
				"name": {S: aws.String("nobody")},
			},
		})
		req.NoError(derr)
	})
}

func TestSetAttributeDefinition(t *testing.T) {
	c := require.New(t)

	newTable, err := createPokemonTable()
	c.NoError(err)

	newAttributesDef := []*types.AttributeDefinition{
		{
			AttributeName: new("name"),
			AttributeType: new("type"),
		},
	}

	newTable.SetAttributeDefinition(newAttributesDef)
	c.Equal(types.StringValue(newAttributesDef[0].AttributeType), newTable.AttributesDef["name"])
}

func TestFetchQueryData(t *testing.T) {
	c := require.New(t)

	newTable, err := createPokemonTable()
	c.NoError(err)

	item := createPokemon(pokemon{
		ID:   "001",
		Type: "grass",
		Name: "Bulbasaur",
	})
	input := &types.PutItemInput{
		Item:      item,
		TableName: &newTable.Name,
	}
	_, err = newTable.Put(input)
	c.NoError(err)

	item = createPokemon(pokemon{
		ID:   "002",
		Type: "grass",
		Name: "Ivysaur",
	})
	input.Item = item
	_, err = newTable.Put(input)
	c.NoError(err)

	item = createPokemon(pokemon{
		ID:   "003",
		Type: "grass",
		Name: "Venusaur",
	})
	input.Item = item
	_, err = newTable.Put(input)
	c.NoError(err)

	item = createPokemon(pokemon{
		ID:   "005",
		Type: "grass",
		Name: "Oddish",
	})
	input.Item = item
	_, err = newTable.Put(input)
	c.NoError(err)

	item = createPokemon(pokemon{
		ID:   "004",
		Type: "grass",
		Name: "Gloom",
	})
	input.Item = item
	_, err = newTable.Put(input)
	c.NoError(err)

	item = createPokemon(pokemon{
		ID:   "006",
		Type: "grass",
		Name: "Bellsprout",
	})
	input.Item = item
	_, err = newTable.Put(input)
	c.NoError(err)
	c.Len(newTable.Data, 6)

	index := newTable.Indexes["invert"]
	keys := newTable.keysToSearch(QueryInput{Index: "invert"}, index, index.keySchema)

	// Keys are in ascending order; a descending search walks them from the end.
	c.NotZero(keys.n)
	c.Equal("001.Bulbasaur", keys.pk(0))
	c.Equal("006.Bellsprout", keys.pk(keys.n-1))
}

func TestSearchDataWithProjectionExpression(t *testing.T) {
	c := require.New(t)

	table := NewTable("proj")
	table.AttributesDef = map[string]string{"id": "S", "foo": "S"}
	table.KeySchema = keySchema{"id", "", false}
	table.LangInterpreter = interpreter.Language{}

	_, err := table.Put(&types.PutItemInput{
		TableName: aws.String("proj"),
		Item: map[string]*types.Item{
			"id":  {S: aws.String("1")},
			"foo": {S: aws.String("bar")},
		},
	})
	c.NoError(err)

	items, lastKey, err := table.SearchData(QueryInput{
		Scan:                 true,
		ProjectionExpression: "#f",
		Aliases:              map[string]string{"#f": "foo"},
		Limit:                1,
	})

	c.NoError(err)
	c.Len(items, 1)
	c.Len(items[0], 1)
	c.Equal("bar", *items[0]["foo"].S)
	c.Contains(lastKey, "id")
}

func TestSearchData_secondaryIndexProjectionKeysOnlyAndInclude(t *testing.T) {
	c := require.New(t)

	table := NewTable("idxproj")
	table.BillingMode = aws.String("PAY_PER_REQUEST")
	table.AttributesDef = map[string]string{"id": "S", "gsi_pk": "S", "title": "S", "extra": "S"}
	table.LangInterpreter = interpreter.Language{}

	err := table.CreatePrimaryIndex(&types.CreateTableInput{
		KeySchema: []*types.KeySchemaElement{{AttributeName: "id", KeyType: "HASH"}},
	})
	c.NoError(err)

	keysOnly := "keys-only"
	includeIdx := "include-idx"

	err = table.AddGlobalIndexes([]*types.GlobalSecondaryIndex{
		{
			IndexName: &keysOnly,
			KeySchema: []*types.KeySchemaElement{{AttributeName: "gsi_pk", KeyType: "HASH"}},
			Projection: &types.Projection{
				ProjectionType: aws.String("KEYS_ONLY"),
			},
		},
		{
			IndexName: &includeIdx,
			KeySchema: []*types.KeySchemaElement{{AttributeName: "gsi_pk", KeyType: "HASH"}},
			Projection: &types.Projection{
				ProjectionType:   aws.String("INCLUDE"),
				NonKeyAttributes: []*string{aws.String("title")},
			},
		},
	})
	c.NoError(err)

	_, err = table.Put(&types.PutItemInput{
		TableName: aws.String("idxproj"),
		Item: map[string]*types.Item{
			"id":     {S: aws.String("1")},
			"gsi_pk": {S: aws.String("g1")},
			"title":  {S: aws.String("t1")},
			"extra":  {S: aws.String("x")},
		},
	})
	c.NoError(err)

	items, _, err := table.SearchData(QueryInput{
		Index:                  keysOnly,
		KeyConditionExpression: "gsi_pk = :g",
		ExpressionAttributeValues: map[string]*types.Item{
			":g": {S: aws.String("g1")},
		},
		Limit:            10,
		ScanIndexForward: true,
	})
	c.NoError(err)
	c.Len(items, 1)
	c.Contains(items[0], "id")
	c.Contains(items[0], "gsi_pk")
	c.NotContains(items[0], "title")
	c.NotContains(items[0], "extra")

	items2, _, err := table.SearchData(QueryInput{
		Index:                  includeIdx,
		KeyConditionExpression: "gsi_pk = :g",
		ExpressionAttributeValues: map[string]*types.Item{
			":g": {S: aws.String("g1")},
		},
		Limit:            10,
		ScanIndexForward: true,
	})
	c.NoError(err)
	c.Len(items2, 1)
	c.Contains(items2[0], "title")
	c.NotContains(items2[0], "extra")
}

func TestSnapshot(t *testing.T) {
	c := require.New(t)

	table, err := createPokemonTable()
	c.NoError(err)

	item := createPokemon(pokemon{ID: "001", Type: "grass", Name: "Bulbasaur"})
	_, err = table.Put(&types.PutItemInput{
		TableName: aws.String(tableName),
		Item:      item,
	})
	c.NoError(err)

	snap := table.Snapshot()

	_, err = table.Delete(&types.DeleteItemInput{
		TableName: aws.String(tableName),
		Key: map[string]*types.Item{
			"id":   {S: aws.String("001")},
			"name": {S: aws.String("Bulbasaur")},
		},
	})
	c.NoError(err)

	c.Empty(table.Data)
	c.NotEmpty(snap)
}

func TestRestore(t *testing.T) {
	c := require.New(t)

	table, err := createPokemonTable()
	c.NoError(err)

	itemA := createPokemon(pokemon{ID: "001", Type: "grass", Name: "Bulbasaur"})
	_, err = table.Put(&types.PutItemInput{
		TableName: aws.String(tableName),
		Item:      itemA,
	})
	c.NoError(err)

	snap := table.Snapshot()

	itemB := createPokemon(pokemon{ID: "004", Type: "fire", Name: "Charmander"})
	_, err = table.Put(&types.PutItemInput{
		TableName: aws.String(tableName),
		Item:      itemB,
	})
	c.NoError(err)

	c.Len(table.Data, 2)

	table.Restore(snap)

	c.Len(table.Data, 1)
	c.Contains(table.Data, "001.Bulbasaur")
	c.NotContains(table.Data, "004.Charmander")
}
