// Package ddb is the store's use of the AWS SDK for DynamoDB: the client (NewClient, with
// its retries, attempt timeout and retry budget: RetryOption), the translation of what
// trying again can cure into UNAVAILABLE (NewTable's client), the calls the store makes on
// its table (Table: transactions retried while only conflicts or throttling cancel them,
// conditional writes for transactions, queries followed to their end, batched reads), the
// creation of a table (Table.Ensure), the cost of a request's calls (WithCost, CostOption)
// and the hook the scale model's recorder observes them with (WithObserver), and the read
// cache of public reads (Cache).
//
// It knows DynamoDB, not the table: keys, attribute names, conditions and items come from
// its callers (package table), and it decides nothing about the data.
package ddb
