package markdown

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"testing/fstest"
	"time"

	"github.com/textbook-rag/rag/markdown/page"
)

// A book is read once into memory (a snapshot) and everything that shows
// it — the index's chunks and the reader's pages — is built from that one
// read, so a book edited while the server starts is served as one version,
// never two, and a file removed meanwhile is only a warning.

// snapshotTries bounds how often a book that changes while it is read is
// read again before the last read is used anyway.
const snapshotTries = 3

// beforeOpen, set by tests, runs when a listed file's path has been
// checked and before it is opened: the window in which the book may change
// under the reader.
var beforeOpen func(path string)

// fileStamp is what a file looked like when it was read.
type fileStamp struct {
	size    int64
	modTime time.Time
}

// ReadDir reads the book in folder dir into memory: the pages,
// _category_.json and _toctree.yml files the loader uses and the files an
// mdBook's pages include, each opened inside dir (through
// os.Root, so no path or link leads out of it), without following a
// symbolic link and without blocking on a FIFO, and read only when the
// opened file is a regular one. Files left out are reported to
// opts.Warn. When the book changes while it is read it is read again
// (a few times at most), so the snapshot is one version of the book.
func ReadDir(ctx context.Context, dir string, opts Options) (fs.FS, error) {
	opts = opts.withDefaults()
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("read book: %w", err)
	}
	defer root.Close()
	fsys := root.FS()
	var snap fstest.MapFS
	// Each try's warnings are told once: a file removed during the first
	// read is named, though the next read no longer lists it.
	warned := map[string]bool{}
	o := opts
	o.Warn = func(p string, err error) {
		if k := p + "\x00" + err.Error(); !warned[k] {
			warned[k] = true
			opts.warn(p, err)
		}
	}
	for try := 1; ; try++ {
		var stamps map[string]fileStamp
		snap, stamps, err = readSnapshot(ctx, fsys, o, func(p string) ([]byte, fileStamp, error) {
			return readInRoot(root, p, o.MaxFileBytes)
		})
		if err != nil {
			return nil, err
		}
		changed := changedSince(ctx, fsys, stamps, o)
		if !changed || try == snapshotTries {
			if changed {
				opts.warn(".", fmt.Errorf("the book kept changing while it was read (%d reads): using the last read", try))
			}
			return snap, nil
		}
	}
}

// ReadFS reads a book held in an fs.FS (the sample built into the binary)
// into memory, as ReadDir does a folder.
func ReadFS(ctx context.Context, fsys fs.FS, opts Options) (fs.FS, error) {
	opts = opts.withDefaults()
	snap, _, err := readSnapshot(ctx, fsys, opts, func(p string) ([]byte, fileStamp, error) {
		b, err := readFile(fsys, p, opts.MaxFileBytes)
		return b, fileStamp{}, err
	})
	return snap, err
}

// readSnapshot lists the book and reads each file it lists with read, and
// the files an mdBook's pages include; a file that vanished after the
// listing is skipped with a warning. stamps holds what each file read
// looked like (a zero stamp: vanished).
func readSnapshot(ctx context.Context, fsys fs.FS, opts Options, read func(string) ([]byte, fileStamp, error)) (fstest.MapFS, map[string]fileStamp, error) {
	l, err := walkBook(ctx, fsys, opts)
	if err != nil {
		return nil, nil, err
	}
	files := l.files()
	pages := map[string]bool{}
	for _, p := range l.pages {
		pages[p] = true
	}
	snap := fstest.MapFS{}
	stamps := map[string]fileStamp{}
	for _, p := range files {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		b, stamp, err := read(p)
		stamps[p] = stamp
		switch {
		case errors.Is(err, fs.ErrNotExist):
			opts.warn(p, fmt.Errorf("%w: removed while the book was read", errSkipped))
			continue
		case errors.Is(err, errSkipped):
			opts.warn(p, err)
			continue
		case err != nil:
			return nil, nil, err
		}
		if pages[p] {
			// Flattened here, the pages and the index read the same text.
			if cut, line := page.LimitNesting(b); line > 0 {
				opts.warn(p, page.NestingWarning(line))
				b = cut
			}
		}
		snap[p] = &fstest.MapFile{Data: b, Mode: 0o444}
	}
	if slices.ContainsFunc(summaryPaths, func(p string) bool { return snap[p] != nil }) {
		if err := readIncludes(ctx, snap, stamps, l.pages, opts, read); err != nil {
			return nil, nil, err
		}
	}
	return snap, stamps, nil
}

// readIncludes reads, with read, the files an mdBook's pages include (and
// the files those include) into the snapshot, so the book's read holds
// them too. A file that is not there is named by the page's warning when
// the page is read; one skipped for another reason is warned about here.
func readIncludes(ctx context.Context, snap fstest.MapFS, stamps map[string]fileStamp, pages []string, opts Options, read func(string) ([]byte, fileStamp, error)) error {
	type todo struct {
		file  string
		depth int
	}
	var queue []todo
	for _, p := range pages {
		queue = append(queue, todo{p, 0})
	}
	tried := map[string]bool{}
	for len(queue) > 0 {
		t := queue[0]
		queue = queue[1:]
		f := snap[t.file]
		if f == nil || t.depth >= maxIncludeDepth {
			continue
		}
		for _, p := range includedFiles(t.file, f.Data) {
			if _, done := stamps[p]; done || tried[p] {
				continue
			}
			tried[p] = true
			if err := ctx.Err(); err != nil {
				return err
			}
			b, stamp, err := read(p)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				opts.warn(p, err)
				continue
			}
			stamps[p] = stamp
			snap[p] = &fstest.MapFile{Data: b, Mode: 0o444}
			queue = append(queue, todo{p, t.depth + 1})
		}
	}
	return nil
}

// changedSince reports whether the book's files are no longer what was
// read: a file added, removed, resized or rewritten.
func changedSince(ctx context.Context, fsys fs.FS, stamps map[string]fileStamp, opts Options) bool {
	quiet := opts
	quiet.Warn = nil
	l, err := walkBook(ctx, fsys, quiet)
	if err != nil {
		return true
	}
	for _, p := range l.files() {
		if _, ok := stamps[p]; !ok {
			return true // added
		}
	}
	// The files read: those listed and those they include.
	for p, was := range stamps {
		info, err := fs.Stat(fsys, p)
		if err != nil {
			if was != (fileStamp{}) {
				return true // removed
			}
			continue
		}
		if info.Size() != was.size || !info.ModTime().Equal(was.modTime) {
			return true
		}
	}
	return false
}

// readInRoot reads a regular file of at most limit bytes inside root.
// os.Root resolves every link itself and refuses one that leads out of
// the root; the file's type is checked on the file opened, and it must be
// the very file the path named before it was opened, so a file swapped
// for a link (even one inside the book) after the listing is skipped. A
// FIFO is opened without blocking and then skipped.
func readInRoot(root *os.Root, p string, limit int64) ([]byte, fileStamp, error) {
	before, err := root.Lstat(p)
	if err != nil {
		return nil, fileStamp{}, fmt.Errorf("read %s: %w", p, err)
	}
	if !before.Mode().IsRegular() {
		return nil, fileStamp{}, fmt.Errorf("%w: %s", errSkipped, kindOf(before.Mode()))
	}
	if beforeOpen != nil {
		beforeOpen(p)
	}
	f, err := root.OpenFile(p, os.O_RDONLY|openFlags, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fileStamp{}, fmt.Errorf("read %s: %w", p, err)
	}
	if err != nil {
		// A link that leads out of the book, swapped in after the Lstat.
		if now, lerr := root.Lstat(p); lerr == nil && !now.Mode().IsRegular() {
			return nil, fileStamp{}, fmt.Errorf("%w: %s", errSkipped, kindOf(now.Mode()))
		}
		return nil, fileStamp{}, fmt.Errorf("read %s: %w", p, err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, fileStamp{}, fmt.Errorf("read %s: %w", p, err)
	}
	if !info.Mode().IsRegular() {
		return nil, fileStamp{}, fmt.Errorf("%w: %s", errSkipped, kindOf(info.Mode()))
	}
	if !os.SameFile(before, info) {
		return nil, fileStamp{}, fmt.Errorf("%w: %s", errSkipped, "replaced while it was opened (by a link or another file)")
	}
	stamp := fileStamp{size: info.Size(), modTime: info.ModTime()}
	tooBig := fmt.Errorf("%w: larger than the limit of %s per file", errSkipped, byteSize(limit))
	if info.Size() > limit {
		return nil, stamp, tooBig
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, stamp, fmt.Errorf("read %s: %w", p, err)
	}
	if int64(len(b)) > limit {
		return nil, stamp, tooBig
	}
	return b, stamp, nil
}
