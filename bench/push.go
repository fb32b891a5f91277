package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"github.com/pickem/api/bench/frontend"
	"github.com/pickem/api/operations"
	"github.com/pickem/api/push"
	"github.com/pickem/api/push/pushtest"
)

// PushOptions configure RunPush.
type PushOptions struct {
	// Subscribers is how many sockets subscribe to the pushed event's channel.
	Subscribers int `json:"subscribers"`
	// Cycles is how many times the run goes through its two modes, alternating which comes
	// first: with every socket open and subscribed (the screens, then the mutations, each
	// waited for until every subscriber has its message), and without any socket (the
	// screens, then the same mutations with nobody subscribed). The first mode with sockets
	// starts with the lock.
	Cycles int `json:"cycles"`
	// ResultsPerCycle is how many setResult calls each mode of a cycle makes, before one
	// setTiebreakerAnswer and one scoreEvent that completes a live pass.
	ResultsPerCycle int `json:"resultsPerCycle"`
	// Scale sizes the league the screens read (its Warmup and Iterations are per screen, the
	// iterations per cycle and mode).
	Scale Scale `json:"scale"`
	// Predictions is how many players predict the pushed event (its scoring message carries
	// the first 10 rows).
	Predictions int `json:"predictions"`
	// Wait is the most a message may take to reach every subscriber before the run fails.
	Wait time.Duration `json:"waitNs"`
	// Now lays the league out (past events before it, open ones after): the local server
	// runs on the wall clock, so it must be close to it.
	Now time.Time `json:"now"`
}

// pushCardMatches is the pushed event's card size: more matches than a cycle's results, so
// that every scoring pass is a live one and the event stays BROADCAST.
const pushCardMatches = 6

// openFilesMargin is what the benchmark process holds open beside its sockets (the
// engine's connections, the API client's, files).
const openFilesMargin = 512

// DefaultPushOptions is `make bench`'s push section: 1,000 subscribers, 4 cycles of 3
// results, a tie-breaker answer and a scoring pass, on a league of 200 players.
func DefaultPushOptions() PushOptions {
	return PushOptions{
		Subscribers: 1000, Cycles: 4, ResultsPerCycle: 3, Predictions: 30, Wait: 10 * time.Second,
		Scale: Scale{Players: 200, Sizes: []int{10, 20}, Background: 12, PastFillers: 2, Warmup: 5, Iterations: 20},
		Now:   time.Now().UTC().Truncate(time.Minute),
	}
}

func (o PushOptions) check() error {
	if err := o.Scale.check(); err != nil {
		return err
	}
	if o.Subscribers < 1 || o.Cycles < 1 || o.ResultsPerCycle < 1 || o.ResultsPerCycle >= pushCardMatches || o.Wait <= 0 ||
		o.Predictions < 1 || o.Predictions > o.Scale.Players {
		return fmt.Errorf("bench: push options want subscribers, cycles ≥ 1, 1 to %d results per cycle, 1 to %d predictions and a wait: %+v",
			pushCardMatches-1, o.Scale.Players, o)
	}
	return nil
}

// RunPush measures push on the local server: the real local server (package local, built
// and run as a child process, its hub and store wired as `make run` wires them) over a
// league on DynamoDB Local, opts.Subscribers WebSockets on 127.0.0.1 subscribed to one
// event's liveChannel, and the admin mutations that publish sent through GraphQL. It
// reports the delay from each mutation's answer to each subscriber's receipt, the server's
// CPU per push with and without the subscribers, and the frontend screens' latency with
// and without the sockets open. log receives progress.
func RunPush(ctx context.Context, opts PushOptions, log io.Writer) (*PushResults, error) {
	if err := opts.check(); err != nil {
		return nil, err
	}
	began := time.Now()
	logf := func(format string, a ...any) {
		fmt.Fprintf(log, "%6.1fs "+format+"\n", append([]any{time.Since(began).Seconds()}, a...)...)
	}
	res := &PushResults{Generated: began, Machine: machine(), Options: opts}
	var err error
	if res.OpenFileLimit, err = raiseOpenFiles(uint64(opts.Subscribers) + openFilesMargin); err != nil {
		return nil, err
	}
	eng, err := startEngine()
	if err != nil {
		return nil, err
	}
	defer eng.stop()
	e, err := newEnv(ctx, eng, opts.Now, time.Millisecond)
	if err != nil {
		return nil, err
	}
	defer e.close()
	// The league's past events run from 4 January of its season, 12 days apart: early in a
	// year they belong to the season before.
	season := opts.Now.Year()
	if opts.Now.YearDay() < 120 {
		season--
	}
	l := newLeague(opts.Now, season, 1, opts.Scale, false)
	if res.Loading, err = load(ctx, e, []*league{l}); err != nil {
		return res, err
	}
	logf("%s at %s: loaded %d items in %.1fs", engineName, eng.endpoint, res.Loading.Items, res.Loading.Seconds)

	dir, err := os.MkdirTemp("", "pickem-push-")
	if err != nil {
		return res, err
	}
	defer os.RemoveAll(dir)
	srv, err := startLocalServer(ctx, eng, e.secret, dir)
	if err != nil {
		return res, err
	}
	defer srv.stop()
	logf("local server at %s, real-time endpoint %s", srv.base, srv.realtime)

	r := &pushRun{e: e, srv: srv, opts: opts, res: res, logf: logf, rec: newReceipts(), kinds: map[push.Kind]*kindSamples{}}
	if err := r.run(ctx, l); err != nil {
		return res, fmt.Errorf("%w\nthe local server's log:\n%s", err, srv.logs)
	}
	res.Machine.LoadAvgAfter = LoadAverage()
	res.Seconds = time.Since(began).Seconds()
	res.summarise(r)
	return res, nil
}

// pushRun is one run of RunPush once the server is up.
type pushRun struct {
	e    *env
	srv  *localServer
	opts PushOptions
	res  *PushResults
	logf func(string, ...any)
	ev   pushEvent
	rec  *receipts

	kinds             map[push.Kind]*kindSamples
	probes            []probe
	without, with     [][]time.Duration // per probe
	requests          []int             // per probe: the next request's number
	cpuWith, cpuAlone time.Duration     // the server's CPU over the matched mutations
	stepsWith         int               // mutations in each of those windows
	stepsAlone        int
	subscribeSeconds  []float64
}

// kindSamples are one kind of message's measurements.
type kindSamples struct {
	pushes int
	early  int             // receipts before the mutation's answer (counted as 0)
	delays []time.Duration // one per subscriber per push
	took   []time.Duration // the mutations' round trips (with subscribers)
}

// pushEvent is the event whose channel the subscribers watch.
type pushEvent struct {
	id, channel string
	matches     []string
	winners     []int // the current result's winner of each match, -1 before one
	answer      int   // the tie-breaker answer last set
	version     int   // its liveVersion: the last message's
}

func (r *pushRun) run(ctx context.Context, l *league) error {
	e, base := r.e, r.srv.base
	for _, p := range e.probes(l, []*league{l}) {
		// The screens that read what the loader wrote (the larger sizes are events screen 7
		// scores in the full suite).
		if p.screen <= 6 && (p.predictions == 0 || p.predictions == l.sizes[0]) {
			r.probes = append(r.probes, p)
		}
	}
	r.without, r.with = make([][]time.Duration, len(r.probes)), make([][]time.Duration, len(r.probes))
	r.requests = make([]int, len(r.probes))
	// The warm-up checks each screen's first answer against the league as loaded, before
	// the pushed event joins the event list.
	if err := r.screens(ctx, r.opts.Scale.Warmup, nil); err != nil {
		return fmt.Errorf("warm-up: %w", err)
	}
	if err := r.createEvent(ctx, base); err != nil {
		return err
	}
	r.logf("event %s, channel %s, %d predictions", r.ev.id, r.ev.channel, r.opts.Predictions)
	// The modes alternate (with, without; without, with; …) so that neither always follows
	// the opening or the closing of the sockets. The lock comes first: the results need it.
	for c := range r.opts.Cycles {
		first := c%2 == 0
		for _, open := range []bool{first, !first} {
			var err error
			if open {
				err = r.withSockets(ctx, c == 0)
			} else {
				err = r.withoutSockets(ctx)
			}
			if err != nil {
				return fmt.Errorf("cycle %d: %w", c+1, err)
			}
		}
		r.logf("cycle %d: %d sockets subscribed in %.1fs; screens and pushes measured", c+1, r.opts.Subscribers, r.subscribeSeconds[c])
	}
	// Every commit published exactly one message: the event's version is the count.
	var card struct {
		Event struct{ LiveVersion int }
	}
	if err := r.query(ctx, frontend.EventCard, map[string]any{"id": r.ev.id}, "", &card); err != nil {
		return err
	}
	if card.Event.LiveVersion != r.ev.version {
		return fmt.Errorf("event(id).liveVersion is %d after %d publishing commits", card.Event.LiveVersion, r.ev.version)
	}
	return nil
}

// withSockets opens and subscribes every socket, measures the screens, sends the lock if
// lock is set, then a cycle's mutations, each waited for, and closes the sockets.
func (r *pushRun) withSockets(ctx context.Context, lock bool) error {
	t := time.Now()
	subs, err := subscribe(ctx, r.srv.realtime, r.srv.auth, r.ev.channel, r.opts.Subscribers, r.rec)
	if err != nil {
		return err
	}
	defer subs.close()
	r.subscribeSeconds = append(r.subscribeSeconds, time.Since(t).Seconds())
	if err := r.screens(ctx, r.opts.Scale.Iterations, r.with); err != nil {
		return fmt.Errorf("with %d sockets: %w", r.opts.Subscribers, err)
	}
	if lock {
		err := r.pushed(ctx, push.KindState, func(ctx context.Context) (time.Time, time.Duration, error) {
			return r.mutate(ctx, operations.Text("admin-lock-event"), map[string]any{"id": r.ev.id})
		})
		if err != nil {
			return fmt.Errorf("lock: %w", err)
		}
	}
	if err := r.cycle(ctx, true); err != nil {
		return fmt.Errorf("with %d subscribers: %w", r.opts.Subscribers, err)
	}
	return nil
}

// withoutSockets measures the screens, then sends a cycle's mutations, with no socket open.
func (r *pushRun) withoutSockets(ctx context.Context) error {
	if err := r.screens(ctx, r.opts.Scale.Iterations, r.without); err != nil {
		return fmt.Errorf("without sockets: %w", err)
	}
	if err := r.cycle(ctx, false); err != nil {
		return fmt.Errorf("without sockets: %w", err)
	}
	return nil
}

// cycle sends one mode's mutations — ResultsPerCycle results, a tie-breaker answer, a
// scoring pass — and adds the server's CPU over them to that mode's total. With
// subscribers each message is waited for and its delays recorded.
func (r *pushRun) cycle(ctx context.Context, subscribed bool) error {
	type step struct {
		kind push.Kind
		run  func(context.Context) (time.Time, time.Duration, error)
	}
	var steps []step
	for j := range r.opts.ResultsPerCycle {
		steps = append(steps, step{push.KindResult, func(ctx context.Context) (time.Time, time.Duration, error) {
			r.ev.winners[j] = 1 - max(r.ev.winners[j], 0) // another result than the last: a commit
			return r.mutate(ctx, operations.Text("admin-set-result"), map[string]any{
				"eventId": r.ev.id, "matchId": r.ev.matches[j], "result": map[string]any{"outcome": "WIN", "winner": r.ev.winners[j]}})
		}})
	}
	steps = append(steps,
		step{push.KindTiebreaker, func(ctx context.Context) (time.Time, time.Duration, error) {
			r.ev.answer++
			return r.mutate(ctx, operations.Text("admin-set-tiebreaker-answer"), map[string]any{"eventId": r.ev.id, "answer": r.ev.answer})
		}},
		step{push.KindScoring, r.score})
	before, err := r.srv.cpu()
	if err != nil {
		return err
	}
	for _, s := range steps {
		if subscribed {
			err = r.pushed(ctx, s.kind, s.run)
		} else {
			_, _, err = s.run(ctx)
			r.ev.version++
		}
		if err != nil {
			return fmt.Errorf("%s: %w", s.kind, err)
		}
	}
	after, err := r.srv.cpu()
	if err != nil {
		return err
	}
	if subscribed {
		r.cpuWith += after - before
		r.stepsWith += len(steps)
	} else {
		r.cpuAlone += after - before
		r.stepsAlone += len(steps)
	}
	return nil
}

// pushed runs one mutation that publishes, waits until every subscriber has its message,
// checks the message and records each subscriber's delay from the mutation's answer (0 for
// a message that arrived first).
func (r *pushRun) pushed(ctx context.Context, kind push.Kind, run func(context.Context) (time.Time, time.Duration, error)) error {
	answered, took, err := run(ctx)
	if err != nil {
		return err
	}
	r.ev.version++
	times, event, err := r.rec.wait(ctx, r.ev.version, r.opts.Subscribers, r.opts.Wait)
	if err != nil {
		return fmt.Errorf("%s message, version %d: %w", kind, r.ev.version, err)
	}
	if err := pushtest.ValidateMessage(event); err != nil {
		return err
	}
	var m struct {
		EventID string    `json:"eventId"`
		Kind    push.Kind `json:"kind"`
	}
	if err := json.Unmarshal([]byte(event), &m); err != nil || m.EventID != r.ev.id || m.Kind != kind {
		return fmt.Errorf("version %d is %s, want a %s message of %s", r.ev.version, event, kind, r.ev.id)
	}
	k := r.kinds[kind]
	if k == nil {
		k = &kindSamples{}
		r.kinds[kind] = k
	}
	k.pushes++
	k.took = append(k.took, took)
	for _, at := range times {
		d := at.Sub(answered)
		if d < 0 {
			k.early++
			d = 0
		}
		k.delays = append(k.delays, d)
	}
	return nil
}

// score calls scoreEvent until a call completes the pass; that call is the one that
// publishes, and its answer the one measured.
func (r *pushRun) score(ctx context.Context) (time.Time, time.Duration, error) {
	for range 20 {
		var out struct {
			ScoreEvent struct{ Complete bool }
		}
		answered, took, err := r.mutateInto(ctx, frontend.ScoreEvent, map[string]any{"eventId": r.ev.id}, &out)
		if err != nil || out.ScoreEvent.Complete {
			return answered, took, err
		}
	}
	return time.Time{}, 0, fmt.Errorf("scoreEvent of %s did not complete in 20 calls", r.ev.id)
}

// mutate sends an admin mutation and returns when its answer was read and how long it took.
func (r *pushRun) mutate(ctx context.Context, doc string, vars map[string]any) (time.Time, time.Duration, error) {
	return r.mutateInto(ctx, doc, vars, nil)
}

func (r *pushRun) mutateInto(ctx context.Context, doc string, vars map[string]any, out any) (time.Time, time.Duration, error) {
	took, b, err := r.e.postTo(ctx, r.srv.base, request(doc, vars), r.e.adminToken())
	answered := time.Now()
	if err != nil {
		return answered, took, err
	}
	resp, err := decode(b)
	if err != nil {
		return answered, took, err
	}
	if out != nil {
		err = json.Unmarshal(resp.Data, out)
	}
	return answered, took, err
}

// query sends a GraphQL request as token ("": signed out) and decodes its data into out.
func (r *pushRun) query(ctx context.Context, doc string, vars map[string]any, token string, out any) error {
	_, b, err := r.e.postTo(ctx, r.srv.base, request(doc, vars), token)
	if err != nil {
		return err
	}
	resp, err := decode(b)
	if err != nil {
		return err
	}
	return json.Unmarshal(resp.Data, out)
}

// createEvent creates the pushed event through the API — a card of pushCardMatches
// matches and a tie-breaker question, starting in two hours — reads its liveChannel from
// the event card, and has opts.Predictions players submit picks and a guess.
func (r *pushRun) createEvent(ctx context.Context, base string) error {
	var matches []any
	for i := range pushCardMatches {
		matches = append(matches, map[string]any{"name": fmt.Sprintf("Match %d", i+1), "points": 10, "teams": []any{
			map[string]any{"members": []string{fmt.Sprintf("Red %d", i+1)}}, map[string]any{"members": []string{fmt.Sprintf("Blue %d", i+1)}}}})
	}
	var created struct {
		CreateEvent struct {
			ID      string
			Matches []struct{ ID string }
		}
	}
	in := map[string]any{"name": "Push Night", "startsAt": time.Now().Add(2 * time.Hour).UTC().Format(time.RFC3339),
		"tiebreaker": "How many seconds will the main event last?", "matches": matches}
	if _, _, err := r.mutateInto(ctx, operations.Text("admin-create-event"), map[string]any{"input": in}, &created); err != nil {
		return fmt.Errorf("createEvent: %w", err)
	}
	ev := pushEvent{id: created.CreateEvent.ID, answer: 600}
	for _, m := range created.CreateEvent.Matches {
		ev.matches = append(ev.matches, m.ID)
		ev.winners = append(ev.winners, -1)
	}
	var card struct {
		Event struct {
			LiveChannel *string
			LiveVersion int
		}
	}
	if err := r.query(ctx, frontend.EventCard, map[string]any{"id": ev.id}, "", &card); err != nil {
		return err
	}
	if card.Event.LiveChannel == nil || card.Event.LiveVersion != 0 {
		return fmt.Errorf("event %s: liveChannel %v, liveVersion %d; want a channel and 0", ev.id, card.Event.LiveChannel, card.Event.LiveVersion)
	}
	ev.channel = *card.Event.LiveChannel
	r.ev = ev
	for p := range r.opts.Predictions {
		picks := make([]frontend.Pick, len(ev.matches))
		for j, id := range ev.matches {
			picks[j] = frontend.Pick{MatchID: id, Team: (p + j) % 2}
		}
		var out struct{ SubmitPrediction struct{ ID string } }
		if err := r.query(ctx, frontend.SubmitPrediction, map[string]any{"eventId": ev.id, "picks": picks, "tiebreaker": 500 + 7*p},
			r.e.playerToken(p), &out); err != nil {
			return fmt.Errorf("submitPrediction of %s: %w", playerID(p), err)
		}
	}
	return nil
}

// screens sends every probe's request n times, round robin, through the local server,
// checks every answer has no error and the first of each probe is right, and appends the
// latencies to into (nil: the warm-up, not kept).
func (r *pushRun) screens(ctx context.Context, n int, into [][]time.Duration) error {
	for range n {
		for i, p := range r.probes {
			body, token := p.request(r.requests[i])
			first := r.requests[i] == 0
			r.requests[i]++
			d, b, err := r.e.postTo(ctx, r.srv.base, body, token)
			if err != nil {
				return fmt.Errorf("screen %d (%s): %w", p.screen, p.size, err)
			}
			resp, err := decode(b)
			if err == nil && first {
				err = p.check(resp.Data)
			}
			if err != nil {
				return fmt.Errorf("screen %d (%s): %w", p.screen, p.size, err)
			}
			if into != nil {
				into[i] = append(into[i], d)
			}
		}
	}
	return nil
}

// pushKinds is the order kinds are reported in.
var pushKinds = []push.Kind{push.KindState, push.KindResult, push.KindTiebreaker, push.KindScoring}

// allDelays is every delay of every kind.
func (r *pushRun) allDelays() []time.Duration {
	var all []time.Duration
	for _, k := range pushKinds {
		if s := r.kinds[k]; s != nil {
			all = append(all, s.delays...)
		}
	}
	slices.Sort(all)
	return all
}
