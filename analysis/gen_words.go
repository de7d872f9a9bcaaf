//go:build ignore

// gen_words rebuilds the embedded English word list from a Debian word
// list (package wamerican, SCOWL-derived):
//
//	go run gen_words.go /usr/share/dict/american-english dict/american-english.gz
//
// It keeps what spelling repair needs to know, whether a word is English:
// lower-cased, possessives dropped ("robot's" says nothing "robot" does
// not), deduplicated and sorted in byte order, so the reader can search
// it, gzip-compressed with no timestamp, so a rebuild is byte-identical.
package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"slices"
	"strings"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: go run gen_words.go SOURCE OUT.gz")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "gen_words:", err)
		os.Exit(1)
	}
}

func run(src, out string) error {
	f, err := os.Open(src)
	if err != nil {
		return err
	}
	defer f.Close()
	seen := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		w := strings.ToLower(strings.TrimSpace(sc.Text()))
		if w == "" || strings.HasSuffix(w, "'s") {
			continue
		}
		seen[w] = true
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read %s: %w", src, err)
	}
	words := make([]string, 0, len(seen))
	for w := range seen {
		words = append(words, w)
	}
	slices.Sort(words)
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return err
	}
	if _, err := zw.Write([]byte(strings.Join(words, "\n") + "\n")); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", out, err)
	}
	fmt.Printf("%s: %d words, %d bytes\n", out, len(words), buf.Len())
	return nil
}
