package dynamo

import (
	"testing"

	"github.com/pickem/api/dynamo/ddb"
)

func TestTableEmpty(t *testing.T) {
	f := newFixture(t)
	if empty, err := ddb.TableEmpty(t.Context(), f.db, f.table); err != nil || !empty {
		t.Fatalf("fresh table: empty %v, %v", empty, err)
	}
	if _, err := f.s.Register(t.Context(), "ann", "Ann"); err != nil {
		t.Fatal(err)
	}
	if empty, err := ddb.TableEmpty(t.Context(), f.db, f.table); err != nil || empty {
		t.Fatalf("after a write: empty %v, %v", empty, err)
	}
}
