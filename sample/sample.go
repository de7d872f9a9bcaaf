// Package sample is the small textbook that ships with textbook-rag: the
// default book of every command and the book the tests use. It is
// original writing on physical AI and humanoid robotics basics, in the
// Docusaurus layout: the docs folder, and beside it the site config that
// names the course.
package sample

import (
	"embed"
	"io/fs"
)

//go:embed all:docs docusaurus.config.js
var files embed.FS

// docs is the book's root inside the embedded files.
var docs = func() fs.FS {
	sub, err := fs.Sub(files, "docs")
	if err != nil {
		panic(err) // the embed directive guarantees the directory
	}
	return sub
}()

// Docs returns the sample textbook.
func Docs() fs.FS { return docs }

// Site returns the sample's site: its config, and the book under docs.
func Site() fs.FS { return files }

// vectorFiles holds the sentence model's vectors of the book's texts, a
// file per model (named by vectors.FileName of the model's ID), so that
// the first start with the pinned model embeds nothing. scripts/sample-
// vectors makes them.
//
//go:embed vectors
var vectorFiles embed.FS

// Vectors returns the shipped vector file of this name.
func Vectors(name string) ([]byte, bool) {
	data, err := vectorFiles.ReadFile("vectors/" + name)
	return data, err == nil
}
