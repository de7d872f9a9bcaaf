package answer

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"sync"

	"github.com/textbook-rag/rag/logistic"
)

// Model turns the features (see Features) of a question's candidate
// passages into the probability that quoting each answers the question: a
// conditional logistic regression (package logistic) in which every
// candidate competes with the question's others and with answering
// nothing. Everything in it is fitted by `textbook-rag
// fit` on the labelled books and written to model.json, which the binary
// embeds; nothing in it is chosen by hand.
type Model struct {
	// Features names the vector's entries; it must match Features.
	Features []string `json:"features"`
	// Mean and Scale standardise each feature before it is weighed.
	Mean  []float64 `json:"mean"`
	Scale []float64 `json:"scale"`
	// Weights weigh the standardised features into a candidate's score;
	// None is the score of answering nothing.
	Weights []float64 `json:"weights"`
	None    float64   `json:"none"`
	// Members are the weights fitted with one field's books left out
	// each. The picked section's probability is the least that the model
	// and any member give it (see Pick): where the models fitted on
	// different fields disagree, the book is unlike some of them, and the
	// answer is less sure than the model alone would say.
	Members []Member `json:"members,omitempty"`
	// Threshold is the probability the best passage must reach to be
	// quoted: chosen in leave-one-field-out cross-validation where the
	// held-out picks score best with a wrong answer costing Fit.WrongCost
	// right ones.
	Threshold float64 `json:"threshold"`
	// SelectedThreshold is the score (Answerer.SelectionScore) a reader's
	// selection must reach to answer a question from it: chosen by the
	// fit to score best on the labelled selections (+1 right, 0 refused
	// when it holds the answer, -2 wrong: see eval's wrongCost).
	SelectedThreshold float64 `json:"selected_threshold"`
	// Fit records what the model was fitted on, for the README.
	Fit FitInfo `json:"fit"`
}

// Member is one field's held-out weights (see Model.Members).
type Member struct {
	// Without names the field whose books the member was not fitted on.
	Without string    `json:"without"`
	Mean    []float64 `json:"mean"`
	Scale   []float64 `json:"scale"`
	Weights []float64 `json:"weights"`
	None    float64   `json:"none"`
}

// FitInfo describes a model's training run.
type FitInfo struct {
	Books     []string `json:"books"`
	Questions int      `json:"questions"`
	Pairs     int      `json:"pairs"`
	Positives int      `json:"positives"`
	L2        float64  `json:"l2"`
	// WrongCost is what a wrong answer cost, in right answers, when the
	// threshold was chosen.
	WrongCost float64 `json:"wrong_cost"`
}

//go:embed model.json
var modelJSON []byte

var defaultModel = sync.OnceValues(func() (*Model, error) { return ParseModel(modelJSON) })

// model-meaning.json is the model fitted with a sentence model's
// features (MeaningFeatures) beside the word features; `textbook-rag fit`
// writes it when a sentence model is set.
//
//go:embed model-meaning.json
var meaningModelJSON []byte

var defaultMeaningModel = sync.OnceValues(func() (*Model, error) {
	m, err := ParseModel(meaningModelJSON)
	if err == nil && !m.Meaning() {
		err = fmt.Errorf("model-meaning.json weighs no meaning features: refit with `textbook-rag fit` and a sentence model")
	}
	return m, err
})

// Meaning reports whether the model weighs the meaning features too.
func (m *Model) Meaning() bool { return len(m.Features) > nFeatures }

// DefaultModel is the embedded model, fitted on the shared books. When
// the embedded file does not fit the features the answerer computes (the
// features changed and the model was not refitted), it is a model that
// answers nothing: a stale model must refuse, not guess. The fit command
// does not need a model, and a test fails on a stale one
// (EmbeddedModelError).
func DefaultModel() *Model {
	if m, err := defaultModel(); err == nil {
		return m
	}
	m := ZeroModel()
	m.Threshold, m.SelectedThreshold = 1, 1
	return m
}

// EmbeddedModelError says why the embedded model cannot be used, or nil.
func EmbeddedModelError() error {
	_, err := defaultModel()
	return err
}

// ParseModel reads a model file and checks it against Features.
func ParseModel(data []byte) (*Model, error) {
	var m Model
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("parse model: %w", err)
	}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return &m, nil
}

// Validate checks that the model weighs exactly the features the
// answerer computes, in the same order.
func (m *Model) Validate() error {
	want := FeatureNames()
	if len(m.Features) > nFeatures {
		want = MeaningFeatureNames()
	}
	n := len(want)
	if len(m.Features) != n || len(m.Mean) != n || len(m.Scale) != n || len(m.Weights) != n {
		return fmt.Errorf("model has %d features (%d means, %d scales, %d weights); the answerer computes %d: refit with `textbook-rag fit`",
			len(m.Features), len(m.Mean), len(m.Scale), len(m.Weights), n)
	}
	for i, name := range want {
		if m.Features[i] != name {
			return fmt.Errorf("model feature %d is %q, the answerer's is %q: refit with `textbook-rag fit`", i, m.Features[i], name)
		}
		if m.Scale[i] <= 0 || math.IsNaN(m.Weights[i]) {
			return fmt.Errorf("model feature %q has scale %v and weight %v", name, m.Scale[i], m.Weights[i])
		}
	}
	for _, mb := range m.Members {
		if len(mb.Mean) != n || len(mb.Scale) != n || len(mb.Weights) != n {
			return fmt.Errorf("model member without %q has %d weights; the answerer computes %d: refit with `textbook-rag fit`", mb.Without, len(mb.Weights), n)
		}
		for i, sc := range mb.Scale {
			if sc <= 0 || math.IsNaN(mb.Weights[i]) {
				return fmt.Errorf("model member without %q: feature %q has scale %v and weight %v", mb.Without, want[i], sc, mb.Weights[i])
			}
		}
	}
	if m.Threshold < 0 || m.Threshold > 1 {
		return fmt.Errorf("model threshold %v is not a probability", m.Threshold)
	}
	if m.SelectedThreshold <= 0 || m.SelectedThreshold > 1 {
		return fmt.Errorf("model selected-text threshold %v is not in (0, 1]: refit with `textbook-rag fit`", m.SelectedThreshold)
	}
	return nil
}

// Probs gives each of a question's candidates (feature vectors) the
// probability that quoting it answers.
func (m *Model) Probs(xs [][]float64) []float64 {
	return logistic.Fitted{Mean: m.Mean, Scale: m.Scale, Weights: m.Weights, None: m.None}.Probs(xs)
}

// Pick chooses, as the package's Pick does with the model's probabilities
// (probs, from Probs(xs)), the candidate to quote, and says how probable
// it is that its section answers: the least of that section's
// probability under the model and under each member.
func (m *Model) Pick(xs [][]float64, probs []float64, sections []string) (int, float64) {
	best, p := Pick(probs, sections)
	for _, mb := range m.Members {
		q := 0.0
		for i, pi := range (logistic.Fitted{Mean: mb.Mean, Scale: mb.Scale, Weights: mb.Weights, None: mb.None}).Probs(xs) {
			if sections[i] == sections[best] {
				q += pi
			}
		}
		p = min(p, q)
	}
	return best, p
}

// Judge picks a question's candidate to quote (xs their feature
// vectors, sections what each one's probability adds up with) and says
// how confident the answerer is that quoting it answers: the number its
// threshold is set on.
func (m *Model) Judge(xs [][]float64, sections []string) (int, float64) {
	return m.Pick(xs, m.Probs(xs), sections)
}

// FeatureNames lists Features' names in vector order.
func FeatureNames() []string {
	names := make([]string, nFeatures)
	for i, f := range Features {
		names[i] = f.Name
	}
	return names
}

// MeaningFeatureNames lists Features' names, then MeaningFeatures'.
func MeaningFeatureNames() []string {
	names := FeatureNames()
	for _, f := range MeaningFeatures {
		names = append(names, f.Name)
	}
	return names
}

// ZeroModel weighs nothing: a question's candidates and answering
// nothing are equally likely. It is the
// starting point of a fit, whose features and labels do not depend on
// the model.
func ZeroModel() *Model {
	m := &Model{Features: FeatureNames(), Mean: make([]float64, nFeatures), Scale: make([]float64, nFeatures), Weights: make([]float64, nFeatures), Threshold: 0.5, SelectedThreshold: 0.5}
	for i := range m.Scale {
		m.Scale[i] = 1
	}
	return m
}

// ModelDigest names the embedded model's file: what the answerer decides
// changes with it, so a result kept from an earlier model is stale.
func ModelDigest() string {
	sum := sha256.Sum256(modelJSON)
	return hex.EncodeToString(sum[:8])
}
