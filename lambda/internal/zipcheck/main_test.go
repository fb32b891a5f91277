package main

import (
	"archive/zip"
	"bytes"
	"debug/elf"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// fakeELF returns a minimal 64-bit little-endian ELF executable for machine: a header and
// a PT_LOAD segment, plus a PT_INTERP segment naming a dynamic loader if dynamic is set.
func fakeELF(t *testing.T, machine elf.Machine, dynamic bool) []byte {
	t.Helper()
	const interp = "/lib/ld-linux-aarch64.so.1\x00"
	phnum := uint16(1)
	if dynamic {
		phnum = 2
	}
	hdrSize, phSize := uint64(64), uint64(56)
	dataOff := hdrSize + uint64(phnum)*phSize
	h := elf.Header64{
		Ident:     [elf.EI_NIDENT]byte{0x7f, 'E', 'L', 'F', byte(elf.ELFCLASS64), byte(elf.ELFDATA2LSB), byte(elf.EV_CURRENT)},
		Type:      uint16(elf.ET_EXEC),
		Machine:   uint16(machine),
		Version:   uint32(elf.EV_CURRENT),
		Entry:     0x400000,
		Phoff:     hdrSize,
		Ehsize:    uint16(hdrSize),
		Phentsize: uint16(phSize),
		Phnum:     phnum,
		Shentsize: 64,
	}
	progs := []elf.Prog64{{
		Type: uint32(elf.PT_LOAD), Flags: uint32(elf.PF_R | elf.PF_X),
		Vaddr: 0x400000, Paddr: 0x400000, Filesz: dataOff, Memsz: dataOff, Align: 0x1000,
	}}
	if dynamic {
		progs = append(progs, elf.Prog64{Type: uint32(elf.PT_INTERP), Flags: uint32(elf.PF_R),
			Off: dataOff, Filesz: uint64(len(interp)), Memsz: uint64(len(interp)), Align: 1})
	}
	var b bytes.Buffer
	for _, v := range []any{h, progs} {
		if err := binary.Write(&b, binary.LittleEndian, v); err != nil {
			t.Fatal(err)
		}
	}
	if dynamic {
		b.WriteString(interp)
	}
	return b.Bytes()
}

// buildLambdaZip packs bin as `make lambda` does: aws-lambda-go's build-lambda-zip (the
// pinned go tool) on a file named bootstrap.
func buildLambdaZip(t *testing.T, bin []byte) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "bootstrap"), bin, 0o755); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "lambda.zip")
	// Run from the package directory: `go tool` finds the tool in this module's go.mod.
	cmd := exec.CommandContext(t.Context(), "go", "tool", "build-lambda-zip", "-o", out, filepath.Join(dir, "bootstrap"))
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build-lambda-zip: %v\n%s", err, b)
	}
	return out
}

// writeZip writes a zip of the given entries (name, mode, content).
func writeZip(t *testing.T, entries ...zipEntry) string {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		h := &zip.FileHeader{Name: e.name, Method: zip.Deflate}
		h.SetMode(e.mode)
		w, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(e.data)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "lambda.zip")
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

type zipEntry struct {
	name string
	mode os.FileMode
	data []byte
}

// TestBuildLambdaZipPackagePasses: what build-lambda-zip makes of a static ELF passes, the
// report gives the sizes, and packing the same binary twice gives the same bytes (so an
// unchanged build uploads nothing).
func TestBuildLambdaZipPackagePasses(t *testing.T) {
	for _, tc := range []struct {
		arch    string
		machine elf.Machine
	}{{"arm64", elf.EM_AARCH64}, {"amd64", elf.EM_X86_64}} {
		t.Run(tc.arch, func(t *testing.T) {
			bin := fakeELF(t, tc.machine, false)
			out := buildLambdaZip(t, bin)
			report, err := check(out, tc.arch, "")
			if err != nil {
				t.Fatalf("check: %v", err)
			}
			if !strings.Contains(report, "bytes") || !strings.Contains(report, "linux/"+tc.arch) || !strings.Contains(report, tc.machine.String()) {
				t.Errorf("report %q lacks the size, the architecture or the ELF machine", report)
			}
			first, _ := os.ReadFile(out)
			second, _ := os.ReadFile(buildLambdaZip(t, bin))
			if !bytes.Equal(first, second) {
				t.Error("packing the same binary twice gave different zips")
			}
		})
	}
}

func TestCheckRejects(t *testing.T) {
	static := func(t *testing.T) []byte { return fakeELF(t, elf.EM_AARCH64, false) }
	for _, tc := range []struct {
		name string
		zip  func(t *testing.T) string
		arch string
		want string
	}{
		{"WrongArchitecture", func(t *testing.T) string { return buildLambdaZip(t, fakeELF(t, elf.EM_X86_64, false)) }, "arm64", "ELF machine is EM_X86_64, want EM_AARCH64"},
		{"DynamicallyLinked", func(t *testing.T) string { return buildLambdaZip(t, fakeELF(t, elf.EM_AARCH64, true)) }, "arm64", "dynamically linked"},
		{"NotELF", func(t *testing.T) string { return buildLambdaZip(t, []byte("#!/bin/sh\necho hi\n")) }, "arm64", "not an ELF"},
		{"UnknownArch", func(t *testing.T) string { return buildLambdaZip(t, static(t)) }, "riscv64", "unsupported"},
		{"NotExecutable", func(t *testing.T) string { return writeZip(t, zipEntry{"bootstrap", 0o644, static(t)}) }, "arm64", "want an executable"},
		{"OtherName", func(t *testing.T) string { return writeZip(t, zipEntry{"main", 0o755, static(t)}) }, "arm64", "exactly one entry"},
		{"ExtraEntry", func(t *testing.T) string {
			return writeZip(t, zipEntry{"bootstrap", 0o755, static(t)}, zipEntry{"README", 0o644, []byte("x")})
		}, "arm64", "exactly one entry"},
		{"NotAZip", func(t *testing.T) string { return writeRaw(t, []byte("PK no")) }, "arm64", "zip"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := check(tc.zip(t), tc.arch, "")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("check error = %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func writeRaw(t *testing.T, b []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "lambda.zip")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestCheckManifest: with -manifest, the binary must hold the manifest's bytes.
func TestCheckManifest(t *testing.T) {
	manifest := []byte(`{"format":"apollo-persisted-query-manifest","version":1,"operations":[]}`)
	file := writeRaw(t, manifest)
	bin := append(fakeELF(t, elf.EM_AARCH64, false), manifest...)
	report, err := check(buildLambdaZip(t, bin), "arm64", file)
	if err != nil || !strings.Contains(report, "manifest "+file) {
		t.Fatalf("report %q, err %v", report, err)
	}
	if _, err := check(buildLambdaZip(t, fakeELF(t, elf.EM_AARCH64, false)), "arm64", file); err == nil || !strings.Contains(err.Error(), "does not hold") {
		t.Fatalf("a binary without the manifest: %v", err)
	}
}
