package datadir

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Kept data is read back under its key only, whole and unchanged; its
// header alone tells the key; a link, a file cut short or grown, and a
// changed byte are not read.
func TestKept(t *testing.T) {
	dir := t.TempDir()
	data := []byte("the answerer's book side")
	if err := SaveKept(dir, AnswererName, "k1", data); err != nil {
		t.Fatal(err)
	}
	if !KeptUnder(dir, AnswererName, "k1") || KeptUnder(dir, AnswererName, "k2") {
		t.Error("the header does not tell the key")
	}
	if got, err := ReadKept(dir, AnswererName, "k1"); err != nil || string(got) != string(data) {
		t.Fatalf("ReadKept = %q, %v", got, err)
	}
	if _, err := ReadKept(dir, AnswererName, "k2"); err == nil {
		t.Error("read under another key")
	}
	p := filepath.Join(dir, AnswererName)
	kept, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	changed := append([]byte(nil), kept...)
	changed[len(changed)-3] ^= 0x20
	tests := []struct {
		name string
		file []byte
	}{
		{"a byte changed", changed},
		{"cut short", kept[:len(kept)-1]},
		{"grown", append(append([]byte(nil), kept...), 'x')},
		{"no header", data},
		{"empty", nil},
	}
	for _, tt := range tests {
		if err := os.WriteFile(p, tt.file, 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadKept(dir, AnswererName, "k1"); err == nil {
			t.Errorf("%s: read", tt.name)
		}
	}
	if runtime.GOOS != "windows" {
		other := filepath.Join(t.TempDir(), "elsewhere")
		if err := os.WriteFile(other, kept, 0o600); err != nil {
			t.Fatal(err)
		}
		os.Remove(p)
		if err := os.Symlink(other, p); err != nil {
			t.Fatal(err)
		}
		if KeptUnder(dir, AnswererName, "k1") {
			t.Error("a link was followed")
		}
		if _, err := ReadKept(dir, AnswererName, "k1"); err == nil {
			t.Error("a link was read")
		}
	}
	if _, err := ReadKept(t.TempDir(), AnswererName, "k1"); err == nil {
		t.Error("read a file that is not there")
	}
}
