package server

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/pickem/api/domain"
	"github.com/pickem/api/dynamo"
	"github.com/pickem/api/dynamo/table"
)

// DefaultMaxDynamoDBCalls is the most DynamoDB calls one request may plan (FieldCosts),
// sized for the largest counts an event, a season or a league can have: the frontend's
// screens plan at most 3 (the event card with the caller's picks and their rank, the
// profile with its ranks, submitPrediction) beside the ranked lists; a leaderboard or
// standings page is one Query per shard, at most table.MaxShards in parallel, and a
// league's standings 1 + leagueBatches. The largest operation is the admin's updateEvent
// renaming an event of MaxShards shards with predictions, 4 + 2×dynamo.MaxLockCopyBatches
// + MaxShards (its lock copies read and synced, 100 a call, then one Query per shard to
// find the predictions' name copies); plus one. Every screen is one request, and a client
// that wants more sends more requests, each paying API Gateway's throttle; two ranked pages
// of events of many shards do not fit in one request.
const DefaultMaxDynamoDBCalls = 5 + 2*dynamo.MaxLockCopyBatches + table.MaxShards

// plannedCallsStat is the operation stats key of the calls the budget planned.
const plannedCallsStat = "PickemPlannedCalls"

// PlannedCalls returns the DynamoDB calls the budget planned for ctx's operation, or -1.
func PlannedCalls(ctx context.Context) int {
	if !graphql.HasOperationContext(ctx) {
		return -1
	}
	n, ok := graphql.GetOperationContext(ctx).Stats.GetExtension(plannedCallsStat).(int)
	if !ok {
		return -1
	}
	return n
}

// wholeBudget marks a field that takes a request's whole budget: it must be alone.
const wholeBudget = -1

// FieldCost is what resolving one field costs in DynamoDB calls. The table FieldCosts is
// the cost model of the budget and the table of costs in docs/api.md (TestDocsFieldCosts keeps
// them equal).
type FieldCost struct {
	Field string // "Type.field"
	Calls int    // planned calls; wholeBudget for a field that needs a request to itself
	// FreeUnder names the root field whose own read serves this field's first page
	// (no `after`, the `first` of the first such selection) for FreeCalls more calls.
	FreeUnder []string
	FreeCalls int
	// ZeroUnder names parents under which the field never reads (the resolver refuses it,
	// as on list rows).
	ZeroUnder []string
	Note      string
}

// FieldCosts lists every field that calls DynamoDB. Fields not listed cost nothing.
// Conflict retries (optimistic concurrency) and the per-100-items transactions of renames
// and scoring are not planned: they are bounded by the store (a few attempts) and, for
// scoring, by its own budget.
var FieldCosts = []FieldCost{
	{Field: "Query.events", Calls: 1, Note: "1 Query (main `PK = EVENT`)"},
	{Field: "Query.event", Calls: 1, Note: "1 Query (GSI `EVENT#<id>`): the card, none when the read cache has it; when the index lags behind a card change, GetItem ∥ Query of the table more"},
	{Field: "Query.prediction", Calls: 2, Note: "1 GetItem; with `rank` selected, 1 consistent BatchGetItem of the prediction and its event's rank table instead (the table from the read cache when it has it; for an event dated after today, the GetItem and then the table once the prediction is seen scored); another player's unscored prediction: 1 consistent GetItem of the event's row instead (has it locked?)"},
	{Field: "Query.standings", Calls: 1 + table.MaxShards, Note: "a season of one shard: 1 Query (GSI `STANDINGS#<season>`: the season's item, then the page); of more: 1 Query per shard, in parallel (`STANDINGS#<season>#<ss>`), merged, and the first time a process reads the season, the season's Query before them; the first page none when the read cache has it"},
	{Field: "Query.user", Calls: 3, Note: "without `standings` or `predictions` selected, 1 GetItem of the profile item; otherwise 1 Query (main `USER#<id>`): profile, seasons and the first predictions page; another player's profile skips predictions of events still open (1 Query more per `first` + 6 of them); ranks: 1 BatchGetItem per 100 rank tables (the page's scored events, the seasons) not in the read cache, and on another player's profile, in the same consistent BatchGetItem, the rows of the unscored predictions' events dated today or later (have they locked?)"},
	{Field: "Query.me", Calls: 3, Note: "as `user`; none when signed out"},
	{Field: "Event.leaderboard", Calls: 1 + table.MaxShards, FreeUnder: []string{"Query.event"}, FreeCalls: table.MaxShards, ZeroUnder: []string{"EventEdge.node", "Prediction.event"},
		Note: "an event of one shard: under `event(id)` none (the card's Query reads the top of the leaderboard with it: GSI `EVENT#<id>` from `CARD#` to the last score), after a cursor 1 Query; of more: 1 Query per shard, all at once (`EVENT#<id>#<ss>`), merged, the rows without their picks unless `picks` is selected (same capacity, a fraction of the bytes), under `event(id)` at the same time as the card's Query once the process knows the event; the first page none when the read cache has it, or has the card of an event without a leaderboard; the same first page again is free; refused on `events` rows and on a prediction's event"},
	{Field: "User.predictions", Calls: 2, FreeUnder: []string{"Query.user", "Query.me"}, ZeroUnder: rowPlayers,
		Note: "free in `user`/`me`'s own reads; with `after`, another `first` or on a mutation's result, 1 Query and the ranks' BatchGetItem (with the events' rows, as `user`); refused on a player on a row (a prediction's, a standing's, a league's owner)"},
	{Field: "Mutation.register", Calls: 7, Note: "GetItem, PutItem or UpdateItem, Query; a rename of a player who has played: 1 TransactWriteItems per 100 predictions and standings, and a Query that finds none left; of a player in leagues: 1 BatchGetItem (the leagues they own) and 1 TransactWriteItems (their league rows) more"},
	{Field: "Mutation.submitPrediction", Calls: 3, Note: "Query ∥ BatchGetItem (profile and previous prediction), TransactWriteItems (on the player's lock copy)"},
	{Field: "Mutation.createEvent", Calls: 2 + dynamo.MaxLockCopyBatches, Note: "PutItem of its season's item (unless the process knows it: a season's first event gives it its shard count), TransactWriteItems (the event, its card and, when they fit, its lock copies: one at one shard); otherwise TransactWriteItems of its lock copies, 100 a transaction (256 copies at 16 shards: 3)"},
	{Field: "Mutation.updateEvent", Calls: table.MaxShards + 4 + 2*dynamo.MaxLockCopyBatches, Note: "GetItem ∥ Query, BatchGetItems of the lock copies (100 keys each), TransactWriteItems, TransactWriteItems of the lock copies (100 each); a new name or start: 1 Query per shard and 1 TransactWriteItems per 99 predictions"},
	{Field: "Mutation.addMatch", Calls: 3 + 2*dynamo.MaxLockCopyBatches, Note: "GetItem ∥ Query, BatchGetItems of the lock copies (100 keys each), TransactWriteItems, TransactWriteItems of the lock copies (100 each)"},
	{Field: "Mutation.updateMatch", Calls: 3 + 2*dynamo.MaxLockCopyBatches, Note: "as `addMatch`"},
	{Field: "Mutation.removeMatch", Calls: 3 + 2*dynamo.MaxLockCopyBatches, Note: "as `addMatch`"},
	{Field: "Mutation.reorderMatches", Calls: 3 + 2*dynamo.MaxLockCopyBatches, Note: "as `addMatch`"},
	{Field: "Mutation.setResult", Calls: 3 + 2*dynamo.MaxLockCopyBatches, Note: "as `addMatch`"},
	{Field: "Mutation.setTiebreakerAnswer", Calls: 3 + 2*dynamo.MaxLockCopyBatches, Note: "as `addMatch`"},
	{Field: "Query.league", Calls: 1, Note: "1 BatchGetItem (consistent: the league and the caller's member row); with `standings` selected, 1 consistent Query of the league's partition instead (the league and its member rows)"},
	{Field: "Query.leagueByInvite", Calls: 1, Note: "1 GetItem (consistent: the code's item, which carries what the preview shows)"},
	{Field: "User.leagues", Calls: 2, ZeroUnder: rowPlayers, Note: "Query (the player's memberships, in their partition), then 1 BatchGetItem of their leagues (at most 20); refused on a player on a row"},
	{Field: "League.standings", Calls: 1 + leagueBatches, FreeUnder: []string{"Query.league"}, FreeCalls: leagueBatches, ZeroUnder: []string{"User.leagues"},
		Note: "the members' season standings by key: BatchGetItems of 100 keys, all at once, eventually consistent (2 at 101 to 200 members, 10 at 1,000); under `league(id)` the Query that read the league read the member rows, elsewhere a Query of them first; refused on `User.leagues` rows"},
	{Field: "Mutation.createLeague", Calls: 2, Note: "BatchGetItem (the caller's profile, for their name), TransactWriteItems"},
	{Field: "Mutation.joinLeague", Calls: 2, Note: "BatchGetItem (the code and the caller's profile), TransactWriteItems"},
	{Field: "Mutation.leaveLeague", Calls: 3, Note: "BatchGetItem (the league and the caller's member row), TransactWriteItems; an owner leaving others behind: a Query of the member rows between them"},
	{Field: "Mutation.rotateInviteCode", Calls: 2, Note: "BatchGetItem (the league), TransactWriteItems"},
	{Field: "Mutation.deleteMe", Calls: wholeBudget, Note: "the whole budget (alone in its request): a leave per league, then a Query of the player's partition and per prediction a GetItem (its checkpoint, when scored) and a TransactWriteItems, per standing a TransactWriteItems, a rank-table rebuild per scored event"},
	{Field: "Mutation.renameLeague", Calls: 2, Note: "BatchGetItem (the league, consistent), TransactWriteItems (the league, its invite code, the audit entry)"},
	{Field: "Mutation.deleteLeague", Calls: wholeBudget, Note: "the whole budget (alone in its request): a Query of the league's partition before each step; a TransactWriteItems closing it, one per 33 members, one deleting it with the audit entry"},
	{Field: "Mutation.renamePlayer", Calls: 7, Note: "as `register`: GetItem, TransactWriteItems (the profile and the audit entry), Query; 1 TransactWriteItems per 100 predictions and standings and a Query that finds none left; of a player in leagues: 1 BatchGetItem and 1 TransactWriteItems more"},
	{Field: "Query.auditLog", Calls: 1, Note: "1 consistent Query (main `AUDIT#<event id>`, the event's audit log alone)"},
	{Field: "Mutation.scoreEvent", Calls: wholeBudget, Note: "the whole budget (alone in its request): reads and writes grow with the predictions, in pages of 48 players per shard"},
}

// rowPlayers are the fields whose User is a player as a row carries them (id and name):
// their reading fields are refused there, before any read.
var rowPlayers = []string{"Prediction.user", "Standing.user", "League.owner"}

// leagueBatches is how many BatchGetItems a league's standings take at most: one per 100
// members of the largest league.
const leagueBatches = (domain.MaxLeagueMembers + 99) / 100

var fieldCosts = func() map[string]FieldCost {
	m := make(map[string]FieldCost, len(FieldCosts))
	for _, c := range FieldCosts {
		m[c.Field] = c
	}
	return m
}()

// listBound is what a field under a list is multiplied by: no list the API returns is
// longer than a page (matches, teams and seasons are shorter).
const listBound = domain.MaxPageSize

// plannedCalls returns the DynamoDB calls opCtx's operation plans, as the resolvers
// will make them: fields are collected as the executor collects them (fragments,
// @skip/@include, merged aliases), each field of FieldCosts adds its calls, and a field
// under a list counts once per possible row. It stops counting past limit.
func plannedCalls(opCtx *graphql.OperationContext, limit int) int {
	op := opCtx.Operation
	root := "Query"
	if op.Operation == ast.Mutation {
		root = "Mutation"
	}
	return collectCalls(opCtx, op.SelectionSet, root, "", 1, limit)
}

func collectCalls(opCtx *graphql.OperationContext, sel ast.SelectionSet, typ, parent string, mult, limit int) int {
	total := 0
	fields := graphql.CollectFields(opCtx, sel, []string{typ})
	// The first page of a child list that the parent's own read serves: the `first` of
	// the first selection of it, when that one has no `after`.
	freeFirst := map[string]int{}
	seen := map[string]bool{}
	charged := map[string]bool{} // the parent's read of the first page is planned once
	for _, f := range fields {
		if f.Definition == nil || f.Definition.Type == nil {
			continue
		}
		key := typ + "." + f.Name
		cost, ok := fieldCosts[key]
		if ok {
			calls := cost.Calls
			if calls == wholeBudget {
				calls = limit
			}
			if slices.Contains(cost.ZeroUnder, parent) {
				calls = 0
			}
			if slices.Contains(cost.FreeUnder, parent) {
				first, hasAfter := pageArgs(f, opCtx.Variables)
				if !seen[key] && !hasAfter {
					freeFirst[key] = first
				}
				seen[key] = true
				if n, free := freeFirst[key]; free && n == first && !hasAfter {
					calls = 0
					if !charged[key] {
						calls, charged[key] = cost.FreeCalls, true
					}
				}
			}
			total = addCapped(total, mulCapped(calls, mult))
		}
		if len(f.Selections) > 0 {
			childMult := mult
			if f.Definition.Type.Elem != nil {
				childMult = mulCapped(mult, listBound)
			}
			total = addCapped(total, collectCalls(opCtx, f.Selections, f.Definition.Type.Name(), key, childMult, limit))
		}
		if total > limit {
			return total
		}
	}
	return total
}

// pageArgs returns a list field's `first` (-1 when absent or not a number) and whether it
// has an `after`.
func pageArgs(f graphql.CollectedField, vars map[string]any) (first int, hasAfter bool) {
	args := f.ArgumentMap(vars)
	first = -1
	if n, ok := asInt64(args["first"]); ok {
		first = int(max(min(n, math.MaxInt32), math.MinInt32))
	}
	a, ok := args["after"]
	return first, ok && a != nil
}

func asInt64(v any) (int64, bool) {
	switch n := v.(type) {
	case int:
		return int64(n), true
	case int32:
		return int64(n), true
	case int64:
		return n, true
	case float64:
		return int64(n), n == math.Trunc(n) && math.Abs(n) < 1<<62
	case json.Number:
		i, err := n.Int64()
		return i, err == nil
	}
	return 0, false
}

func addCapped(a, b int) int { return int(min(int64(a)+int64(b), math.MaxInt32)) }

func mulCapped(a, b int) int { return int(min(int64(a)*int64(b), math.MaxInt32)) }

// limitError is the refusal of a request over one of the limits: COMPLEXITY_LIMIT_EXCEEDED
// with the limit's name, its maximum and what the request would need (when known).
func limitError(limit string, maxValue, got int, format string, args ...any) *gqlerror.Error {
	ext := map[string]any{"code": CodeLimitExceeded, "limit": limit, "max": maxValue}
	if got >= 0 {
		ext["requested"] = got
	}
	return &gqlerror.Error{Message: fmt.Sprintf(format, args...), Extensions: ext}
}
