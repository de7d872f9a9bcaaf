package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/textbook-rag/rag"
	"github.com/textbook-rag/rag/datadir"
	"github.com/textbook-rag/rag/postgres"
	"github.com/textbook-rag/rag/report"
	"github.com/textbook-rag/rag/sqlite"
)

// reporting adds the course report's flags.
func (f *flags) reporting() {
	f.bool(&f.cfg.ReportQuestions, "report-questions", "TEXTBOOK_RAG_REPORT_QUESTIONS",
		"show question texts and comments in the course report (false: counts, sections and topic words only)")
}

// reportSource is what the course report reads: the history, the served
// book's chapters and passages, and the refusal log when it is a file.
func reportSource(cfg Config, ix *datadir.Index, h rag.ExchangeReader) *report.Source {
	src := &report.Source{
		Title:         courseName(cfg, ix),
		RefusalLog:    cfg.RefusalLog,
		ShowQuestions: cfg.ReportQuestions,
		DocsURL:       "/docs",
	}
	if h != nil {
		src.History = h
	}
	seen := map[string]bool{}
	for _, c := range ix.Chunks {
		src.BookTexts = append(src.BookTexts, c.Text)
		if key := c.ChapterID + "#" + c.Anchor; !seen[key] {
			seen[key] = true
			src.Sections = append(src.Sections, report.Section{ChapterID: c.ChapterID, Chapter: c.ChapterTitle, Heading: c.SectionHeading, Path: c.PagePath, Anchor: c.Anchor})
		}
		if seen[c.ChapterID] {
			continue
		}
		seen[c.ChapterID] = true
		src.Chapters = append(src.Chapters, report.Chapter{ID: c.ChapterID, Title: c.ChapterTitle, Module: c.ModuleTitle, Path: c.PagePath})
	}
	return src
}

// runReport reports on the history of a book of the data directory. It
// only reads: the book is the one the data directory holds (--book or
// --docs choose among several), its index and history are read as they
// are, and nothing in the data directory is written.
func runReport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg := DefaultConfig()
	f := newFlags("report", &cfg, stderr)
	f.str(&cfg.Docs, "docs", "TEXTBOOK_RAG_DOCS", "the book to report on, by its folder (read from its data in --data, never ingested); empty = the data directory's only book, or --book")
	f.str(&cfg.Data, "data", "TEXTBOOK_RAG_DATA", "data directory the server keeps the book's index and chat history in")
	f.storedBook()
	f.course()
	f.str(&cfg.RefusalLog, "refusal-log", "TEXTBOOK_RAG_REFUSAL_LOG", "the refusal log file the server appends to; empty = none")
	f.str(&cfg.DatabaseURL, "database-url", "DATABASE_URL", "Postgres URL of the chat history; empty = SQLite in the book's folder of the data directory")
	f.bookKey()
	f.reporting()
	since := "7d"
	var asJSON bool
	f.fs.StringVar(&since, "since", since, `report on the last this long: whole days ("7d") or a duration ("36h")`)
	f.fs.BoolVar(&asJSON, "json", false, "print the report as JSON")
	if err := f.parse(args); err != nil {
		return err
	}
	if f.fs.NArg() > 0 {
		return usageError{"report takes no arguments"}
	}
	d, err := report.ParseSince(since)
	if err != nil {
		return usageError{"--since: " + rag.ErrorMessage(err)}
	}
	// The chapter list is the book as it was served: its index.
	ix, dir, err := storedBook(cfg)
	if err != nil {
		return err
	}
	var h interface {
		rag.ExchangeReader
		Close() error
	}
	if cfg.DatabaseURL != "" {
		// The report writes nothing: a database without the schema is
		// an error, never migrated.
		p, err := postgres.OpenReader(ctx, cfg.DatabaseURL, bookKey(cfg, ix))
		if err != nil {
			return fmt.Errorf("chat history: %w", err)
		}
		h = p
	} else {
		s, err := sqlite.OpenReader(ctx, filepath.Join(dir, historyFile))
		if err != nil {
			return fmt.Errorf("chat history: %w", err)
		}
		h = s
	}
	defer h.Close()
	src := reportSource(cfg, ix, h)
	src.Now = time.Now
	if src.SelfCheck, err = loadSelfCheck(dir); err != nil {
		return err
	}
	r, err := src.Build(ctx, d)
	if err != nil {
		return err
	}
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(r)
	}
	return report.WriteText(stdout, r, src.Title)
}
