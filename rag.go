// Package rag holds the domain of textbook-rag: the chunks of a book, the
// questions readers ask, the answers and refusals they get, and the small
// interfaces that the adapter packages (lexical, qdrant, openai, sqlite,
// postgres, http) implement. It imports nothing from those packages.
package rag

// Version is reported by the health endpoint and the CLI.
var Version = "0.1.0"
