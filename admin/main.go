// Command admin administers a running Pick'Em API over GraphQL: it creates event cards from
// YAML or JSON files, locks events, enters results, scores events, prints standings and
// audit logs, and mints development tokens.
//
//	go run ./admin [-url URL] [-token TOKEN] [-data DIR] <command> [flags]
//
// The API is at -url (env PICKEM_URL, default http://127.0.0.1:8080/graphql). Admin
// commands need an admin bearer token: -token, else env PICKEM_TOKEN, else — when -url is a
// loopback address (a local server) — one the command mints itself from the local
// server's dev secret (env PICKEM_DEV_SECRET, else the file dev-secret in -data, default
// .pickem: the same lookup as `go run ./local`). Any GraphQL error is printed as
// "admin: <code>: <message>" and exits 1; usage errors exit 2; -h exits 0. Run
// `go run ./admin help` for the commands, and see docs/operations.md ("The admin command")
// for a recorded session.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/pickem/api/auth"
	"github.com/pickem/api/internal/localdata"

	"github.com/pickem/api/operations"
)

// DefaultURL is the GraphQL endpoint of `go run ./local`.
const DefaultURL = "http://127.0.0.1:8080/graphql"

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// options are the flags every command shares. Empty means not given.
type options struct {
	url      string
	token    string
	tokenSet bool // -token was given, even empty
	data     string
}

// localAdmin is who the tokens the command mints for a local server name.
var localAdmin = auth.Identity{ID: "local-admin", Name: "Local Admin", Groups: []string{auth.AdminGroup}}

// resolve fills in what the flags left out: the URL from PICKEM_URL or DefaultURL; the
// token from PICKEM_TOKEN, or, for a local server, minted from its dev secret.
func (o *options) resolve() {
	if o.url == "" {
		o.url = or(os.Getenv("PICKEM_URL"), DefaultURL)
	}
	if o.data == "" {
		o.data = localdata.DefaultDir
	}
	if o.tokenSet {
		return
	}
	if o.token = os.Getenv("PICKEM_TOKEN"); o.token != "" || !isLoopback(o.url) {
		return
	}
	if secret, err := devSecret(o.data); err == nil {
		o.token, _ = auth.MintHS256([]byte(secret), localAdmin, time.Hour)
	}
}

// devSecret is the local server's dev secret: PICKEM_DEV_SECRET, else the file in dir.
func devSecret(dir string) (string, error) {
	if s := os.Getenv("PICKEM_DEV_SECRET"); s != "" {
		return s, nil
	}
	return localdata.ReadKey(dir, localdata.DevSecretFile)
}

// isLoopback reports whether rawURL points at this machine.
func isLoopback(rawURL string) bool {
	u, err := url.Parse(rawURL)
	if err != nil {
		return false
	}
	host := u.Hostname()
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func or(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

// command is one subcommand: flags defines its flags on fs and returns what runs it.
type command struct {
	name    string
	summary string
	flags   func(fs *flag.FlagSet) func(ctx context.Context, c *client, out io.Writer) error
}

var commands = []command{
	{"create-event", "create an event with its whole card from a YAML or JSON file", createEventCmd},
	{"card", "print an event's card with its match ids and team numbers", cardCmd},
	{"events", "list events, newest first", eventsCmd},
	{"lock", "lock an event for picks (state BROADCAST)", lockCmd},
	{"set-result", "set, correct or clear a match result", setResultCmd},
	{"tiebreaker", "set or clear the answer to an event's tie-breaker question", tiebreakerCmd},
	{"score", "score a locked event with results (all: final, SCORED; some: a live pass) until complete", scoreCmd},
	{"standings", "print a season's standings", standingsCmd},
	{"audit", "print an event's audit log (admin changes, newest first)", auditCmd},
	{"leagues", "list a player's leagues (their ids, for the moderation commands)", leaguesCmd},
	{"rename-league", "rename a league (moderation; in the log: audit -event moderation)", renameLeagueCmd},
	{"delete-league", "delete a league: its members leave it (moderation)", deleteLeagueCmd},
	{"rename-player", "rename a player's profile (moderation)", renamePlayerCmd},
	{"token", "mint a development (HS256) token", tokenCmd},
}

// usageError is a mistake in the command line (exit 2).
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

// run runs the command line args and returns the exit code: 0 on success, 1 on an API or
// network error, 2 on a usage error.
func run(args []string, stdout, stderr io.Writer) int {
	var opts options
	top := flag.NewFlagSet("admin", flag.ContinueOnError)
	top.SetOutput(stderr)
	top.Usage = func() { usage(stderr) }
	shared(top, &opts)
	if err := top.Parse(args); err != nil {
		return exitParse(err)
	}
	if top.NArg() == 0 || top.Arg(0) == "help" {
		usage(stderr)
		if top.NArg() == 0 {
			return 2
		}
		return 0
	}
	name := top.Arg(0)
	var cmd *command
	for i := range commands {
		if commands[i].name == name {
			cmd = &commands[i]
		}
	}
	if cmd == nil {
		fmt.Fprintf(stderr, "admin: unknown command %q (run `admin help`)\n", name)
		return 2
	}
	fs := flag.NewFlagSet("admin "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	shared(fs, &opts)
	exec := cmd.flags(fs)
	if err := fs.Parse(top.Args()[1:]); err != nil {
		return exitParse(err)
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "admin %s: unexpected argument %q\n", name, fs.Arg(0))
		return 2
	}

	opts.resolve()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	cl := newClient(opts.url, opts.token)
	cl.data = opts.data
	err := exec(ctx, cl, stdout)
	var ue usageError
	var ge gqlErrors
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "admin %s: %s\n", name, ue.msg)
		return 2
	case errors.As(err, &ge):
		for _, e := range ge {
			fmt.Fprintf(stderr, "admin: %s: %s\n", e.code(), e.Message)
		}
		if name == "create-event" && ge.has("CONFLICT") {
			fmt.Fprintln(stderr, "admin: the event already exists; nothing was changed (print it with `admin card -event <id>`)")
		}
		switch {
		case ge.has("UNAUTHENTICATED"):
			fmt.Fprintln(stderr, "admin: the API refused the token: give an admin token with -token or PICKEM_TOKEN; against a local server give none, and the command signs one with the server's dev secret (PICKEM_DEV_SECRET or -data, default .pickem)")
		case ge.has("FORBIDDEN"):
			fmt.Fprintln(stderr, "admin: this needs an admin token: -token or PICKEM_TOKEN; against a local server give none, and the command signs one with the server's dev secret (PICKEM_DEV_SECRET or -data, default .pickem)")
		}
		return 1
	default:
		fmt.Fprintf(stderr, "admin: %v\n", err)
		return 1
	}
}

// shared defines the flags every command takes, before or after its name. They have no
// printed defaults: the defaults come from the environment and may be secrets.
func shared(fs *flag.FlagSet, o *options) {
	fs.Func("url", "GraphQL endpoint (default $PICKEM_URL, else "+DefaultURL+")", func(v string) error { o.url = v; return nil })
	fs.Func("token", "bearer token (default $PICKEM_TOKEN; for a local server, one minted from its dev secret)", func(v string) error {
		o.token, o.tokenSet = v, true
		return nil
	})
	fs.Func("data", "the local server's state directory, where its dev secret is (default "+localdata.DefaultDir+")", func(v string) error { o.data = v; return nil })
}

func exitParse(err error) int {
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	return 2
}

func usage(w io.Writer) {
	fmt.Fprintf(w, "usage: admin [-url URL] [-token TOKEN] [-data DIR] <command> [flags]\n\ncommands:\n")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-14s %s\n", c.name, c.summary)
	}
	fmt.Fprintf(w, "\n`admin <command> -h` lists a command's flags. -url defaults to $PICKEM_URL or %s.\n"+
		"-token defaults to $PICKEM_TOKEN; against a local server (a loopback -url) the command\n"+
		"otherwise mints an admin token from the server's dev secret ($PICKEM_DEV_SECRET, else\n"+
		"the file dev-secret in -data, default %s).\n", DefaultURL, localdata.DefaultDir)
}

func required(name, value string) error {
	if value == "" {
		return usagef("-%s is required", name)
	}
	return nil
}

func createEventCmd(fs *flag.FlagSet) func(context.Context, *client, io.Writer) error {
	file := fs.String("file", "", "card file (.yaml, .yml or .json)")
	id := fs.String("id", "", "event id, overriding the file's")
	startsAt := fs.String("starts-at", "", "start, overriding the file's: RFC 3339 (YYYY-MM-DDT22:00:00Z) or from now (+7d, +36h), rounded down to the hour; without -id the id is then derived from the new date and the name")
	return func(ctx context.Context, c *client, out io.Writer) error {
		if err := required("file", *file); err != nil {
			return err
		}
		card, err := readCard(*file)
		if err != nil {
			return err
		}
		if *startsAt != "" {
			at, err := parseStart(*startsAt, time.Now())
			if err != nil {
				return err
			}
			card.StartsAt, card.ID = at, nil
		}
		if *id != "" {
			card.ID = id
		}
		var data struct{ CreateEvent event }
		err = c.do(ctx, operations.Text("admin-create-event"),
			map[string]any{"input": card}, &data)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "created event %s with %d matches\n\n", data.CreateEvent.ID, len(data.CreateEvent.Matches))
		printCard(out, data.CreateEvent)
		return nil
	}
}

// parseStart reads -starts-at: RFC 3339 as it is, or "+<n>d" / "+<Go duration>" from now,
// rounded down to the hour, in UTC.
func parseStart(v string, now time.Time) (string, error) {
	if rel, ok := strings.CutPrefix(v, "+"); ok {
		var d time.Duration
		var err error
		if days, ok := strings.CutSuffix(rel, "d"); ok {
			var n int
			n, err = strconv.Atoi(days)
			d = time.Duration(n) * 24 * time.Hour
		} else {
			d, err = time.ParseDuration(rel)
		}
		if err != nil || d <= 0 {
			return "", usagef("-starts-at %q: want a positive +<days>d or +<duration> such as +7d or +36h", v)
		}
		return now.Add(d).UTC().Truncate(time.Hour).Format(time.RFC3339), nil
	}
	if _, err := time.Parse(time.RFC3339, v); err != nil {
		return "", usagef("-starts-at %q: want RFC 3339 (YYYY-MM-DDT22:00:00Z) or +<days>d / +<duration> from now", v)
	}
	return v, nil
}

// getEvent reads an event with its card; a missing event is a NOT_FOUND error.
func getEvent(ctx context.Context, c *client, id string) (event, error) {
	var data struct{ Event *event }
	if err := c.do(ctx, operations.Text("admin-event"), map[string]any{"id": id}, &data); err != nil {
		return event{}, err
	}
	if data.Event == nil {
		return event{}, gqlErrors{{Message: fmt.Sprintf("event %q not found", id), Extensions: extensions{Code: "NOT_FOUND"}}}
	}
	return *data.Event, nil
}

func cardCmd(fs *flag.FlagSet) func(context.Context, *client, io.Writer) error {
	id := fs.String("event", "", "event id")
	return func(ctx context.Context, c *client, out io.Writer) error {
		if err := required("event", *id); err != nil {
			return err
		}
		e, err := getEvent(ctx, c, *id)
		if err != nil {
			return err
		}
		printCard(out, e)
		return nil
	}
}

func eventsCmd(fs *flag.FlagSet) func(context.Context, *client, io.Writer) error {
	season := fs.Int("season", 0, "season (year); 0 for all")
	first := fs.Int("first", 20, "how many (1-100)")
	return func(ctx context.Context, c *client, out io.Writer) error {
		vars := map[string]any{"first": *first}
		if *season != 0 {
			vars["season"] = *season
		}
		var data struct {
			Events struct {
				Edges []struct{ Node event }
			}
		}
		err := c.do(ctx, operations.Text("admin-events"), vars, &data)
		if err != nil {
			return err
		}
		tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tNAME\tSTARTS\tSTATE")
		for _, e := range data.Events.Edges {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", e.Node.ID, e.Node.Name, e.Node.StartsAt, e.Node.State)
		}
		return tw.Flush()
	}
}

func lockCmd(fs *flag.FlagSet) func(context.Context, *client, io.Writer) error {
	id := fs.String("event", "", "event id")
	return func(ctx context.Context, c *client, out io.Writer) error {
		if err := required("event", *id); err != nil {
			return err
		}
		var data struct{ UpdateEvent event }
		err := c.do(ctx, operations.Text("admin-lock-event"),
			map[string]any{"id": *id}, &data)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "%s (%s) is %s: picks are closed\n", data.UpdateEvent.Name, data.UpdateEvent.ID, data.UpdateEvent.State)
		return nil
	}
}

func setResultCmd(fs *flag.FlagSet) func(context.Context, *client, io.Writer) error {
	id := fs.String("event", "", "event id")
	matchID := fs.String("match", "", "match id (see: admin card)")
	winner := fs.Int("winner", -1, "the winning team's number (0 = first team on the card)")
	draw := fs.Bool("draw", false, "the match was a draw (voids it)")
	noContest := fs.Bool("no-contest", false, "the match was a no contest (voids it)")
	clearIt := fs.Bool("clear", false, "remove the result")
	method := fs.String("method", "", "with -winner: how the match was won (PINFALL, SUBMISSION, KNOCKOUT, DISQUALIFICATION, COUNT_OUT, OTHER)")
	return func(ctx context.Context, c *client, out io.Writer) error {
		if err := required("event", *id); err != nil {
			return err
		}
		if err := required("match", *matchID); err != nil {
			return err
		}
		var res map[string]any
		chosen := 0
		if *winner >= 0 {
			res, chosen = map[string]any{"outcome": "WIN", "winner": *winner}, chosen+1
		}
		if *draw {
			res, chosen = map[string]any{"outcome": "DRAW"}, chosen+1
		}
		if *noContest {
			res, chosen = map[string]any{"outcome": "NO_CONTEST"}, chosen+1
		}
		if *clearIt {
			res, chosen = nil, chosen+1
		}
		if chosen != 1 {
			return usagef("give exactly one of -winner N, -draw, -no-contest, -clear")
		}
		if *method != "" {
			if *winner < 0 {
				return usagef("-method goes with -winner: a draw or a no contest has no method")
			}
			res["method"] = strings.ToUpper(*method)
		}
		var data struct{ SetResult match }
		err := c.do(ctx, operations.Text("admin-set-result"),
			map[string]any{"eventId": *id, "matchId": *matchID, "result": res}, &data)
		if err != nil {
			return err
		}
		m := data.SetResult
		fmt.Fprintf(out, "%d. %s: %s\n", m.Position, m.Name, m.resultText())
		return nil
	}
}

func tiebreakerCmd(fs *flag.FlagSet) func(context.Context, *client, io.Writer) error {
	id := fs.String("event", "", "event id")
	answer := fs.Int("answer", -1, "the answer: a whole number from 0 to 1,000,000")
	clearIt := fs.Bool("clear", false, "remove the answer")
	return func(ctx context.Context, c *client, out io.Writer) error {
		if err := required("event", *id); err != nil {
			return err
		}
		if (*answer >= 0) == *clearIt {
			return usagef("give exactly one of -answer N, -clear")
		}
		var value any
		if !*clearIt {
			value = *answer
		}
		var data struct{ SetTiebreakerAnswer event }
		err := c.do(ctx, operations.Text("admin-set-tiebreaker-answer"), map[string]any{"eventId": *id, "answer": value}, &data)
		if err != nil {
			return err
		}
		e := data.SetTiebreakerAnswer
		if *clearIt {
			fmt.Fprintf(out, "%s: tie-breaker answer cleared; score the event again to take it out of the leaderboard's order (admin score -event %s)\n", e.Name, e.ID)
		} else {
			fmt.Fprintf(out, "%s: tie-breaker answer %d set; it counts once a scoring pass completes (admin score -event %s)\n", e.Name, *answer, e.ID)
		}
		return nil
	}
}

func standingsCmd(fs *flag.FlagSet) func(context.Context, *client, io.Writer) error {
	season := fs.Int("season", time.Now().UTC().Year(), "season (year)")
	first := fs.Int("first", 50, "how many rows")
	return func(ctx context.Context, c *client, out io.Writer) error {
		if *season < 1 {
			return usagef("-season must be a year")
		}
		if *first < 1 {
			return usagef("-first must be at least 1")
		}
		type row struct {
			Rank         int
			User         struct{ ID, Name string }
			Points       int
			Correct      int
			EventsPlayed int `json:"eventsPlayed"`
		}
		rows, err := fetchPages[row](ctx, c, "standings", operations.Text("admin-standings"),
			map[string]any{"season": *season}, *first)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "Season %d standings\n", *season)
		if len(rows) == 0 {
			fmt.Fprintln(out, "(no scored events yet)")
			return nil
		}
		tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "RANK\tPLAYER\tID\tPOINTS\tCORRECT\tEVENTS")
		for _, r := range rows {
			fmt.Fprintf(tw, "%4d\t%s\t%s\t%6d\t%7d\t%6d\n", r.Rank, r.User.Name, r.User.ID, r.Points, r.Correct, r.EventsPlayed)
		}
		return tw.Flush()
	}
}

func tokenCmd(fs *flag.FlagSet) func(context.Context, *client, io.Writer) error {
	var secret string
	fs.Func("secret", "HS256 secret of the local server (default $PICKEM_DEV_SECRET, else the file dev-secret in -data)", func(v string) error {
		secret = v
		return nil
	})
	sub := fs.String("sub", "", "user id (the token's sub)")
	name := fs.String("name", "", "display name")
	admin := fs.Bool("admin", false, "put the user in the admin group")
	ttl := fs.Duration("ttl", 24*time.Hour, "lifetime")
	return func(_ context.Context, c *client, out io.Writer) error {
		if secret == "" {
			s, err := devSecret(c.data)
			if err != nil {
				return usagef("no dev secret: give -secret, set PICKEM_DEV_SECRET, or start the local server once so that it creates %s (%v)",
					filepath.Join(c.data, localdata.DevSecretFile), err)
			}
			secret = s
		}
		if err := required("sub", *sub); err != nil {
			return err
		}
		id := auth.Identity{ID: *sub, Name: strings.TrimSpace(*name)}
		if *admin {
			id.Groups = []string{auth.AdminGroup}
		}
		tok, err := auth.MintHS256([]byte(secret), id, *ttl)
		if err != nil {
			return usagef("%v", err)
		}
		fmt.Fprintln(out, tok)
		return nil
	}
}
