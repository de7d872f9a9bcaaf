// Package count writes a number with its noun, so that what the tutor
// prints never says "1 questions".
package count

import "strconv"

// Of returns n and the noun, in the plural unless n is 1: "1 question",
// "0 questions", "12 chunks".
func Of(n int, noun string) string {
	return strconv.Itoa(n) + " " + Noun(n, noun)
}

// Noun returns the noun for n of it: the plural unless n is 1. The
// plural adds an "s", which every noun the tutor counts takes.
func Noun(n int, noun string) string {
	if n == 1 {
		return noun
	}
	return noun + "s"
}
