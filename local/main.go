// Command local serves the Pick'Em API over plain HTTP for development. With no
// DYNAMODB_ENDPOINT it runs the embedded engine and loads demo data, so `go run ./local`
// is all a developer needs. Its state lives in the -data directory (default .pickem): the
// dev secret (so printed tokens stay valid across restarts) and, with the embedded engine,
// a snapshot of the table (so the data does too).
package main

import (
	"context"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/pickem/api/auth"
	"github.com/pickem/api/config"
	"github.com/pickem/api/demo"
	"github.com/pickem/api/dynamo"
	"github.com/pickem/api/internal/embedded"
	"github.com/pickem/api/internal/localdata"
	"github.com/pickem/api/internal/playground"
	"github.com/pickem/api/server"
)

// snapshotEvery is how often the embedded engine's table is saved after a change.
const snapshotEvery = 2 * time.Second

// tokenTTL is the lifetime of the tokens the server prints.
const tokenTTL = 30 * 24 * time.Hour

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "local:", err)
		os.Exit(1)
	}
}

// run starts the server and blocks until ctx ends. It writes the address and the demo
// tokens to out, logs to logw.
func run(ctx context.Context, args []string, getenv func(string) string, out, logw io.Writer) error {
	// Flags first, so that -h works (exit 0) whatever the environment holds; their defaults
	// read the two variables they stand for directly.
	embeddedEngine := getenv("DYNAMODB_ENDPOINT") == ""
	fs := flag.NewFlagSet("local", flag.ContinueOnError)
	fs.SetOutput(logw)
	addr := fs.String("addr", "", "listen address (default $PICKEM_ADDR, else 127.0.0.1:8080)")
	dataDir := fs.String("data", localdata.DefaultDir, "state directory: the dev secret, other local keys and, with the embedded engine, its data")
	fresh := fs.Bool("fresh", false, "start over: discard the embedded engine's saved data (keys are kept; delete the -data directory to drop them too)")
	seed := fs.Bool("seed", embeddedEngine, "load demo data into an empty table (on with the embedded engine, off with DYNAMODB_ENDPOINT)")
	fs.Usage = func() {
		fmt.Fprintf(logw, "usage: go run ./local [flags]\n\nServes the Pick'Em API on the embedded engine (or DYNAMODB_ENDPOINT) with a playground. Environment: see README.md.\n\nflags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q (flags only; see -h)", fs.Arg(0))
	}
	cfg, err := config.Load(config.Local, getenv)
	if err != nil {
		return err
	}
	if *addr != "" {
		cfg.Addr = *addr
	}
	log := slog.New(slog.NewTextHandler(logw, &slog.HandlerOptions{Level: cfg.LogLevel}))

	dir, err := localdata.Open(*dataDir)
	if err != nil {
		return err
	}
	if cfg.DevSecret == "" {
		secret, created, err := dir.Key(localdata.DevSecretFile)
		if err != nil {
			return err
		}
		cfg.DevSecret = secret
		if created {
			log.Info("dev secret created", "file", dir.Path(localdata.DevSecretFile))
		} else {
			log.Info("dev secret loaded", "file", dir.Path(localdata.DevSecretFile))
		}
	} else {
		log.Info("dev secret from PICKEM_DEV_SECRET")
	}

	endpoint := cfg.DynamoDBEndpoint
	var eng *embedded.Engine
	if embeddedEngine {
		release, err := dir.Lock()
		if err != nil {
			return err
		}
		defer release()
		if eng, err = embedded.Start(); err != nil {
			return err
		}
		defer func() { _ = eng.Stop(context.Background()) }()
		endpoint = eng.Endpoint
	} else if *fresh {
		log.Warn("-fresh ignored: with DYNAMODB_ENDPOINT the data lives in that engine")
	}
	// Listen before loading or seeding anything, so that a taken port is said at once.
	ln, err := net.Listen("tcp", cfg.Addr)
	if errors.Is(err, syscall.EADDRINUSE) {
		return fmt.Errorf("%w: is another server running there? -addr or PICKEM_ADDR picks another address", err)
	}
	if err != nil {
		return err
	}
	defer ln.Close() // Serve closes it too; this covers the returns before Serve
	client, err := dynamo.NewClient(ctx, endpoint)
	if err != nil {
		return err
	}
	if cfg.TrustedDocuments != "" {
		log.Warn("PICKEM_TRUSTED_DOCUMENTS ignored: the local server runs any document")
	}
	if len(cfg.CursorKeys) == 0 {
		// Cursors stay valid across restarts, like the data they point into.
		key, _, err := dir.Key(cursorKeyFile)
		if err != nil {
			return err
		}
		b, err := hex.DecodeString(key)
		if err != nil || len(b) < config.MinCursorKeyLen {
			return fmt.Errorf("local: %s is not a key of %d hex bytes: delete it to get a new one", dir.Path(cursorKeyFile), config.MinCursorKeyLen)
		}
		cfg.CursorKeys = [][]byte{b}
	}
	store := dynamo.New(client, cfg.TableName, dynamo.WithScoringBudget(cfg.ScoringBudget),
		dynamo.WithCursorKeys(cfg.CursorKeys...), dynamo.WithReadCacheTTL(cfg.ReadCacheTTL))
	if err := store.EnsureTable(ctx); err != nil {
		return err
	}

	// With the embedded engine: load the saved table, then save it every few seconds after
	// a change and once more at shutdown (after the HTTP server stopped taking writes).
	saveDone := make(chan error, 1)
	stopSaving := func() error { return nil }
	if eng != nil {
		snapshot := dir.SnapshotPath(cfg.TableName)
		if *fresh {
			if err := os.Remove(snapshot); err != nil && !errors.Is(err, os.ErrNotExist) {
				return err
			}
			log.Info("-fresh: saved data discarded", "file", snapshot)
		}
		began := time.Now()
		n, err := eng.Load(cfg.TableName, snapshot)
		if err != nil {
			return fmt.Errorf("%w (move the file away, or start over with -fresh)", err)
		}
		log.Info("embedded DynamoDB engine (in memory, saved to disk)", "endpoint", eng.Endpoint, "items loaded", n,
			"file", snapshot, "ms", time.Since(began).Milliseconds())
		saveCtx, cancel := context.WithCancel(context.Background())
		loaded := eng.Changes() // what the file holds; the demo data written next is a change
		go func() {
			saveDone <- eng.AutoSave(saveCtx, cfg.TableName, snapshot, loaded, snapshotEvery, func(err error) {
				log.Error("saving the embedded engine's data failed; will retry", "err", err)
			})
		}()
		stopSaving = func() error { cancel(); return <-saveDone }
	}
	// Whatever happens from here, a change already made is saved before returning.
	defer func() { _ = stopSaving() }()

	if *seed {
		if err := seedDemo(ctx, client, cfg.TableName, log); err != nil {
			return err
		}
	}

	verifier, err := cfg.Verifier(ctx)
	if err != nil {
		return err
	}
	h, err := server.New(server.Config{
		Store: store, Verifier: verifier, AllowedOrigins: cfg.AllowedOrigins,
		Playground: cfg.Playground, PlaygroundHandler: playground.Handler(playground.Config{
			Title: "Pick'Em API (local)", Endpoint: "/graphql", SignIn: signInHint,
		}),
		Introspection: cfg.Introspection, CostExtension: cfg.CostExtension, Logger: log,
	})
	if err != nil {
		return err
	}

	srv := &http.Server{Handler: withDeadline(h, writeTimeout-deadlineMargin), ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second, WriteTimeout: writeTimeout}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()

	base := "http://" + ln.Addr().String()
	playerTok, _ := auth.MintHS256([]byte(cfg.DevSecret), demo.Player, tokenTTL)
	adminTok, _ := auth.MintHS256([]byte(cfg.DevSecret), demo.Admin, tokenTTL)
	fmt.Fprintf(out, "Pick'Em API listening on %s\n", base)
	fmt.Fprintf(out, "  GraphQL:    POST %s/graphql\n", base)
	if cfg.Playground {
		fmt.Fprintf(out, "  Playground: %s/\n", base)
	}
	fmt.Fprintf(out, "  Health:     %s/healthz\n", base)
	fmt.Fprintf(out, "  Data:       %s\n", dataDescription(dir, eng != nil))
	fmt.Fprintf(out, "Dev tokens (valid 30 days, across restarts), paste as HTTP header:\n")
	fmt.Fprintf(out, "  player: {\"Authorization\": \"Bearer %s\"}\n", playerTok)
	fmt.Fprintf(out, "  admin:  {\"Authorization\": \"Bearer %s\"}\n", adminTok)

	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	if err := stopSaving(); err != nil {
		return err
	}
	stopSaving = func() error { return nil }
	if eng != nil {
		log.Info("embedded engine's data saved", "file", dir.SnapshotPath(cfg.TableName))
	}
	return nil
}

// signInHint is shown above the playground's editor.
const signInHint = "Signed out you can read events, leaderboards, standings and profiles. To sign in, copy a line " +
	`{"Authorization": "Bearer …"} printed where the local server runs into Headers (bottom left): ` +
	"the player and admin tokens there last 30 days and survive restarts. More: go run ./admin token -sub ID -name NAME [-admin]."

// seedDemo loads the demo data into table if it holds nothing at all.
func seedDemo(ctx context.Context, client *dynamodb.Client, table string, log *slog.Logger) error {
	empty, err := dynamo.TableEmpty(ctx, client, table)
	if err != nil {
		return err
	}
	if !empty {
		log.Info("table not empty: demo data not loaded", "table", table)
		return nil
	}
	if err := demo.Load(ctx, client, table, time.Now()); err != nil {
		return err
	}
	log.Info("demo data loaded", "table", table)
	return nil
}

// cursorKeyFile is the file in the state directory of the key that signs page cursors
// when PICKEM_CURSOR_KEYS is not set.
const cursorKeyFile = "cursor-key"

func dataDescription(dir localdata.Dir, embeddedEngine bool) string {
	if embeddedEngine {
		return fmt.Sprintf("%s (dev secret, saved table; -fresh starts over)", dir)
	}
	return fmt.Sprintf("%s (dev secret; the table lives in DYNAMODB_ENDPOINT)", dir)
}

// The local server ends a response after writeTimeout. Each request's context ends
// deadlineMargin earlier, so long work (scoreEvent: it stops starting work
// dynamo.ScoringMargin before the deadline) answers before the connection is cut.
const (
	writeTimeout   = 60 * time.Second
	deadlineMargin = 5 * time.Second
)

// withDeadline gives every request's context a deadline d from its start.
func withDeadline(h http.Handler, d time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), d)
		defer cancel()
		h.ServeHTTP(w, r.WithContext(ctx))
	})
}
