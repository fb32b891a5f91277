package table

import (
	"testing"

	"github.com/pickem/api/domain"
)

// wantCode fails the test unless err carries code ("" for no error).
func wantCode(t testing.TB, err error, code domain.Code) {
	t.Helper()
	if got := domain.ErrorCode(err); got != code {
		t.Fatalf("error code = %q (err: %v), want %q", got, err, code)
	}
}

func mustOK(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("unexpected error (code %s): %v", domain.ErrorCode(err), err)
	}
}
