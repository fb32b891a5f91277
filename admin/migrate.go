package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/pickem/api/dynamo"
)

// migrateCmd brings a table written in the unsharded layout (one index partition per event and
// per season) to the sharded layout (dynamo.Store.Migrate). Unlike the other commands it
// talks to DynamoDB, not to the API: -table (default $TABLE_NAME, else pickem) at
// -endpoint (default $DYNAMODB_ENDPOINT; empty: AWS, with AWS_REGION and the credentials
// in AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY / AWS_SESSION_TOKEN).
func migrateCmd(fs *flag.FlagSet) func(context.Context, *client, io.Writer) error {
	table := fs.String("table", "", "DynamoDB table (default $TABLE_NAME, else pickem)")
	endpoint := fs.String("endpoint", "", "DynamoDB endpoint, e.g. DynamoDB Local (default $DYNAMODB_ENDPOINT; empty: AWS)")
	return func(ctx context.Context, _ *client, out io.Writer) error {
		name := or(or(*table, os.Getenv("TABLE_NAME")), "pickem")
		db, err := dynamo.NewClient(ctx, or(*endpoint, os.Getenv("DYNAMODB_ENDPOINT")))
		if err != nil {
			return err
		}
		rep, err := dynamo.New(db, name).Migrate(ctx, func(format string, args ...any) {
			fmt.Fprintf(out, format+"\n", args...)
		})
		fmt.Fprintf(out, "migrated table %s: %d standings of %d seasons and %d predictions moved to their shards; %d of %d events moved to the sharded layout; %d league member rows given copies of their standings\n",
			name, rep.Standings, rep.Seasons, rep.Predictions, rep.EventsMoved, rep.Events, rep.LeagueCopies)
		if err != nil {
			return fmt.Errorf("%w (run admin migrate again: it goes on where it stopped)", err)
		}
		if rep.EventsMoved == 0 && rep.Standings == 0 && rep.LeagueCopies == 0 {
			fmt.Fprintln(out, "  (nothing to do: the table is in the current layout)")
		}
		return nil
	}
}
