// Command trusted-documents writes the trusted-documents manifest of the frontend's
// operations as JSON (frontend.TrustedManifest: the screens of bench/frontend and the
// players' contract operations in testdata/operations): `make trusted-documents` writes
// server/trusted-documents.json, which the function embeds (PICKEM_TRUSTED_DOCUMENTS=builtin).
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"github.com/pickem/api/bench/frontend"
)

func main() {
	out := flag.String("o", "server/trusted-documents.json", "output file")
	ops := flag.String("operations", frontend.OperationsDir, "the contract operations directory")
	flag.Parse()
	m, err := frontend.TrustedManifest(*ops)
	var b []byte
	if err == nil {
		b, err = json.MarshalIndent(m, "", "  ") // map keys come out sorted
	}
	if err == nil {
		err = os.WriteFile(*out, append(b, '\n'), 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "trusted-documents:", err)
		os.Exit(1)
	}
}
