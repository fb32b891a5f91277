package embedded

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/pickem/api/dynamo"
)

// startWithTable starts an engine holding an empty table with the production definition.
func startWithTable(t *testing.T, table string) (*Engine, *dynamodb.Client) {
	t.Helper()
	eng, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = eng.Stop(context.Background()) })
	db, err := dynamo.NewClient(t.Context(), eng.Endpoint)
	if err != nil {
		t.Fatal(err)
	}
	if err := dynamo.New(db, table).EnsureTable(t.Context()); err != nil {
		t.Fatal(err)
	}
	return eng, db
}

func put(t *testing.T, db *dynamodb.Client, table string, pk, sk string, attrs ...string) {
	t.Helper()
	it := map[string]types.AttributeValue{"PK": sv(pk), "SK": sv(sk)}
	for i := 0; i+1 < len(attrs); i += 2 {
		it[attrs[i]] = sv(attrs[i+1])
	}
	if _, err := db.PutItem(t.Context(), &dynamodb.PutItemInput{TableName: aws.String(table), Item: it}); err != nil {
		t.Fatal(err)
	}
}

func TestSaveThenLoadRestoresItemsAndIndex(t *testing.T) {
	const table = "pickem"
	eng, db := startWithTable(t, table)
	put(t, db, table, "EVENT", "EVENT#2026-01-01-a", "GSI_PK", "EVENT#2026-01-01-a", "GSI_SK", "CARD#000", "name", "Émile \"the\" Giant\n")
	put(t, db, table, "USER#a.b", "USER", "name", "A")
	put(t, db, table, "USER#a", "STANDINGS#2026", "GSI_PK", "STANDINGS#2026", "GSI_SK", "SCORE#999999989#a")
	path := filepath.Join(t.TempDir(), "snapshot.jsonl")
	n, changes, err := eng.Save(table, path)
	if err != nil || n != 3 || changes != eng.Changes() {
		t.Fatalf("Save = %d items, change %d (engine at %d), %v", n, changes, eng.Changes(), err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("snapshot file: %v, %v (want mode 0600)", fi, err)
	}

	eng2, db2 := startWithTable(t, table)
	if n, err := eng2.Load(table, path); err != nil || n != 3 {
		t.Fatalf("Load = %d, %v", n, err)
	}
	e := &engines{t: t, table: table, ref: db, emb: db2}
	if want, got := e.scan(t.Context(), db), e.scan(t.Context(), db2); strings.Join(want, "\n") != strings.Join(got, "\n") {
		t.Fatalf("after load:\n%v\nwant\n%v", got, want)
	}
	q := &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String("GSI"),
		KeyConditionExpression:    aws.String("GSI_PK = :p"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":p": sv("STANDINGS#2026")}}
	if got := e.query(t.Context(), db2, q, true); len(got) != 1 || !strings.Contains(got[0], "SCORE#999999989#a") {
		t.Fatalf("index after load: %v", got)
	}
}

func TestLoadRefusesWhatIsNotItsSnapshot(t *testing.T) {
	eng, db := startWithTable(t, "pickem")
	put(t, db, "pickem", "USER#a", "USER")
	dir := t.TempDir()
	good := filepath.Join(dir, "good.jsonl")
	if _, _, err := eng.Save("pickem", good); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(good)
	header, _, _ := strings.Cut(string(b), "\n")
	files := map[string]string{
		"NotASnapshot": "hello\n",
		"Truncated":    strings.Replace(header, `"items":1`, `"items":2`, 1) + "\n" + strings.SplitN(string(b), "\n", 3)[1] + "\n",
	}
	for name, content := range files {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(dir, name)
			if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
			eng2, _ := startWithTable(t, "pickem")
			if _, err := eng2.Load("pickem", p); err == nil {
				t.Fatal("Load accepted it")
			}
		})
	}
	t.Run("OtherTable", func(t *testing.T) {
		eng2, _ := startWithTable(t, "other")
		if _, err := eng2.Load("other", good); err == nil || !strings.Contains(err.Error(), `holds table "pickem"`) {
			t.Fatalf("Load = %v", err)
		}
	})
	t.Run("MissingFileIsEmpty", func(t *testing.T) {
		if n, err := eng.Load("pickem", filepath.Join(dir, "none")); n != 0 || err != nil {
			t.Fatalf("Load = %d, %v", n, err)
		}
	})
}

// TestSnapshotsHoldWholeTransactions saves over and over while transactions move two items
// in step (each transaction sets both to the same new value): every snapshot must show
// them equal. It checks the outcome, whichever lock gives it: with a table this small the
// scan is one call, which minidyn's own lock already keeps whole (Engine.mu matters for a
// scan in several pages).
func TestSnapshotsHoldWholeTransactions(t *testing.T) {
	const table = "pickem"
	eng, db := startWithTable(t, table)
	put(t, db, table, "USER#a", "STANDINGS#2026", "n", "0")
	put(t, db, table, "USER#b", "STANDINGS#2026", "n", "0")
	ctx, cancel := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	for w := range 2 {
		wg.Go(func() {
			for i := 0; ctx.Err() == nil; i++ {
				v := sv(fmt.Sprintf("%d-%d", w, i))
				upd := func(pk string) types.TransactWriteItem {
					return types.TransactWriteItem{Update: &types.Update{TableName: aws.String(table),
						Key:              map[string]types.AttributeValue{"PK": sv(pk), "SK": sv("STANDINGS#2026")},
						UpdateExpression: aws.String("SET n = :v"), ExpressionAttributeValues: map[string]types.AttributeValue{":v": v}}}
				}
				_, err := db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{upd("USER#a"), upd("USER#b")}})
				if err != nil && ctx.Err() == nil {
					t.Error(err)
					return
				}
			}
		})
	}
	path := filepath.Join(t.TempDir(), "snapshot.jsonl")
	distinct := map[string]bool{}
	for range 100 {
		if _, _, err := eng.Save(table, path); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")[1:]
		if len(lines) != 2 {
			t.Fatalf("snapshot of %d items", len(lines))
		}
		a, bv := lines[0][strings.Index(lines[0], `"n":`):], lines[1][strings.Index(lines[1], `"n":`):]
		na, nb := a[:strings.IndexByte(a, '}')+1], bv[:strings.IndexByte(bv, '}')+1]
		if na != nb {
			t.Fatalf("a snapshot holds half a transaction: %s vs %s", na, nb)
		}
		distinct[na] = true
	}
	cancel()
	wg.Wait()
	if len(distinct) < 3 {
		t.Errorf("only %d distinct states seen in 100 snapshots: the writers did not run alongside", len(distinct))
	}
}

func TestAutoSaveSavesOnStopOnlyAfterAChange(t *testing.T) {
	const table = "pickem"
	eng, db := startWithTable(t, table)
	path := filepath.Join(t.TempDir(), "snapshot.jsonl")
	report := func(err error) { t.Error(err) }

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := eng.AutoSave(ctx, table, path, eng.Changes(), time.Hour, report); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("AutoSave wrote a snapshot with nothing changed: %v", err)
	}

	ctx, cancel = context.WithCancel(t.Context())
	done := make(chan error, 1)
	since := eng.Changes()
	go func() { done <- eng.AutoSave(ctx, table, path, since, time.Hour, report) }()
	put(t, db, table, "USER#a", "USER")
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	eng2, _ := startWithTable(t, table)
	if n, err := eng2.Load(table, path); n != 1 || err != nil {
		t.Fatalf("Load of the final save = %d, %v", n, err)
	}

	// A write made before AutoSave runs (its goroutine scheduled late) counts from since.
	since = eng.Changes()
	put(t, db, table, "USER#b", "USER")
	ctx, cancel = context.WithCancel(t.Context())
	cancel()
	if err := eng.AutoSave(ctx, table, path, since, time.Hour, report); err != nil {
		t.Fatal(err)
	}
	eng3, _ := startWithTable(t, table)
	if n, err := eng3.Load(table, path); n != 2 || err != nil {
		t.Fatalf("Load after a write made before AutoSave started = %d, %v", n, err)
	}
}

// TestAutoSaveSavesAChangeWhileRunning: the periodic save writes a change without waiting
// for shutdown (what survives if the local server is killed), and a later change too.
func TestAutoSaveSavesAChangeWhileRunning(t *testing.T) {
	const table = "pickem"
	eng, db := startWithTable(t, table)
	path := filepath.Join(t.TempDir(), "snapshot.jsonl")
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	since := eng.Changes()
	go func() {
		done <- eng.AutoSave(ctx, table, path, since, 10*time.Millisecond, func(err error) { t.Error(err) })
	}()
	defer func() { cancel(); <-done }()

	// waitFor polls the snapshot file until it holds want (the save is asynchronous).
	waitFor := func(want string) {
		t.Helper()
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		timeout := time.After(30 * time.Second)
		for {
			if b, err := os.ReadFile(path); err == nil && strings.Contains(string(b), want) {
				return
			}
			select {
			case <-tick.C:
			case <-timeout:
				b, err := os.ReadFile(path)
				t.Fatalf("no periodic save holding %s within 30 s: %q, %v", want, b, err)
			}
		}
	}
	put(t, db, table, "USER#a", "USER")
	waitFor(`"USER#a"`)
	put(t, db, table, "USER#b", "USER")
	waitFor(`"USER#b"`)
}
