package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sync"
)

// inputPrint fingerprints what an index is built from: every file of the
// book as read (paths and bytes) and the program reading them, whose
// parsing may change without the chunker's version. Hashing them costs a
// fraction of parsing them. It is "" when the program cannot be read:
// then no index is taken as built from this read.
func inputPrint(fsys fs.FS) (string, error) {
	program := programPrint()
	if program == "" {
		return "", nil
	}
	h := sha256.New()
	fmt.Fprintf(h, "program %s\x00", program)
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s\x00%d\x00", p, len(b))
		h.Write(b)
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("fingerprint the book: %w", err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

var programOnce = sync.OnceValue(func() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	f, err := os.Open(exe)
	if err != nil {
		return ""
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil))
})

// programPrint is the running executable's hash; "" when it cannot be
// read.
func programPrint() string { return programOnce() }
