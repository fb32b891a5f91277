package localdata

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestKeyIsCreatedOnceWithMode0600(t *testing.T) {
	d, err := Open(filepath.Join(t.TempDir(), "state"))
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(string(d)); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("directory: %v, %v (want mode 0700)", fi, err)
	}
	if _, err := ReadKey(string(d), DevSecretFile); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("ReadKey before Key = %v, want ErrNotExist", err)
	}
	key, created, err := d.Key(DevSecretFile)
	if err != nil || !created || len(key) != 64 {
		t.Fatalf("Key = %q, %v, %v", key, created, err)
	}
	fi, err := os.Stat(d.Path(DevSecretFile))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("key file: %v, %v (want mode 0600)", fi, err)
	}
	again, created, err := d.Key(DevSecretFile)
	if err != nil || created || again != key {
		t.Fatalf("second Key = %q, %v, %v; want %q, not created", again, created, err, key)
	}
	if read, err := ReadKey(string(d), DevSecretFile); err != nil || read != key {
		t.Fatalf("ReadKey = %q, %v", read, err)
	}
	entries, _ := os.ReadDir(string(d))
	if len(entries) != 1 {
		t.Fatalf("directory holds %d entries, want only the key (no temporary files)", len(entries))
	}
}

func TestConcurrentKeyCreationAgrees(t *testing.T) {
	d, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	keys := make([]string, 8)
	var wg sync.WaitGroup
	for i := range keys {
		wg.Go(func() {
			k, _, err := d.Key("cursor-key")
			if err != nil {
				t.Error(err)
			}
			keys[i] = k
		})
	}
	wg.Wait()
	for _, k := range keys {
		if k != keys[0] || k == "" {
			t.Fatalf("keys differ: %v", keys)
		}
	}
}

func TestEmptyKeyFileIsAnError(t *testing.T) {
	d, _ := Open(t.TempDir())
	if err := os.WriteFile(d.Path(DevSecretFile), []byte("\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := d.Key(DevSecretFile); err == nil || !strings.Contains(err.Error(), "is empty") {
		t.Fatalf("Key of an empty file = %v", err)
	}
}

func TestLockIsExclusive(t *testing.T) {
	d, _ := Open(t.TempDir())
	release, err := d.Lock()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Lock(); err == nil || !strings.Contains(err.Error(), "is in use by process") {
		t.Fatalf("second Lock = %v, want in use", err)
	}
	release()
	release2, err := d.Lock()
	if err != nil {
		t.Fatalf("Lock after release: %v", err)
	}
	release2()
}
