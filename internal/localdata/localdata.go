// Package localdata is the local server's state directory (`go run ./local -data DIR`,
// default .pickem under the working directory): the dev secret and any other local key,
// and the data of the DynamoDB Local the server runs. The admin command reads the dev
// secret from it.
//
// Files:
//
//	dev-secret            HS256 secret of dev tokens (hex, mode 0600)
//	<other key>           other local keys, same format (cursor-key, realtime-api-key)
//	dynamodb-local/       DynamoDB Local's database (its -dbPath)
//	dynamodb-local.log    DynamoDB Local's output
//	lock                  held (flock) by the local server that runs DynamoDB Local here
package localdata

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// DefaultDir is the state directory of `go run ./local` and of the admin command.
const DefaultDir = ".pickem"

// Names in the state directory.
const (
	// DevSecretFile is the file of the dev tokens' HS256 secret.
	DevSecretFile = "dev-secret"
	// EngineDir is the directory of DynamoDB Local's database.
	EngineDir = "dynamodb-local"
	// EngineLogFile receives DynamoDB Local's output.
	EngineLogFile = "dynamodb-local.log"
)

// Dir is a state directory.
type Dir string

// Open returns the state directory at path, creating it (mode 0700) if needed.
func Open(path string) (Dir, error) {
	if path == "" {
		return "", errors.New("localdata: empty directory")
	}
	if err := os.MkdirAll(path, 0o700); err != nil {
		return "", fmt.Errorf("localdata: %w", err)
	}
	return Dir(path), nil
}

// Path returns the path of name in d.
func (d Dir) Path(name string) string { return filepath.Join(string(d), name) }

// Key returns the key stored in name, creating it first (32 random bytes, hex, mode 0600)
// if there is none; created says whether it was created now. Two processes creating it at
// once end up with the same key.
func (d Dir) Key(name string) (key string, created bool, err error) {
	path := d.Path(name)
	if key, err := ReadKey(string(d), name); !errors.Is(err, os.ErrNotExist) {
		return key, false, err
	}
	b := make([]byte, 32)
	_, _ = rand.Read(b) // never fails: crypto/rand crashes the program instead
	tmp, err := os.CreateTemp(string(d), "."+name+"-*")
	if err != nil {
		return "", false, fmt.Errorf("localdata: %w", err)
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.WriteString(hex.EncodeToString(b) + "\n")
	if err = errors.Join(err, tmp.Chmod(0o600), tmp.Sync(), tmp.Close()); err != nil {
		return "", false, fmt.Errorf("localdata: %w", err)
	}
	// Link, unlike rename, never replaces a key another process created meanwhile.
	if err := os.Link(tmp.Name(), path); err != nil && !errors.Is(err, os.ErrExist) {
		return "", false, fmt.Errorf("localdata: %w", err)
	} else if err != nil {
		key, err := ReadKey(string(d), name)
		return key, false, err
	}
	return hex.EncodeToString(b), true, nil
}

// ReadKey reads the key stored in name in the directory dir. It returns an error wrapping
// os.ErrNotExist when there is none.
func ReadKey(dir, name string) (string, error) {
	path := filepath.Join(dir, name)
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("localdata: %w", err)
	}
	key := strings.TrimSpace(string(b))
	if key == "" {
		return "", fmt.Errorf("localdata: %s is empty: delete it to make a new key", path)
	}
	return key, nil
}

// Lock takes the directory's lock, so that two local servers never run DynamoDB Local on
// the same database. It fails at once if another process holds it; release gives it back (the
// system also does when the process ends).
func (d Dir) Lock() (release func(), err error) {
	path := d.Path("lock")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("localdata: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		b, _ := os.ReadFile(path)
		f.Close()
		holder := strings.TrimSpace(string(b))
		if holder == "" {
			holder = "another process"
		} else {
			holder = "process " + holder
		}
		return nil, fmt.Errorf("localdata: %s is in use by %s (a local server already runs on it: stop it, or give this one another -data directory)", string(d), holder)
	}
	_ = f.Truncate(0)
	_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	return func() {
		_ = f.Truncate(0)
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
