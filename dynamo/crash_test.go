package dynamo

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/pickem/api/domain"
	"github.com/pickem/api/dynamo/table"
	"github.com/pickem/api/internal/awsfaithful"
	"github.com/pickem/api/internal/dynamotest"
)

// TestScoringSurvivesSIGKILL kills the real local server process (go build ./local, on
// this package's DynamoDB Local through the AWS-faithful engine) with SIGKILL while it is
// scoring an event over HTTP — not a cancelled context: the process dies with transactions
// in flight — then starts it again and scores to completion. The table must end identical,
// item for item and attribute for attribute, to a twin table holding the same data scored
// by one uninterrupted run. "While scoring" is seen, not guessed with a sleep: the engine
// lets the first scoring transaction through and holds the next ones in flight; the kill
// comes once the first is in the table and another is held.
func TestScoringSurvivesSIGKILL(t *testing.T) {
	t.Parallel()
	began := time.Now()
	phase := func(what string) { t.Logf("%6.2fs %s", time.Since(began).Seconds(), what) }
	bin := filepath.Join(t.TempDir(), "local")
	build := exec.Command("go", "build", "-o", bin, "../local")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./local: %v\n%s", err, out)
	}

	// 200 players: about 13 in each of the scoreShards shards, one transaction each,
	// scored in parallel; the kill lands after the first transaction, with the others held
	// in flight or not started.
	phase("built")
	const players = 200
	e := newScEnv(t)
	ev := e.createEvent("2025-04-19-crash", scCard())
	entries := scGenEntries(players, scTeamCounts(ev), 13)
	e.writeEntries(ev, entries)
	ev = e.setResults(ev, scResults())
	twin := newScEnv(t)
	scBatchWrite(t, twin.client, twin.table, e.snapshot().items) // the same items, match ids included

	phase("data")
	scScoreRun(t, twin.after, ev.ID, false)
	phase("twin scored")
	want := twin.snapshot()
	want.checkScored(t, scScoredEvent{ev, entries})

	// Crash: start scoring over HTTP; SIGKILL once one transaction has landed and the next
	// ones are held in flight.
	eng := awsfaithful.New(t, awsfaithful.Config{})
	var txs atomic.Int64
	gate := eng.PauseTransactions(func(awsfaithful.Tx) bool { return txs.Add(1) > 1 })
	defer gate.Release()
	srv := startLocalProcess(t, bin, eng.Endpoint(), e.table)
	phase("started")
	done := make(chan error, 1)
	go func() { _, err := srv.score(ev.ID); done <- err }()
	if err := gate.Paused(scCtx(t)); err != nil {
		t.Fatal(err)
	}
	scored := 0
	for scored == 0 {
		select {
		case err := <-done:
			t.Fatalf("the scoring request ended (%v) before any prediction was seen scored", err)
		case <-time.After(5 * time.Millisecond):
		}
		scored = e.countScored(ev.ID)
	}
	srv.kill(t)
	<-done         // the connection dropped
	gate.Release() // what was in flight goes on, or not: either is a crash
	mid := e.snapshot()
	mid.checkSums(t) // every transaction landed whole or not at all
	n := mid.scored(ev.ID)
	if n == players || mid.state(ev.ID) == domain.StateScored {
		t.Fatalf("the kill came too late: %d of %d scored, state %s", n, players, mid.state(ev.ID))
	}
	t.Logf("killed with %d of %d predictions scored (%d seen when the kill was sent)", n, players, scored)

	// Restart, score until complete.
	phase("killed")
	srv = startLocalProcess(t, bin, dynamotest.Endpoint(t), e.table)
	defer srv.kill(t)
	phase("restarted")
	unavailable := 0
	for calls := 1; ; calls++ {
		rep, err := srv.score(ev.ID)
		if err != nil && strings.Contains(err.Error(), "try again") && unavailable < 5 {
			// UNAVAILABLE (DynamoDB Local slow on a loaded machine: 16 shards' transactions
			// at once): retryable by contract, and the admin command retries it.
			unavailable++
			t.Logf("call %d: %v; again", calls, err)
			continue
		}
		if err != nil {
			t.Fatalf("scoring after the restart: %v", err)
		}
		if rep.Complete {
			break
		}
		if calls == 20 {
			t.Fatalf("not complete after %d calls: %+v", calls, rep)
		}
	}
	phase("complete")
	got := e.snapshot()
	if !reflect.DeepEqual(got.items, want.items) {
		for i := range max(len(got.items), len(want.items)) {
			if i >= len(got.items) || i >= len(want.items) || !reflect.DeepEqual(got.items[i], want.items[i]) {
				t.Fatalf("table differs from the twin scored without a crash, first at item %d of %d/%d", i, len(got.items), len(want.items))
			}
		}
	}
}

// countScored counts the scored predictions of event id in the index, over its shards
// (DynamoDB Local's index is current).
func (e *scEnv) countScored(id string) int {
	e.t.Helper()
	n := 0
	for _, pk := range table.EventShardPKs(table.EventID(id), scShards) {
		q := &dynamodb.QueryInput{
			TableName: aws.String(e.table), IndexName: aws.String(table.IndexName), Select: types.SelectCount,
			KeyConditionExpression:    aws.String("#pk = :pk AND begins_with(#sk, :p)"),
			ExpressionAttributeNames:  map[string]string{"#pk": table.AttrGSIPK, "#sk": table.AttrGSISK},
			ExpressionAttributeValues: map[string]types.AttributeValue{":pk": table.StringValue(pk), ":p": table.StringValue(table.ScoreFirst)},
		}
		out, err := e.client.Query(context.Background(), q)
		if err != nil {
			e.t.Fatalf("count scored: %v", err)
		}
		n += int(out.Count)
	}
	return n
}

// localProcess is the local server binary running over a table of the package's
// DynamoDB Local (directly or through an engine in front of it).
type localProcess struct {
	cmd        *exec.Cmd
	base, bear string
	log        *bytes.Buffer
}

func startLocalProcess(t *testing.T, bin, endpoint, table string) *localProcess {
	t.Helper()
	cmd := exec.Command(bin, "-addr", "127.0.0.1:0", "-data", t.TempDir(), "-seed=false")
	cmd.Env = append(cmd.Environ(), "DYNAMODB_ENDPOINT="+endpoint, "TABLE_NAME="+table, "LOG_LEVEL=warn")
	p := &localProcess{cmd: cmd, log: &bytes.Buffer{}}
	cmd.Stderr = p.log
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", bin, err)
	}
	banner := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			if s, ok := strings.CutPrefix(line, "Pick'Em API listening on "); ok {
				p.base = s
			}
			if strings.Contains(line, "admin:") {
				var h map[string]string
				if err := json.Unmarshal([]byte(strings.TrimSpace(line[strings.Index(line, "{"):])), &h); err != nil {
					banner <- fmt.Errorf("admin token line %q: %w", line, err)
					return
				}
				p.bear = h["Authorization"]
				banner <- nil
				break
			}
		}
		_, _ = io.Copy(io.Discard, stdout)
	}()
	select {
	case err := <-banner:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("no banner within 60 s:\n%s", p.log)
	}
	return p
}

// score calls scoreEvent once.
func (p *localProcess) score(event string) (domain.ScoreReport, error) {
	body, _ := json.Marshal(map[string]any{
		"query":     `mutation($e: ID!) { scoreEvent(eventId: $e) { predictionsScored complete remaining } }`,
		"variables": map[string]any{"e": event},
	})
	req, err := http.NewRequest(http.MethodPost, p.base+"/graphql", bytes.NewReader(body))
	if err != nil {
		return domain.ScoreReport{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", p.bear)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return domain.ScoreReport{}, err
	}
	defer resp.Body.Close()
	var out struct {
		Data struct {
			ScoreEvent struct {
				PredictionsScored int  `json:"predictionsScored"`
				Complete          bool `json:"complete"`
				Remaining         int  `json:"remaining"`
			} `json:"scoreEvent"`
		} `json:"data"`
		Errors []struct{ Message string } `json:"errors"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return domain.ScoreReport{}, err
	}
	if len(out.Errors) > 0 {
		return domain.ScoreReport{}, fmt.Errorf("scoreEvent: %s", out.Errors[0].Message)
	}
	r := out.Data.ScoreEvent
	return domain.ScoreReport{PredictionsScored: r.PredictionsScored, Complete: r.Complete, Remaining: r.Remaining}, nil
}

// kill sends SIGKILL and waits for the process to be gone.
func (p *localProcess) kill(t *testing.T) {
	t.Helper()
	if p.cmd.ProcessState != nil {
		return
	}
	if err := p.cmd.Process.Kill(); err != nil {
		t.Fatalf("SIGKILL: %v", err)
	}
	_ = p.cmd.Wait()
}
