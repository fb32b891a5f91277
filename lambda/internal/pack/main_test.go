package main

import (
	"archive/zip"
	"bytes"
	"debug/elf"
	"encoding/binary"
	"io"
	"os"
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

func writeFile(t *testing.T, b []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "bootstrap")
	if err := os.WriteFile(p, b, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestPackWritesExecutableBootstrap(t *testing.T) {
	for _, tc := range []struct {
		arch    string
		machine elf.Machine
	}{{"arm64", elf.EM_AARCH64}, {"amd64", elf.EM_X86_64}} {
		t.Run(tc.arch, func(t *testing.T) {
			bin := fakeELF(t, tc.machine, false)
			in := writeFile(t, bin)
			out := filepath.Join(t.TempDir(), "dist", "lambda.zip")
			report, err := pack(in, out, tc.arch)
			if err != nil {
				t.Fatalf("pack: %v", err)
			}
			if !strings.Contains(report, "bytes") || !strings.Contains(report, "linux/"+tc.arch) || !strings.Contains(report, tc.machine.String()) {
				t.Errorf("report %q lacks the size, the architecture or the ELF machine", report)
			}
			zr, err := zip.OpenReader(out)
			if err != nil {
				t.Fatal(err)
			}
			defer zr.Close()
			if len(zr.File) != 1 || zr.File[0].Name != "bootstrap" || zr.File[0].Mode().Perm() != 0o755 || !zr.File[0].Mode().IsRegular() {
				t.Fatalf("zip entries: %+v", zr.File)
			}
			rc, err := zr.File[0].Open()
			if err != nil {
				t.Fatal(err)
			}
			got, _ := io.ReadAll(rc)
			rc.Close()
			if !bytes.Equal(got, bin) {
				t.Error("zipped bootstrap differs from the input")
			}

			// Deterministic: packing the same binary again gives the same bytes.
			first, _ := os.ReadFile(out)
			if _, err := pack(in, out, tc.arch); err != nil {
				t.Fatal(err)
			}
			if second, _ := os.ReadFile(out); !bytes.Equal(first, second) {
				t.Error("packing the same binary twice gave different zips")
			}
		})
	}
}

func TestPackRejects(t *testing.T) {
	for _, tc := range []struct {
		name string
		bin  func(t *testing.T) []byte
		arch string
		want string
	}{
		{"WrongArchitecture", func(t *testing.T) []byte { return fakeELF(t, elf.EM_X86_64, false) }, "arm64", "ELF machine is EM_X86_64, want EM_AARCH64"},
		{"DynamicallyLinked", func(t *testing.T) []byte { return fakeELF(t, elf.EM_AARCH64, true) }, "arm64", "dynamically linked"},
		{"NotELF", func(*testing.T) []byte { return []byte("#!/bin/sh\necho hi\n") }, "arm64", "not an ELF"},
		{"UnknownArch", func(t *testing.T) []byte { return fakeELF(t, elf.EM_AARCH64, false) }, "riscv64", "unsupported"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := writeFile(t, tc.bin(t))
			out := filepath.Join(t.TempDir(), "lambda.zip")
			_, err := pack(in, out, tc.arch)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("pack error = %v, want one containing %q", err, tc.want)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("a zip was written despite the error")
			}
		})
	}
}
