package rag

// Chunk is one retrievable piece of a chapter. Its Text starts with the
// "[Module: …]\n[Chapter: …]\n[Section: …]\n\n" header so that an embedder
// or a language model always sees where the passage comes from.
type Chunk struct {
	ID             string `json:"id"`
	Text           string `json:"text"`
	ModuleID       string `json:"module_id"`
	ChapterID      string `json:"chapter_id"`
	SectionHeading string `json:"section_heading"`
	ChunkIndex     int    `json:"chunk_index"`
	Anchor         string `json:"anchor"`

	// ChapterPath is the chapter file's path under the book root without
	// its extension ("module-2/chapter-2-topics-pubsub"); it is what the
	// evaluation's gold_chapter names and what a page link is built from.
	ChapterPath string `json:"chapter_path"`
	// PagePath is the chapter page's path under the book site's docs URL
	// ("module-2/chapter-2-topics-pubsub"; on a Docusaurus site number
	// prefixes are dropped and a front-matter slug wins). It is what a
	// source links to.
	PagePath     string `json:"page_path"`
	ModuleTitle  string `json:"module_title"`
	ChapterTitle string `json:"chapter_title"`

	// Headings lists the section heading and every sub-heading whose text
	// the chunk holds, in order, so an answer drawn from a sub-section can
	// link to that sub-section rather than to the enclosing one.
	Headings []Heading `json:"headings,omitempty"`
}

// Heading is a Markdown heading inside a chapter with its deep-link anchor.
type Heading struct {
	Level  int    `json:"level"`
	Text   string `json:"text"`
	Anchor string `json:"anchor"`
}

// ScoredChunk is a retrieval hit. Score lies in [0, 1] and carries the
// refusal spec's meaning: >= 0.7 confident, 0.5-0.7 related but not enough,
// < 0.5 nothing relevant.
type ScoredChunk struct {
	Chunk
	Score float64 `json:"score"`
}

// Source points a reader at the passage an answer was drawn from.
type Source struct {
	ChunkID        string  `json:"chunk_id"`
	ModuleID       string  `json:"module_id"`
	ChapterID      string  `json:"chapter_id"`
	SectionHeading string  `json:"section_heading"`
	Anchor         string  `json:"anchor"`
	Score          float64 `json:"score"`
	// Path is the chapter page's path under the book's docs URL, beside
	// the spec's fields: a link to the passage is
	// <docs URL>/<path>#<anchor>, at whatever depth the chapter lies.
	Path string `json:"path"`
}

// Module is a top-level folder of the book. The out-of-scope refusal lists
// the ingested book's module titles as the course's scope.
type Module struct {
	ID    string `json:"id"`
	Title string `json:"title"`
}

// Book is what ingest learned about a textbook besides its chunks.
type Book struct {
	Title   string   `json:"title"`
	Modules []Module `json:"modules"`
	// Hash identifies the book's content; an unchanged hash means an
	// unchanged index.
	Hash string `json:"hash"`
}
