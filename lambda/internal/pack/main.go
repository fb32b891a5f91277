// Command pack zips a Lambda bootstrap binary for upload and checks it: the input must be
// a statically linked 64-bit Linux ELF for the given architecture, and the zip must hold
// exactly that file as "bootstrap", executable. It prints the sizes. `make lambda` runs it,
// so building the package needs neither zip nor file:
//
//	go run ./lambda/internal/pack -arch arm64 -o dist/lambda.zip dist/lambda/bootstrap
//
// The zip is deterministic (fixed timestamp), so an unchanged binary gives an unchanged
// zip and `sam deploy` has nothing to upload.
package main

import (
	"archive/zip"
	"bytes"
	"debug/elf"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// entryName is the file the provided.al2023 runtime executes.
const entryName = "bootstrap"

// modTime is the fixed timestamp of the zip entry.
var modTime = time.Date(2000, time.January, 1, 0, 0, 0, 0, time.UTC)

// machines maps GOARCH values to ELF machines.
var machines = map[string]elf.Machine{
	"arm64": elf.EM_AARCH64,
	"amd64": elf.EM_X86_64,
}

func main() {
	arch := flag.String("arch", "arm64", "GOARCH the binary must be built for (arm64 or amd64)")
	out := flag.String("o", "dist/lambda.zip", "zip file to write")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: pack [-arch arm64] [-o dist/lambda.zip] path/to/bootstrap\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	report, err := pack(flag.Arg(0), *out, *arch)
	if err != nil {
		fmt.Fprintln(os.Stderr, "pack:", err)
		os.Exit(1)
	}
	fmt.Println(report)
}

// pack checks the binary at in, writes the zip to out and checks what it wrote. It returns
// a one-line summary with the sizes.
func pack(in, out, arch string) (string, error) {
	bin, err := os.ReadFile(in)
	if err != nil {
		return "", err
	}
	if err := checkELF(bin, arch); err != nil {
		return "", fmt.Errorf("%s: %w", in, err)
	}
	z, err := zipBootstrap(bin)
	if err != nil {
		return "", err
	}
	if err := checkZip(z, arch); err != nil {
		return "", fmt.Errorf("%s (as written): %w", out, err)
	}
	if err := writeFileAtomic(out, z); err != nil {
		return "", err
	}
	return fmt.Sprintf("%s: %s (%d bytes) holding %s: linux/%s ELF (%s), statically linked, %s",
		out, mib(len(z)), len(z), entryName, arch, machines[arch], mib(len(bin))), nil
}

// checkELF reports whether b is a 64-bit little-endian Linux executable for arch with no
// program interpreter (statically linked, as CGO_ENABLED=0 builds are).
func checkELF(b []byte, arch string) error {
	want, ok := machines[arch]
	if !ok {
		return fmt.Errorf("unsupported -arch %q (want arm64 or amd64)", arch)
	}
	f, err := elf.NewFile(bytes.NewReader(b))
	if err != nil {
		return fmt.Errorf("not an ELF file: %w", err)
	}
	defer f.Close()
	switch {
	case f.Machine != want:
		return fmt.Errorf("ELF machine is %s, want %s (GOARCH=%s)", f.Machine, want, arch)
	case f.Class != elf.ELFCLASS64 || f.Data != elf.ELFDATA2LSB:
		return fmt.Errorf("ELF is %s %s, want 64-bit little-endian", f.Class, f.Data)
	case f.Type != elf.ET_EXEC && f.Type != elf.ET_DYN:
		return fmt.Errorf("ELF type %s is not an executable", f.Type)
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return errors.New("dynamically linked (has a program interpreter): build with CGO_ENABLED=0")
		}
	}
	return nil
}

// zipBootstrap returns a zip holding bin as an executable file named bootstrap.
func zipBootstrap(bin []byte) ([]byte, error) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	h := &zip.FileHeader{Name: entryName, Method: zip.Deflate, Modified: modTime}
	h.SetMode(0o755) // Lambda runs the file as is: it must be executable
	w, err := zw.CreateHeader(h)
	if err != nil {
		return nil, err
	}
	if _, err := w.Write(bin); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// checkZip reports whether z holds exactly one entry, an executable bootstrap that is an
// ELF for arch.
func checkZip(z []byte, arch string) error {
	zr, err := zip.NewReader(bytes.NewReader(z), int64(len(z)))
	if err != nil {
		return err
	}
	if len(zr.File) != 1 || zr.File[0].Name != entryName {
		return fmt.Errorf("want exactly one entry %q, got %d", entryName, len(zr.File))
	}
	f := zr.File[0]
	if f.Mode()&0o111 == 0 || !f.Mode().IsRegular() {
		return fmt.Errorf("%s has mode %v, want an executable regular file", entryName, f.Mode())
	}
	rc, err := f.Open()
	if err != nil {
		return err
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		return err
	}
	return checkELF(b, arch)
}

func writeFileAtomic(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".pack-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

func mib(n int) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }
