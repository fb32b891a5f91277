// Command zipcheck checks the Lambda package that `make lambda` zips with aws-lambda-go's
// build-lambda-zip (a pinned `go tool`): the zip must hold exactly one entry, bootstrap, an
// executable regular file that is a statically linked 64-bit Linux ELF for the given
// architecture. It prints the sizes. build-lambda-zip packs but checks nothing of this:
// a binary built for the wrong GOARCH or with cgo would be uploaded as is and fail only
// when Lambda starts it. With -manifest, the binary must also hold that file's bytes, as
// `make lambda MANIFEST=path` builds them in (package operations/embedded).
//
//	go run ./lambda/internal/zipcheck -arch arm64 [-manifest path] dist/lambda.zip
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
)

// entryName is the file the provided.al2023 runtime executes.
const entryName = "bootstrap"

// machines maps GOARCH values to ELF machines.
var machines = map[string]elf.Machine{
	"arm64": elf.EM_AARCH64,
	"amd64": elf.EM_X86_64,
}

func main() {
	arch := flag.String("arch", "arm64", "GOARCH the binary must be built for (arm64 or amd64)")
	manifest := flag.String("manifest", "", "a trusted-documents manifest the binary must hold, byte for byte")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: zipcheck [-arch arm64] [-manifest path] dist/lambda.zip\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	report, err := check(flag.Arg(0), *arch, *manifest)
	if err != nil {
		fmt.Fprintln(os.Stderr, "zipcheck:", err)
		os.Exit(1)
	}
	fmt.Println(report)
}

// check checks the zip at path, and that its binary holds the file manifest unless that is
// empty, and returns a one-line summary with the sizes.
func check(path, arch, manifest string) (string, error) {
	z, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	bin, err := bootstrap(z)
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	if err := checkELF(bin, arch); err != nil {
		return "", fmt.Errorf("%s: %s: %w", path, entryName, err)
	}
	report := fmt.Sprintf("%s: %s (%d bytes) holding %s: linux/%s ELF (%s), statically linked, %s",
		path, mib(len(z)), len(z), entryName, arch, machines[arch], mib(len(bin)))
	if manifest == "" {
		return report, nil
	}
	m, err := os.ReadFile(manifest)
	if err != nil {
		return "", err
	}
	if len(m) == 0 || !bytes.Contains(bin, m) {
		return "", fmt.Errorf("%s: %s does not hold the manifest %s", path, entryName, manifest)
	}
	return fmt.Sprintf("%s, with the trusted-documents manifest %s (%d bytes) built in", report, manifest, len(m)), nil
}

// bootstrap returns the content of the zip's only entry, which must be an executable
// regular file named bootstrap.
func bootstrap(z []byte) ([]byte, error) {
	zr, err := zip.NewReader(bytes.NewReader(z), int64(len(z)))
	if err != nil {
		return nil, err
	}
	if len(zr.File) != 1 || zr.File[0].Name != entryName {
		names := make([]string, len(zr.File))
		for i, f := range zr.File {
			names[i] = f.Name
		}
		return nil, fmt.Errorf("want exactly one entry %q, got %q", entryName, names)
	}
	f := zr.File[0]
	if f.Mode()&0o111 == 0 || !f.Mode().IsRegular() {
		return nil, fmt.Errorf("%s has mode %v, want an executable regular file", entryName, f.Mode())
	}
	rc, err := f.Open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return io.ReadAll(rc)
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

func mib(n int) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }
