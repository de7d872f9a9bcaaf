package page

import (
	"regexp"
	"strings"
)

// Hugging Face's doc-builder writes a heading's anchor after its text,
// `## Attention masks[[attention-masks]]`, and wraps what differs between
// frameworks in Svelte blocks: `{#if fw === 'pt'}` … `{:else}` … `{/if}`.

var (
	// docAnchor is an ATX heading that ends in a doc-builder anchor.
	docAnchor = regexp.MustCompile(`^( {0,3}#{1,6}[ \t].*?)[ \t]*\[\[([^\[\]\s]+)\]\][ \t]*$`)
	// idSafe is an anchor that a {#id} attribute can carry: goldmark, which
	// renders the reader's page, takes letters, digits, '_', '-', ':' and
	// '.' in one.
	idSafe = regexp.MustCompile(`^[\p{L}\p{N}_:.-]+$`)
	// The Svelte markers stand on their own line, in a block quote too.
	svelteIf = regexp.MustCompile(`^[\s>]*\{#if\s+(.*?)\s*\}\s*$`)
	// svelteElse is `{:else}` or `{:else if cond}`.
	svelteElse  = regexp.MustCompile(`^[\s>]*\{:else(?:\s+if\s+(.*?))?\s*\}\s*$`)
	svelteEnd   = regexp.MustCompile(`^[\s>]*\{/if\}\s*$`)
	fwCondition = regexp.MustCompile(`^fw\s*===?\s*['"](\w+)['"]$`)
	// alertMarker is the first line of a GitHub alert, `> [!TIP]`.
	alertMarker = regexp.MustCompile(`(?i)^(\s*(?:>[ \t]*)+)\[!(?:note|tip|important|warning|caution)\][ \t]*$`)
)

// defaultFramework is the framework a doc-builder page shows until the
// reader switches: PyTorch.
const defaultFramework = "pt"

// docLine reads a line of a doc-builder page. A heading's trailing anchor
// becomes the {#id} both the chunker and the reader's page read, so the
// anchor is the section's id and no longer part of its text; an anchor no
// id can carry is dropped (the heading gets a generated one). The marker
// of a GitHub alert goes, its quote stays.
func docLine(line string) string {
	if m := alertMarker.FindStringSubmatch(line); m != nil {
		return strings.TrimRight(m[1], " \t")
	}
	m := docAnchor.FindStringSubmatch(line)
	if m == nil {
		return line
	}
	if !idSafe.MatchString(m[2]) {
		return m[1]
	}
	return m[1] + " {#" + m[2] + "}"
}

// branch is one open {#if} block of a doc-builder page.
type branch struct {
	known bool // the conditions are framework tests
	taken bool // an earlier branch of the block was shown
	show  bool // the current branch is shown
}

// selectFramework keeps what a doc-builder page shows by default: of each
// {#if fw === '…'} block, the branch of the default framework; the
// marker lines go. A block whose condition is not a framework test keeps
// all its branches. Code fences are followed, so a marker inside code is
// code.
func selectFramework(lines []string) []string {
	if !hasSvelteBlock(lines) {
		return lines
	}
	out := lines[:0:0]
	var open []branch
	fence := ""
	shown := func() bool {
		for _, b := range open {
			if !b.show {
				return false
			}
		}
		return true
	}
	for _, line := range lines {
		if fence != "" {
			if shown() {
				out = append(out, line)
			}
			if closesFence(line, fence) {
				fence = ""
			}
			continue
		}
		if m := svelteIf.FindStringSubmatch(line); m != nil {
			fw, known := framework(m[1])
			open = append(open, branch{known: known, show: !known || fw == defaultFramework})
			open[len(open)-1].taken = open[len(open)-1].show
			continue
		}
		if m := svelteElse.FindStringSubmatch(line); m != nil && len(open) > 0 {
			b := &open[len(open)-1]
			switch {
			case !b.known:
				b.show = true
			case m[1] == "":
				b.show = !b.taken
			default:
				fw, known := framework(m[1])
				b.show = !b.taken && (!known || fw == defaultFramework)
			}
			b.taken = b.taken || b.show
			continue
		}
		if svelteEnd.MatchString(line) && len(open) > 0 {
			open = open[:len(open)-1]
			continue
		}
		if m := fenceOpen.FindStringSubmatch(line); m != nil {
			fence = m[1]
		}
		if shown() {
			out = append(out, line)
		}
	}
	return out
}

func hasSvelteBlock(lines []string) bool {
	for _, l := range lines {
		if svelteIf.MatchString(l) {
			return true
		}
	}
	return false
}

// framework reads a doc-builder condition `fw === 'pt'`.
func framework(cond string) (string, bool) {
	m := fwCondition.FindStringSubmatch(strings.TrimSpace(cond))
	if m == nil {
		return "", false
	}
	return m[1], true
}
