package main

import (
	"strings"
	"unicode/utf8"
)

// maxCourseRunes bounds a course's name: it heads every page and refusal,
// and a book's config may give any text as its title (a 900,000-character
// project in a conf.py). The longest real titles run to some eighty
// characters.
const maxCourseRunes = 120

// capCourseName cuts a name longer than maxCourseRunes at the last space
// in its allowed length (mid-word only when there is none), with an
// ellipsis.
func capCourseName(name string) string {
	if utf8.RuneCountInString(name) <= maxCourseRunes {
		return name
	}
	cut, n := name, 0
	for i := range name {
		if n == maxCourseRunes-1 {
			cut = name[:i]
			break
		}
		n++
	}
	if sp := strings.LastIndexByte(cut, ' '); sp > len(cut)/2 {
		cut = cut[:sp]
	}
	return strings.TrimRight(cut, " ,.;:-") + "…"
}
