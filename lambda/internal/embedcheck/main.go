// Command embedcheck checks a trusted-documents manifest with the loader the function
// uses (operations.ParseManifest) before `make lambda MANIFEST=path` builds it in: a
// manifest the function would refuse at start fails the build instead. It prints how many
// documents the manifest holds.
//
//	go run ./lambda/internal/embedcheck path/to/manifest.json
package main

import (
	"fmt"
	"os"

	"github.com/pickem/api/operations"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: embedcheck path/to/manifest.json")
		os.Exit(2)
	}
	report, err := check(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "embedcheck:", err)
		os.Exit(1)
	}
	fmt.Println(report)
}

// check loads the manifest at path and returns a one-line summary.
func check(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	m, err := operations.ParseManifest(path, b)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%s: %d documents, each id the SHA-256 of its text", path, len(m)), nil
}
