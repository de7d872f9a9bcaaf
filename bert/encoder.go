package bert

import (
	"fmt"
	"math"

	"github.com/viterin/vek/vek32"
)

// weights are the encoder's tensors. PyTorch keeps a linear map as
// [out][in]; it is packed once at load into the panels the matrix
// product reads (the same floats, laid out anew).
type weights struct {
	word, position, tokenType []float32
	embNorm                   layerNorm
	layers                    []layer
}

type layer struct {
	query, key, value, attnOut linear
	attnNorm                   layerNorm
	up, down                   linear
	outNorm                    layerNorm
}

type linear struct {
	w       packed    // in×out
	raw     []float32 // [out][in] as read, until packed
	b       []float32
	in, out int
}

type layerNorm struct{ gain, bias []float32 }

// weights reads the tensors the config names from st. Every tensor is
// looked up and its shape checked against the config first, so that a
// config or a file that disagree with each other fail before any tensor
// is allocated.
func (c config) weights(st *safetensors) (weights, error) {
	type slot struct {
		name  string
		shape []int
		dst   *[]float32
	}
	var slots []slot
	var w weights
	add := func(name string, dst *[]float32, shape ...int) {
		slots = append(slots, slot{name, shape, dst})
	}
	h := c.Hidden
	norm := func(prefix string, nm *layerNorm) {
		add(prefix+".weight", &nm.gain, h)
		add(prefix+".bias", &nm.bias, h)
	}
	lin := func(prefix string, l *linear, out, in int) {
		*l = linear{in: in, out: out}
		add(prefix+".weight", &l.raw, out, in)
		add(prefix+".bias", &l.b, out)
	}
	add("embeddings.word_embeddings.weight", &w.word, c.Vocab, h)
	add("embeddings.position_embeddings.weight", &w.position, c.MaxPositions, h)
	add("embeddings.token_type_embeddings.weight", &w.tokenType, c.TypeVocab, h)
	norm("embeddings.LayerNorm", &w.embNorm)
	w.layers = make([]layer, c.Layers)
	for i := range w.layers {
		p, l := fmt.Sprintf("encoder.layer.%d.", i), &w.layers[i]
		lin(p+"attention.self.query", &l.query, h, h)
		lin(p+"attention.self.key", &l.key, h, h)
		lin(p+"attention.self.value", &l.value, h, h)
		lin(p+"attention.output.dense", &l.attnOut, h, h)
		norm(p+"attention.output.LayerNorm", &l.attnNorm)
		lin(p+"intermediate.dense", &l.up, c.Intermediate, h)
		lin(p+"output.dense", &l.down, h, c.Intermediate)
		norm(p+"output.LayerNorm", &l.outNorm)
	}
	infos := make([]tensorInfo, len(slots))
	var total uint64
	for i, s := range slots {
		name, t, err := st.lookup(s.name, s.shape...)
		if err != nil {
			return weights{}, err
		}
		slots[i].name, infos[i] = name, t
		total += t.Offsets[1] - t.Offsets[0]
	}
	if total > maxWeights {
		return weights{}, fmt.Errorf("%w: %d bytes", errTooLarge, total)
	}
	for i, s := range slots {
		data, err := st.read(s.name, infos[i])
		if err != nil {
			return weights{}, err
		}
		*s.dst = data
	}
	for i := range w.layers {
		l := &w.layers[i]
		for _, lin := range []*linear{&l.query, &l.key, &l.value, &l.attnOut, &l.up, &l.down} {
			lin.w = pack(nil, lin.raw, lin.in, lin.out, 1, lin.in)
			lin.raw = nil
		}
	}
	return w, nil
}

// scratch holds one worker's buffers, reused from text to text, and how
// many goroutines its matrix products may use.
type scratch struct {
	x, q, k, v, ctx, tmp, up []float32
	kT, vp, scores, pad      []float32
	workers                  int
}

func grow(buf []float32, n int) []float32 {
	if cap(buf) < n {
		return make([]float32, n)
	}
	return buf[:n]
}

// encode runs the encoder over a batch of texts' ids and pools each
// text's tokens. The texts' rows are stacked, so that each linear map is
// one matrix product over all of them: a short text (a heading, a
// question) alone gives the product too few rows to use the cores well.
// Attention stays within a text. Each row's arithmetic is the same as
// when its text is encoded alone, so a vector does not depend on its
// batch.
func (m *Model) encode(s *scratch, seqs [][]int32) [][]float32 {
	c, w := m.cfg, m.w
	h := c.Hidden
	rows := 0
	for _, ids := range seqs {
		rows += len(ids)
	}
	s.x = grow(s.x, rows*h)
	r := 0
	for _, ids := range seqs {
		for t, id := range ids {
			row := s.x[r*h : (r+1)*h]
			word := w.word[int(id)*h : (int(id)+1)*h]
			pos := w.position[t*h : (t+1)*h]
			for j := range row {
				row[j] = word[j] + pos[j] + w.tokenType[j]
			}
			r++
		}
	}
	w.embNorm.apply(s.x, h, c.Eps)
	for _, l := range w.layers {
		m.attend(s, l, seqs, rows)
		s.up = grow(s.up, rows*c.Intermediate)
		l.up.apply(s, s.up, s.x, rows)
		gelu(s.up)
		s.tmp = grow(s.tmp, rows*h)
		l.down.apply(s, s.tmp, s.up, rows)
		vek32.Add_Inplace(s.x, s.tmp)
		l.outNorm.apply(s.x, h, c.Eps)
	}
	out := make([][]float32, len(seqs))
	r = 0
	for i, ids := range seqs {
		out[i] = pool(s.x[r*h:(r+len(ids))*h], h)
		r += len(ids)
	}
	return out
}

// pool is the unit mean of a text's token states.
func pool(x []float32, h int) []float32 {
	out := make([]float32, h)
	n := len(x) / h
	for t := range n {
		vek32.Add_Inplace(out, x[t*h:(t+1)*h])
	}
	var sum float64
	for j := range out {
		out[j] /= float32(n)
		sum += float64(out[j]) * float64(out[j])
	}
	if sum > 0 {
		vek32.MulNumber_Inplace(out, float32(1/math.Sqrt(sum)))
	}
	return out
}

// attend adds self-attention's output to s.x and normalizes it. Each
// head's scores and mix are matrix products over that head's columns,
// within one text.
func (m *Model) attend(s *scratch, l layer, seqs [][]int32, rows int) {
	h, heads := m.cfg.Hidden, m.cfg.Heads
	d := h / heads
	s.q, s.k, s.v = grow(s.q, rows*h), grow(s.k, rows*h), grow(s.v, rows*h)
	l.query.apply(s, s.q, s.x, rows)
	l.key.apply(s, s.k, s.x, rows)
	l.value.apply(s, s.v, s.x, rows)
	s.ctx = grow(s.ctx, rows*h)
	scale := float32(1 / math.Sqrt(float64(d)))
	first := 0
	for _, ids := range seqs {
		n := len(ids)
		q, k, v := s.q[first*h:(first+n)*h], s.k[first*h:(first+n)*h], s.v[first*h:(first+n)*h]
		ctx := s.ctx[first*h : (first+n)*h]
		first += n
		s.scores = grow(s.scores, n*n)
		for hd := range heads {
			off := hd * d
			kT := pack(s.kT, k[off:], d, n, 1, h)
			s.kT = kT.data
			mul(s.scores, n, q[off:], h, n, kT, 1, &s.pad)
			for i := range n {
				softmax(s.scores[i*n:(i+1)*n], scale)
			}
			vp := pack(s.vp, v[off:], n, d, h, 1)
			s.vp = vp.data
			mul(ctx[off:], h, s.scores, n, n, vp, 1, &s.pad)
		}
	}
	s.tmp = grow(s.tmp, rows*h)
	l.attnOut.apply(s, s.tmp, s.ctx, rows)
	vek32.Add_Inplace(s.x, s.tmp)
	l.attnNorm.apply(s.x, h, m.cfg.Eps)
}

// softmax turns a row of raw scores, scaled, into weights summing to 1.
func softmax(row []float32, scale float32) {
	top := vek32.Max(row)
	expShifted(row, top, scale)
	var total float32
	for _, e := range row {
		total += e
	}
	vek32.MulNumber_Inplace(row, 1/total)
}

// apply writes x·W + b for n rows of x into dst.
func (l linear) apply(s *scratch, dst, x []float32, n int) {
	mul(dst, l.out, x, l.in, n, l.w, s.workers, &s.pad)
	for i := range n {
		vek32.Add_Inplace(dst[i*l.out:(i+1)*l.out], l.b)
	}
}

// apply normalizes each row of x to zero mean and unit variance, then
// scales and shifts it.
func (nm layerNorm) apply(x []float32, h int, eps float64) {
	for r := 0; r < len(x); r += h {
		row := x[r : r+h]
		var mean, sq float64
		for _, v := range row {
			mean += float64(v)
		}
		mean /= float64(h)
		for _, v := range row {
			dv := float64(v) - mean
			sq += dv * dv
		}
		inv := 1 / math.Sqrt(sq/float64(h)+eps)
		for j, v := range row {
			row[j] = float32((float64(v)-mean)*inv)*nm.gain[j] + nm.bias[j]
		}
	}
}
