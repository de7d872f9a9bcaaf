package analysis

import (
	"github.com/textbook-rag/rag"
	"reflect"
	"slices"
	"testing"
)

func TestTokenize(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"words", "What is a ROS 2 Topic?", []string{"what", "is", "a", "ros", "2", "topic"}},
		{"identifier", "call check_urdf now", []string{"call", "check_urdf", "check", "urdf", "now"}},
		{"range", "10-50 ms", []string{"10", "50", "ms"}},
		{"en dash range", "10–50 ms", []string{"10", "50", "ms"}},
		{"hyphenated", "the sense-think-act loop", []string{"the", "sense-think-act", "sense", "think", "act", "loop"}},
		{"en dashes join as hyphens", "The Sense–Think–Act Loop", []string{"the", "sense-think-act", "sense", "think", "act", "loop"}},
		{"non-breaking hyphen and em dash", "real‑time robots—machines", []string{"real-time", "real", "time", "robots-machines", "robots", "machines"}},
		{"decimal", "mu of 0.5", []string{"mu", "of", "0.5"}},
		{"possessive", "the robot's arm doesn't", []string{"the", "robot", "arm", "doesn"}},
		{"flag", "use --verbose", []string{"use", "verbose"}},
		{"unicode", "Größe 1.8°", []string{"größe", "1.8"}},
		{"greek letters", "If α is 0.9, Δt grows; Ω", []string{"if", "alpha", "is", "0.9", "δt", "grows", "omega"}},
		{"camel case", "class ImuPublisher(Node)", []string{"class", "imupublisher", "imu", "publisher", "node"}},
		{"operators", "What is the difference between == and ===?", []string{"what", "is", "the", "difference", "between", "==", "and", "==="}},
		{"operators in code", "x |> f(); y <- 2; a::b += 1 %>% g", []string{"x", "|>", "f", "y", "<-", "2", "a", "::", "b", "+=", "1", "%>%", "g"}},
		{"no operator in markup or prose", "**bold** -- ~~gone~~ ... ::: $$x$$ https://a.org 1.5-2", []string{"bold", "gone", "x", "https", "a.org", "a", "org", "1.5", "2"}},
		{"qualified name", "PlanValidator.validate_plan", []string{"planvalidator.validate_plan", "validate_plan", "planvalidator", "validate", "plan", "plan", "validator"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, tok := range Tokenize(tt.in) {
				got = append(got, tok.Word)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Tokenize(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestCamelParts(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"ImuPublisher", []string{"imu", "publisher"}},
		{"createPublisher", []string{"create", "publisher"}},
		{"QoS", nil},    // an acronym, not "qo" + "s"
		{"iPhone", nil}, // a one-letter part: a brand spelling
		{"publisher", nil},
	}
	for _, tt := range tests {
		if got := CamelParts([]rune(tt.in)); !slices.Equal(got, tt.want) {
			t.Errorf("CamelParts(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestQualifiedNameBySegments(t *testing.T) {
	bk := NewBook([]rag.Chunk{
		{ID: "a", Text: "pub = node.create_publisher(String, 'chatter', 10)"},
		{ID: "b", Text: "The robot's self test runs at start."},
		{ID: "c", Text: "A static transform never changes."},
	})
	words := func(q string) []string {
		var out []string
		for _, t := range bk.Analyze(q).Terms {
			out = append(out, t.Word)
		}
		return out
	}
	// The book never writes self.create_publisher whole, but it uses
	// both segments: the name is not an unknown word.
	if got, want := words("What does self.create_publisher return?"), []string{"create_publisher", "self", "create", "publisher", "return"}; !reflect.DeepEqual(got, want) {
		t.Errorf("terms = %q, want %q", got, want)
	}
	// An identifier the book never uses stays unknown, parts or not.
	q := bk.Analyze("What is static_transform_publisher?")
	if len(q.Terms) == 0 || q.Terms[0].Known {
		t.Errorf("static_transform_publisher resolved as known: %+v", q.Terms)
	}
}

func TestContractionsAreFunctionWords(t *testing.T) {
	bk := NewBook([]rag.Chunk{{ID: "a", Text: "A topic is a named channel; its messages exist until they arrive."}})
	for _, q := range []string{"Why isn't the topic named?", "What if the topic doesn't exist?", "Which topic won't arrive onto the channel?"} {
		for _, term := range bk.Analyze(q).Terms {
			if !term.Known {
				t.Errorf("%q: %q counts as an unknown subject word", q, term.Word)
			}
		}
	}
}

// Tokenize reads any text without panicking, and every token has a word
// and a stem.
func FuzzTokenize(f *testing.F) {
	for _, s := range []string{"What is == and ===?", "x |> f ::: a::b", "**bold** --- $$", "", "=", "é=>ü", "1.5-2 %>%"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, tok := range Tokenize(s) {
			if tok.Word == "" || tok.Stem == "" {
				t.Fatalf("Tokenize(%q) gave an empty token %+v", s, tok)
			}
		}
	})
}
