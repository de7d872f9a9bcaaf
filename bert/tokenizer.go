package bert

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// tokenizer is BERT's WordPiece tokenizer as tokenizer.json describes it:
// the BertNormalizer (clean, pad CJK characters, strip accents,
// lowercase), the BertPreTokenizer (whitespace and every punctuation
// character apart) and greedy longest-match WordPiece.
type tokenizer struct {
	vocab     map[string]int32
	unk       int32
	cls, sep  int32
	prefix    string
	maxChars  int
	lowercase bool
	accents   bool // strip accents
}

type tokenizerFile struct {
	Normalizer struct {
		Type         string `json:"type"`
		Lowercase    *bool  `json:"lowercase"`
		StripAccents *bool  `json:"strip_accents"`
	} `json:"normalizer"`
	Model struct {
		Type     string           `json:"type"`
		Unk      string           `json:"unk_token"`
		Prefix   string           `json:"continuing_subword_prefix"`
		MaxChars int              `json:"max_input_chars_per_word"`
		Vocab    map[string]int32 `json:"vocab"`
	} `json:"model"`
	Padding *struct {
		Token string `json:"pad_token"`
	} `json:"padding"`
	Added []struct {
		ID      int64  `json:"id"`
		Content string `json:"content"`
	} `json:"added_tokens"`
}

// maxTokenizerFile bounds tokenizer.json: BERT's is half a megabyte, a
// multilingual vocabulary of 250,000 words about 17 MB.
const maxTokenizerFile = 64 << 20

// readTokenizer reads tokenizer.json for a model whose embedding table
// has vocab rows: every id it can give must be a row of that table.
func readTokenizer(path string, vocab int) (*tokenizer, error) {
	raw, err := readSmall(path, maxTokenizerFile)
	if err != nil {
		return nil, err
	}
	var f tokenizerFile
	if err := json.Unmarshal(raw, &f); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if f.Model.Type != "WordPiece" {
		return nil, fmt.Errorf("%s: model type %q: only BERT's WordPiece is read", path, f.Model.Type)
	}
	if f.Normalizer.Type != "BertNormalizer" {
		return nil, fmt.Errorf("%s: normalizer %q: only BertNormalizer is read", path, f.Normalizer.Type)
	}
	t := &tokenizer{vocab: f.Model.Vocab, prefix: f.Model.Prefix, maxChars: f.Model.MaxChars, lowercase: true}
	if f.Normalizer.Lowercase != nil {
		t.lowercase = *f.Normalizer.Lowercase
	}
	// Unset, accents are stripped exactly when the text is lowercased.
	t.accents = t.lowercase
	if f.Normalizer.StripAccents != nil {
		t.accents = *f.Normalizer.StripAccents
	}
	if t.maxChars <= 0 {
		t.maxChars = 100
	}
	for word, id := range t.vocab {
		if id < 0 || int(id) >= vocab {
			return nil, fmt.Errorf("%s: %q has id %d, outside the model's vocabulary of %d", path, word, id, vocab)
		}
	}
	for _, a := range f.Added {
		if a.ID < 0 || a.ID >= int64(vocab) {
			return nil, fmt.Errorf("%s: added token %q has id %d, outside the model's vocabulary of %d", path, a.Content, a.ID, vocab)
		}
	}
	pad := "[PAD]"
	if f.Padding != nil && f.Padding.Token != "" {
		pad = f.Padding.Token
	}
	var padID int32
	for _, sp := range []struct {
		name string
		id   *int32
	}{{f.Model.Unk, &t.unk}, {"[CLS]", &t.cls}, {"[SEP]", &t.sep}, {pad, &padID}} {
		id, ok := t.vocab[sp.name]
		if !ok {
			return nil, fmt.Errorf("%s: the vocabulary has no special token %q", path, sp.name)
		}
		*sp.id = id
	}
	return t, nil
}

// encode returns the ids of [CLS] text [SEP], cut to at most max ids.
func (t *tokenizer) encode(text string, max int) []int32 {
	ids := []int32{t.cls}
	for _, word := range t.words(text) {
		ids = t.wordPiece(word, ids)
		if len(ids) >= max-1 {
			ids = ids[:max-1]
			break
		}
	}
	return append(ids, t.sep)
}

// words normalizes the text and splits it into whitespace-separated words
// with every punctuation character a word of its own.
func (t *tokenizer) words(text string) []string {
	var b strings.Builder
	for _, r := range text {
		switch {
		case r == 0 || r == unicode.ReplacementChar || (isControl(r) && !unicode.IsSpace(r)):
			continue
		case unicode.IsSpace(r):
			b.WriteByte(' ')
		case isCJK(r) || isPunct(r):
			b.WriteByte(' ')
			b.WriteRune(r)
			b.WriteByte(' ')
		default:
			b.WriteRune(r)
		}
	}
	s := b.String()
	if t.lowercase {
		s = strings.ToLower(s)
	}
	if t.accents {
		s = stripAccents(s)
	}
	return strings.Fields(s)
}

// wordPiece appends the word's pieces: the longest vocabulary entry from
// the start, then the longest continuation, and so on; [UNK] for the
// whole word when some part matches nothing.
func (t *tokenizer) wordPiece(word string, ids []int32) []int32 {
	runes := []rune(word)
	if len(runes) > t.maxChars {
		return append(ids, t.unk)
	}
	mark := len(ids)
	for start := 0; start < len(runes); {
		end := len(runes)
		found := int32(-1)
		for ; end > start; end-- {
			piece := string(runes[start:end])
			if start > 0 {
				piece = t.prefix + piece
			}
			if id, ok := t.vocab[piece]; ok {
				found = id
				break
			}
		}
		if found < 0 {
			return append(ids[:mark], t.unk)
		}
		ids = append(ids, found)
		start = end
	}
	return ids
}

// isControl is BERT's notion: a control or format character; tab,
// newline and carriage return count as whitespace instead.
func isControl(r rune) bool {
	if r == '\t' || r == '\n' || r == '\r' {
		return false
	}
	return unicode.In(r, unicode.Cc, unicode.Cf)
}

// isPunct is BERT's notion: every non-alphanumeric printable ASCII
// character, and Unicode punctuation.
func isPunct(r rune) bool {
	if (r >= 33 && r <= 47) || (r >= 58 && r <= 64) || (r >= 91 && r <= 96) || (r >= 123 && r <= 126) {
		return true
	}
	return unicode.IsPunct(r)
}

// isCJK reports the CJK Unified Ideographs blocks BERT splits per character.
func isCJK(r rune) bool {
	return (r >= 0x4E00 && r <= 0x9FFF) || (r >= 0x3400 && r <= 0x4DBF) ||
		(r >= 0x20000 && r <= 0x2A6DF) || (r >= 0x2A700 && r <= 0x2B73F) ||
		(r >= 0x2B740 && r <= 0x2B81F) || (r >= 0x2B820 && r <= 0x2CEAF) ||
		(r >= 0xF900 && r <= 0xFAFF) || (r >= 0x2F800 && r <= 0x2FA1F)
}

// stripAccents decomposes the text and drops its combining marks.
func stripAccents(s string) string {
	var b strings.Builder
	for _, r := range norm.NFD.String(s) {
		if !unicode.Is(unicode.Mn, r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}
