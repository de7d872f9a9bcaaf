package main

import (
	"context"
	"io"
	"strings"
	"testing"
)

// breadBook is a book whose pages have no sections: everything under a
// page's title is its body, not an introduction to sections that follow.
var breadBook = map[string]string{
	"intro.md": "---\nsidebar_position: 1\n---\n# Baking Bread at Home\n\n" +
		"This little book walks through making sourdough bread in a home kitchen, from the starter to the baked loaf. " +
		"Each page covers one stage of the process and the habits that make it reliable. " +
		"You need flour, water, salt, a kitchen scale, a large bowl and a heavy pot with a lid. " +
		"Weigh every ingredient: cups measure flour differently each time. " +
		"Plan a bake over two days, since good bread is mostly waiting.\n",
	"starter.md": "---\nsidebar_position: 2\n---\n# Day One: Getting Ready\n\n" +
		"A sourdough starter is a mixture of flour and water that wild yeast and bacteria ferment. " +
		"It takes about a week to become active from scratch, and a friend's starter shortens that to a day. " +
		"Feed the starter twice a day with equal weights of flour and water, discarding half before each feeding. " +
		"A starter that doubles within six hours of a feeding is ready to leaven dough. " +
		"Keep it in a glass jar with a loose lid at room temperature, away from the stove. " +
		"A grey liquid on top means it is hungry; stir it back in and feed it. " +
		"Rye flour makes a starter livelier than white flour does.\n",
	"proofing.md": "---\nsidebar_position: 3\n---\n# Day Two: From Dough to Loaf\n\n" +
		"Shape the dough into a tight ball by folding its edges to the middle and turning it seam side down. " +
		"After shaping, the dough rests so the yeast can fill it with gas. " +
		"The proofing time for every loaf is four hours at room temperature, or overnight in the refrigerator. " +
		"A loaf has proofed enough when a floured finger pressed into it leaves a dent that springs back slowly. " +
		"Under-proofed dough tears in the oven, while over-proofed dough spreads flat. " +
		"A basket lined with a floured cloth holds the loaf's shape while it proofs. " +
		"Score the top with a razor just before baking so the loaf opens where you choose.\n",
}

// TestPageWithoutSectionsIsBody: the facts stated under a page's title,
// on pages that have no sections, are answered, and a question the book
// does not answer is refused.
func TestPageWithoutSectionsIsBody(t *testing.T) {
	docs := t.TempDir()
	writeBook(t, docs, breadBook)
	cfg := DefaultConfig()
	cfg.Docs, cfg.Data = docs, t.TempDir()
	app := NewMain(cfg, io.Discard)
	if err := app.Open(context.Background(), true); err != nil {
		t.Fatal(err)
	}
	defer app.Close()
	for _, c := range []struct{ q, want string }{
		{"What is the proofing time for every loaf?", "four hours"},
		{"How often do you feed the starter?", "twice a day"},
	} {
		resp := ask(t, app, c.q)
		if resp.WasRefusal || !strings.Contains(resp.Answer, c.want) {
			t.Errorf("%q: refused = %v, want an answer stating %q:\n%s", c.q, resp.WasRefusal, c.want, resp.Answer)
		}
	}
	if resp := ask(t, app, "How long should the loaf cool before slicing?"); !resp.WasRefusal {
		t.Errorf("a question the book does not answer was answered:\n%s", resp.Answer)
	}
}
