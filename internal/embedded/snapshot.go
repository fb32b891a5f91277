package embedded

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"time"
)

// A snapshot file holds one table's items in DynamoDB's JSON wire format: a header line,
// then one item per line, in key order.
//
//	{"format":"pickem-embedded-snapshot/1","table":"pickem","items":2,"savedAt":"…"}
//	{"PK":{"S":"EVENT"},"SK":{"S":"EVENT#2026-…"},…}
//	…
//
// It is written to a temporary file in the same directory and renamed over the old one,
// so a crash leaves either the old snapshot or the new one, never half of one.
const snapshotFormat = "pickem-embedded-snapshot/1"

type snapshotHeader struct {
	Format  string    `json:"format"`
	Table   string    `json:"table"`
	Items   int       `json:"items"`
	SavedAt time.Time `json:"savedAt"`
}

// Save writes every item of table to path, atomically. Writes wait while the table is
// read, so the snapshot holds whole transactions only. It returns the number of items
// and the change count (Changes) the snapshot is current with.
func (e *Engine) Save(table, path string) (items int, changes uint64, err error) {
	e.mu.Lock()
	changes = e.changes.Load()
	raw, err := e.scan(table)
	e.mu.Unlock()
	if err != nil {
		return 0, 0, err
	}

	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, ".snapshot-*")
	if err != nil {
		return 0, 0, fmt.Errorf("embedded: save %s: %w", table, err)
	}
	defer os.Remove(f.Name()) // after the rename there is nothing left to remove
	w := bufio.NewWriterSize(f, 1<<20)
	hdr, _ := json.Marshal(snapshotHeader{Format: snapshotFormat, Table: table, Items: len(raw), SavedAt: time.Now().UTC()})
	w.Write(hdr)
	w.WriteByte('\n')
	for _, item := range raw {
		w.Write(item)
		w.WriteByte('\n')
	}
	err = errors.Join(w.Flush(), f.Chmod(0o600), f.Sync(), f.Close())
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		return 0, 0, fmt.Errorf("embedded: save %s to %s: %w", table, path, err)
	}
	return len(raw), changes, nil
}

// Load puts the items of the snapshot at path into table, which must exist and should be
// empty. A missing file loads nothing and is not an error. It fails on a snapshot of
// another format or table, or one that does not hold the items its header announces.
func (e *Engine) Load(table, path string) (int, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("embedded: load %s: %w", path, err)
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	line, err := r.ReadBytes('\n')
	var hdr snapshotHeader
	if err != nil || json.Unmarshal(line, &hdr) != nil || hdr.Format != snapshotFormat {
		return 0, fmt.Errorf("embedded: %s is not a snapshot (%s)", path, snapshotFormat)
	}
	if hdr.Table != table {
		return 0, fmt.Errorf("embedded: %s holds table %q, not %q", path, hdr.Table, table)
	}

	e.mu.Lock()
	defer e.mu.Unlock()
	n := 0
	batch := make([]json.RawMessage, 0, 25)
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		if err := e.batchPut(table, batch); err != nil {
			return err
		}
		n += len(batch)
		batch = batch[:0]
		return nil
	}
	for {
		line, err := r.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			batch = append(batch, json.RawMessage(bytes.Clone(bytes.TrimSpace(line))))
			if len(batch) == 25 {
				if err := flush(); err != nil {
					return n, err
				}
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return n, fmt.Errorf("embedded: load %s: %w", path, err)
		}
	}
	if err := flush(); err != nil {
		return n, err
	}
	if n != hdr.Items {
		return n, fmt.Errorf("embedded: %s holds %d items, its header says %d", path, n, hdr.Items)
	}
	return n, nil
}

// AutoSave saves table to path every interval after a change, and once more when ctx
// ends if anything changed since the last save. since is the change count (Changes) that
// the file at path already reflects: read it before starting AutoSave in a goroutine, so
// that a write made before the goroutine runs is not taken as saved. A save makes writes
// wait while the table is read, so after a save that took d the next one waits at least
// 10×d: writes never wait more than a tenth of the time, however large the table. It
// returns when the final save is done, with its error; errors of the periodic saves go to
// report and are retried.
func (e *Engine) AutoSave(ctx context.Context, table, path string, since uint64, interval time.Duration, report func(error)) error {
	saved := since
	wait := interval
	for {
		t := time.NewTimer(wait)
		select {
		case <-t.C:
			wait = interval
			if e.changes.Load() == saved {
				continue
			}
			began := time.Now()
			if _, c, err := e.Save(table, path); err != nil {
				report(err)
			} else {
				saved = c
			}
			wait = max(interval, 10*time.Since(began))
		case <-ctx.Done():
			t.Stop()
			if e.changes.Load() == saved {
				return nil
			}
			_, _, err := e.Save(table, path)
			return err
		}
	}
}

// scan returns every item of table in key order. The caller holds mu.
func (e *Engine) scan(table string) ([]json.RawMessage, error) {
	var items []json.RawMessage
	var start json.RawMessage
	for {
		in := map[string]any{"TableName": table}
		if start != nil {
			in["ExclusiveStartKey"] = start
		}
		var out struct {
			Items            []json.RawMessage
			LastEvaluatedKey json.RawMessage
		}
		if err := e.call("Scan", in, &out); err != nil {
			return nil, fmt.Errorf("embedded: scan %s: %w", table, err)
		}
		items = append(items, out.Items...)
		if len(out.LastEvaluatedKey) == 0 || string(out.LastEvaluatedKey) == "{}" || string(out.LastEvaluatedKey) == "null" {
			return items, nil
		}
		start = out.LastEvaluatedKey
	}
}

// batchPut writes up to 25 items with one BatchWriteItem. The caller holds mu.
func (e *Engine) batchPut(table string, items []json.RawMessage) error {
	reqs := make([]map[string]any, len(items))
	for i, it := range items {
		reqs[i] = map[string]any{"PutRequest": map[string]any{"Item": it}}
	}
	var out struct {
		UnprocessedItems map[string][]json.RawMessage
	}
	if err := e.call("BatchWriteItem", map[string]any{"RequestItems": map[string]any{table: reqs}}, &out); err != nil {
		return fmt.Errorf("embedded: load %s: %w", table, err)
	}
	if n := len(out.UnprocessedItems[table]); n > 0 {
		return fmt.Errorf("embedded: load %s: %d items unprocessed", table, n)
	}
	return nil
}

// call runs one DynamoDB operation on the engine in-process, in the JSON wire format.
func (e *Engine) call(op string, in, out any) error {
	body, err := json.Marshal(in)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, "/", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("X-Amz-Target", "DynamoDB_20120810."+op)
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	rec := &recorder{header: http.Header{}, status: http.StatusOK}
	e.api.ServeHTTP(rec, req)
	if rec.status != http.StatusOK {
		return fmt.Errorf("%s: HTTP %d: %s", op, rec.status, bytes.TrimSpace(rec.body.Bytes()))
	}
	return json.Unmarshal(rec.body.Bytes(), out)
}

// recorder is the http.ResponseWriter of an in-process call.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header         { return r.header }
func (r *recorder) Write(b []byte) (int, error) { return r.body.Write(b) }
func (r *recorder) WriteHeader(code int)        { r.status = code }
