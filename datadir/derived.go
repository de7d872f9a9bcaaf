package datadir

import (
	"bytes"
	"crypto/sha256"
	"encoding/gob"
	"errors"
	"fmt"
	"path/filepath"
)

// What a start derives from an index at some cost (the book's word
// associations) is kept beside it, in DerivedName, so that the next start
// reads it instead. It is kept under a key naming what it was derived from
// and by which program, with a sum of its bytes: a file kept for other
// chunks, by another program, or changed since, is not read (the start
// derives it again and keeps the new).

// DerivedName is the file beside the index that holds what was derived.
const DerivedName = "derived.gob"

// derivedVersion changes when the file's layout does.
const derivedVersion = 1

type derivedFile struct {
	Version int
	Key     string
	Sum     [sha256.Size]byte
	Data    []byte
}

// SaveDerived keeps v (gob-encoded) beside the index in dir under key:
// written aside, then renamed, so a reader sees the old file or the new.
func SaveDerived(dir, key string, v any) error {
	var data bytes.Buffer
	if err := gob.NewEncoder(&data).Encode(v); err != nil {
		return fmt.Errorf("keep derived data: %w", err)
	}
	var file bytes.Buffer
	f := derivedFile{Version: derivedVersion, Key: key, Sum: sha256.Sum256(data.Bytes()), Data: data.Bytes()}
	if err := gob.NewEncoder(&file).Encode(f); err != nil {
		return fmt.Errorf("keep derived data: %w", err)
	}
	if err := WriteFile(dir, DerivedName, file.Bytes()); err != nil {
		return fmt.Errorf("keep derived data: %w", err)
	}
	return nil
}

var (
	// errNoDerived is LoadDerived's error for a file kept under another
	// key.
	errNoDerived = errors.New("no derived data for these chunks")
	// errDerivedSum is LoadDerived's error for a file changed since it
	// was written.
	errDerivedSum = errors.New("the derived data does not match its sum")
)

// LoadDerived decodes into v what SaveDerived kept in dir under key. It
// fails when there is none under that key, or the file does not match its
// sum or cannot be decoded, or is no regular file of at most MaxIndexBytes
// (see ReadFile): the caller derives it again.
func LoadDerived(dir, key string, v any) error {
	b, err := ReadFile(filepath.Join(dir, DerivedName), MaxIndexBytes)
	if err != nil {
		return fmt.Errorf("read derived data: %w", err)
	}
	var f derivedFile
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&f); err != nil {
		return fmt.Errorf("read derived data: %w", err)
	}
	if f.Version != derivedVersion || f.Key != key {
		return errNoDerived
	}
	if sha256.Sum256(f.Data) != f.Sum {
		return fmt.Errorf("read derived data: %w", errDerivedSum)
	}
	if err := gob.NewDecoder(bytes.NewReader(f.Data)).Decode(v); err != nil {
		return fmt.Errorf("read derived data: %w", err)
	}
	return nil
}

// removeStaleDerived removes the temp files of derived data that writers
// killed mid-write left behind (see removeStaleTemp), and those of kept
// files.
func removeStaleDerived(dir string) {
	removeStaleTemp(dir, DerivedName+".*.tmp")
	removeStaleTemp(dir, "*.kept.*.tmp")
}
