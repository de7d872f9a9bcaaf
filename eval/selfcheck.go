package eval

import (
	"context"
	"fmt"
	"math"

	"github.com/textbook-rag/rag"
	"github.com/textbook-rag/rag/answer"
	"github.com/textbook-rag/rag/internal/count"
)

// SelfCheck is how the tutor does on questions derived from the book
// itself (answer.Probe): every book gets one, labelled or not.
type SelfCheck struct {
	Questions int `json:"questions"`
	// Derived is how many questions the book gave; at most
	// MaxSelfCheckQuestions of them, spread over the book, were asked.
	Derived int `json:"derived,omitempty"`
	// Own: answered, citing a section that answers the question;
	// Other: answered from other sections only; the rest were refused.
	Own   int `json:"own_section"`
	Other int `json:"other_section"`
}

// OwnShare and OtherShare are Own and Other as shares of the questions.
func (s SelfCheck) OwnShare() float64   { return share(s.Own, s.Questions) }
func (s SelfCheck) OtherShare() float64 { return share(s.Other, s.Questions) }

// OwnShareUpper is the upper end of the Wilson score interval for the
// own-section share at z standard deviations (1.96 for 95%): a floor on a
// book's share is missed only when even this bound lies below it, so a
// book with a handful of derived questions is not failed on chance.
func (s SelfCheck) OwnShareUpper(z float64) float64 {
	if s.Questions == 0 {
		return 1
	}
	n := float64(s.Questions)
	p := s.OwnShare()
	centre := p + z*z/(2*n)
	spread := z * math.Sqrt(p*(1-p)/n+z*z/(4*n*n))
	return math.Min(1, math.Max(p, (centre+spread)/(1+z*z/n)))
}

func share(n, of int) float64 {
	if of == 0 {
		return 0
	}
	return float64(n) / float64(of)
}

// String is the line ingest and serve print. A book that defines no term
// in so many words gives no question, and no share to print.
func (s SelfCheck) String() string {
	if s.Questions == 0 {
		return "self-check: no question derived: the book sets no term in bold or italics and defines it in a sentence"
	}
	sample := ""
	if s.Derived > s.Questions {
		sample = fmt.Sprintf(" (a sample of the %d it gives)", s.Derived)
	}
	return fmt.Sprintf("self-check: %s derived from the book's definitions%s; %.1f%% answered from their own section, %.1f%% from another",
		count.Of(s.Questions, "question"), sample, 100*s.OwnShare(), 100*s.OtherShare())
}

// MaxSelfCheckQuestions bounds the self-check's time and memory whatever
// the book holds: a book with 100,000 defined terms is sampled, not asked
// 100,000 questions at every start.
const MaxSelfCheckQuestions = 300

// SampleProbes returns at most n probes spread evenly over the book
// order of probes, first included; all of them when there are no more.
func SampleProbes(probes []answer.Probe, n int) []answer.Probe {
	if n <= 0 || len(probes) <= n {
		return probes
	}
	out := make([]answer.Probe, n)
	for i := range out {
		out[i] = probes[i*len(probes)/n]
	}
	return out
}

// RunSelfCheck asks the tutor every probe and counts where the answers
// come from. chunk looks a source's chunk up by id.
func RunSelfCheck(ctx context.Context, tutor rag.Tutor, probes []answer.Probe, chunk func(id string) (rag.Chunk, bool)) (SelfCheck, error) {
	var s SelfCheck
	for i, p := range probes {
		if err := ctx.Err(); err != nil {
			return s, err
		}
		req := rag.ChatRequest{Question: p.Question, SessionID: sessionID(fmt.Sprintf("self-check-%d", i))}
		if err := req.Normalize(); err != nil {
			continue // a derived question the API would not take is no test
		}
		s.Questions++
		resp, err := tutor.Ask(ctx, req, nil)
		if err != nil {
			return s, fmt.Errorf("self-check %q: %w", p.Question, err)
		}
		if resp.WasRefusal {
			continue
		}
		if citesAny(resp.Sources, p.Sections, chunk) {
			s.Own++
		} else {
			s.Other++
		}
	}
	return s, nil
}

// citesAny reports whether a source lies in one of the sections
// ("chapter › heading").
func citesAny(sources []rag.Source, sections []string, chunk func(string) (rag.Chunk, bool)) bool {
	for _, src := range sources {
		c, ok := chunk(src.ChunkID)
		if !ok {
			continue
		}
		for _, sec := range sections {
			if sec == c.ChapterPath+" › "+src.SectionHeading {
				return true
			}
		}
	}
	return false
}
