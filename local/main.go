// Command local serves the Pick'Em API over plain HTTP. With no DYNAMODB_ENDPOINT it runs
// the embedded in-memory engine and loads demo data, so `go run ./local` is all a developer
// needs.
package main

import (
	"context"
	"crypto/rand"
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

	"github.com/pickem/api/auth"
	"github.com/pickem/api/config"
	"github.com/pickem/api/demo"
	"github.com/pickem/api/dynamo"
	"github.com/pickem/api/internal/embedded"
	"github.com/pickem/api/server"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "local:", err)
		os.Exit(1)
	}
}

// run starts the server and blocks until ctx ends. It writes the address and demo tokens
// to out.
func run(ctx context.Context, args []string, getenv func(string) string, out io.Writer) error {
	cfg, err := config.Load(config.Local, getenv)
	if err != nil {
		return err
	}
	fs := flag.NewFlagSet("local", flag.ContinueOnError)
	fs.StringVar(&cfg.Addr, "addr", cfg.Addr, "listen address (env PICKEM_ADDR)")
	seed := fs.Bool("seed", cfg.DynamoDBEndpoint == "", "load demo data (default: on for the embedded engine, off with DYNAMODB_ENDPOINT)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: cfg.LogLevel}))

	endpoint := cfg.DynamoDBEndpoint
	if endpoint == "" {
		eng, err := embedded.Start()
		if err != nil {
			return err
		}
		defer func() { _ = eng.Stop(context.Background()) }()
		endpoint = eng.Endpoint
		log.Info("embedded DynamoDB engine (in memory)", "endpoint", endpoint)
	}
	client, err := dynamo.NewClient(ctx, endpoint)
	if err != nil {
		return err
	}
	store := dynamo.New(client, cfg.TableName)
	if err := store.EnsureTable(ctx); err != nil {
		return err
	}
	if *seed {
		if err := demo.Load(ctx, client, cfg.TableName, time.Now()); err != nil {
			return err
		}
		log.Info("demo data loaded", "table", cfg.TableName)
	}

	if cfg.DevSecret == "" {
		b := make([]byte, 32)
		_, _ = rand.Read(b)
		cfg.DevSecret = hex.EncodeToString(b)
		log.Info("PICKEM_DEV_SECRET not set: using a random secret for this run")
	}
	verifier, err := cfg.Verifier(ctx)
	if err != nil {
		return err
	}
	h, err := server.New(server.Config{
		Store: store, Verifier: verifier, AllowedOrigins: cfg.AllowedOrigins,
		Playground: cfg.Playground, CostExtension: cfg.CostExtension, Logger: log,
	})
	if err != nil {
		return err
	}

	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second, WriteTimeout: 60 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()

	base := "http://" + ln.Addr().String()
	playerTok, _ := auth.MintHS256([]byte(cfg.DevSecret), demo.Player, 24*time.Hour)
	adminTok, _ := auth.MintHS256([]byte(cfg.DevSecret), demo.Admin, 24*time.Hour)
	fmt.Fprintf(out, "Pick'Em API listening on %s\n", base)
	fmt.Fprintf(out, "  GraphQL:    POST %s/graphql\n", base)
	if cfg.Playground {
		fmt.Fprintf(out, "  Playground: %s/\n", base)
	}
	fmt.Fprintf(out, "  Health:     %s/healthz\n", base)
	fmt.Fprintf(out, "Dev tokens (24 h), paste as HTTP header:\n")
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
	return nil
}
