package answer

import (
	"reflect"
	"testing"

	"github.com/textbook-rag/rag/analysis"
)

// focusAlone is definitionFocus as it was before the question was read
// once: the term tokenized alone.
func focusAlone(question string) (f focusTerm, ok bool) {
	var x string
	if m := focusXMean.FindStringSubmatch(question); m != nil {
		x = m[1]
	} else if m := focusIsX.FindStringSubmatch(question); m != nil {
		x = m[1]
	}
	for _, t := range analysis.Tokenize(x) {
		if t.Part {
			continue
		}
		if analysis.Stopwords[t.Word] || analysis.QuestionWords[t.Word] {
			return focusTerm{}, false
		}
		f.stems = append(f.stems, t.Stem)
		f.head = t.Stem
	}
	return f, f.head != ""
}

// TestDefinitionFocusFromTokens: the term a definition question asks
// about is read from the question's own tokens, and is the term reading
// it alone gave, whatever it is written with.
func TestDefinitionFocusFromTokens(t *testing.T) {
	ans := newAnswerer(testChunks)
	for _, q := range []string{
		"What is a ROS 2 topic?",
		"what is the ImuPublisher's QoS profile in Gazebo?",
		"Define node.create_publisher.",
		"What does C++ mean?",
		"In the glossary, what is a α-β filter?",
		"What is 'latency'?!",
		"What's a do-while loop",
		"what are the differences between a topic and a service?",
		"What does SLAM stand for in robotics?",
		"Explain what check_urdf does",
		"How do I launch Gazebo?",
		"what is é-commerce…?",
	} {
		gotF, gotOK := definitionFocus(ans.Read(q))
		wantF, wantOK := focusAlone(q)
		if gotOK != wantOK || !reflect.DeepEqual(gotF, wantF) {
			t.Errorf("definitionFocus(%q) = %+v %v, want %+v %v as read alone", q, gotF, gotOK, wantF, wantOK)
		}
	}
}
