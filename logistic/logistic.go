// Package logistic fits a conditional logistic regression (a multinomial
// logit over each question's own candidates) with gonum's L-BFGS. Each
// question offers some candidates and the choice of none; the fitted
// probability of a candidate is
//
//	p(c) = exp(s(c)) / (exp(None) + Σ exp(s(c')))
//	s(c) = Σ Weights[i]·(x[i]−Mean[i])/Scale[i]
//
// so a candidate is weighed against the question's other candidates and
// against answering nothing at all. The fit is deterministic: the same
// groups give the same weights.
package logistic

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/optimize"
)

// Fitted is a fitted choice model on standardised features.
type Fitted struct {
	Mean, Scale, Weights []float64
	// None is the score of choosing no candidate.
	None float64
}

// Score is a candidate's score s(x).
func (f Fitted) Score(x []float64) float64 {
	s := 0.0
	for i, v := range x {
		s += f.Weights[i] * (v - f.Mean[i]) / f.Scale[i]
	}
	return s
}

// Probs gives each of a group's candidates its probability of being the
// right choice; what they leave of 1 is the probability of none.
func (f Fitted) Probs(group [][]float64) []float64 {
	s := make([]float64, len(group))
	for i, x := range group {
		s[i] = f.Score(x)
	}
	return Softmax(f.None, s)
}

// Softmax returns exp(s[i]) / (exp(none) + Σ exp(s)), computed without
// overflow.
func Softmax(none float64, s []float64) []float64 {
	top := none
	for _, v := range s {
		top = max(top, v)
	}
	sum := math.Exp(none - top)
	p := make([]float64, len(s))
	for i, v := range s {
		p[i] = math.Exp(v - top)
		sum += p[i]
	}
	for i := range p {
		p[i] /= sum
	}
	return p
}

// gradientThreshold stops the fit when no weight's gradient exceeds it.
// The loss is a sum over questions and the L2 term keeps its curvature
// at least l2 (1 or more), so a gradient of 1e-4 leaves each weight
// within about 1e-4 of the optimum, far below what moves a pick.
const gradientThreshold = 1e-4

// Group is one question: its candidates' features and which of them are
// right. A group without a right candidate is one whose right choice is
// none.
type Group struct {
	X     [][]float64
	Right []bool
}

// Fit maximises the likelihood of the right choices (any right candidate
// of a group, or none when it has no right candidate) minus l2/2 times
// the squared weights. A feature that never varies gets scale 1 and
// weight 0.
func Fit(groups []Group, l2 float64) (Fitted, error) {
	var d, n int
	for gi, g := range groups {
		if len(g.X) != len(g.Right) {
			return Fitted{}, fmt.Errorf("fit: group %d has %d candidates and %d labels", gi, len(g.X), len(g.Right))
		}
		for _, x := range g.X {
			if d == 0 {
				d = len(x)
			}
			if len(x) != d {
				return Fitted{}, fmt.Errorf("fit: rows of %d and %d features", d, len(x))
			}
			for _, v := range x {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return Fitted{}, errors.New("fit: a feature is not a finite number")
				}
			}
			n++
		}
	}
	if n == 0 {
		return Fitted{}, errors.New("fit: no candidates")
	}
	f := Fitted{Mean: make([]float64, d), Scale: make([]float64, d), Weights: make([]float64, d)}
	for _, g := range groups {
		for _, x := range g.X {
			for i, v := range x {
				f.Mean[i] += v / float64(n)
			}
		}
	}
	for _, g := range groups {
		for _, x := range g.X {
			for i, v := range x {
				f.Scale[i] += (v - f.Mean[i]) * (v - f.Mean[i]) / float64(n)
			}
		}
	}
	for i := range f.Scale {
		f.Scale[i] = math.Sqrt(f.Scale[i])
		if f.Scale[i] < 1e-9 {
			f.Scale[i] = 1
		}
	}
	// The standardised rows, one after another in one slice (row r is
	// z[r*d:(r+1)*d]) and first[gi] the first row of group gi: the loss
	// below walks them thousands of times, and one slice keeps the walk
	// in order in memory.
	z := make([]float64, 0, n*d)
	first := make([]int, len(groups)+1)
	for gi, g := range groups {
		first[gi+1] = first[gi] + len(g.X)
		for _, x := range g.X {
			for i, v := range x {
				z = append(z, (v-f.Mean[i])/f.Scale[i])
			}
		}
	}
	// w[0] is None, w[1:] the weights. Loss and gradient together: for
	// each group, −log P(right) with P over none and its candidates.
	eval := func(w, grad []float64) float64 {
		if grad != nil {
			clear(grad)
		}
		weights := w[1 : d+1]
		var dw []float64
		if grad != nil {
			dw = grad[1 : d+1]
		}
		// addRow adds c times row r to the weights' gradient.
		addRow := func(r int, c float64) {
			x := z[r*d : (r+1)*d]
			dw := dw[:len(x)]
			for i, xi := range x {
				dw[i] += c * xi
			}
		}
		total := 0.0
		s := []float64{}
		for gi, g := range groups {
			s = s[:0]
			for r := first[gi]; r < first[gi+1]; r++ {
				x := z[r*d : (r+1)*d]
				ws := weights[:len(x)]
				v := 0.0
				for i, xi := range x {
					v += ws[i] * xi
				}
				s = append(s, v)
			}
			p := Softmax(w[0], s)
			pNone := 1.0
			for _, v := range p {
				pNone -= v
			}
			// q: the posterior over the right choices.
			right := 0.0
			for ci, r := range g.Right {
				if r {
					right += p[ci]
				}
			}
			if right == 0 {
				// The right choice is none.
				total -= math.Log(max(pNone, 1e-300))
				if grad != nil {
					grad[0] -= 1 - pNone
					for ci := range p {
						addRow(first[gi]+ci, p[ci])
					}
				}
				continue
			}
			total -= math.Log(max(right, 1e-300))
			if grad != nil {
				grad[0] += pNone
				for ci := range p {
					q := 0.0
					if g.Right[ci] {
						q = p[ci] / right
					}
					addRow(first[gi]+ci, p[ci]-q)
				}
			}
		}
		for i, v := range w[1:] {
			total += l2 / 2 * v * v
			if grad != nil {
				grad[i+1] += l2 * v
			}
		}
		return total
	}
	// The line search asks for the loss and then the gradient at the same
	// point: both come from one pass over the groups, kept for the point
	// it was made at.
	var at, grad []float64
	var loss float64
	both := func(w []float64) {
		if at != nil && slices.Equal(at, w) {
			return
		}
		at, grad = append(at[:0], w...), make([]float64, len(w))
		loss = eval(w, grad)
	}
	res, err := optimize.Minimize(optimize.Problem{
		Func: func(w []float64) float64 { both(w); return loss },
		Grad: func(g, w []float64) { both(w); copy(g, grad) },
	}, make([]float64, d+1), &optimize.Settings{GradientThreshold: gradientThreshold, MajorIterations: 2000}, &optimize.LBFGS{})
	if err != nil && res == nil {
		return Fitted{}, fmt.Errorf("fit: %w", err)
	}
	f.None = res.X[0]
	copy(f.Weights, res.X[1:])
	return f, nil
}
