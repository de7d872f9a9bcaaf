package bert

import (
	"math"
	"testing"
)

func TestExpNegIsCloseToExp(t *testing.T) {
	worst := 0.0
	for x := float32(-90); x <= 0; x += 0.0007 {
		want := math.Exp(float64(x))
		got := float64(expNeg(x))
		if want < 0x1p-126 {
			if got > 0x1p-125 {
				t.Fatalf("expNeg(%v) = %v, want about %v", x, got, want)
			}
			continue
		}
		worst = max(worst, math.Abs(got-want)/want)
	}
	if worst > 3e-7 {
		t.Errorf("expNeg's worst relative error %.3g, want ≤ 3e-7", worst)
	}
}

// TestGeluIsCloseToTheErfForm compares gelu with the float64 erf form
// BERT defines: within 3e-7 of |v| plus a float32 rounding of the result.
func TestGeluIsCloseToTheErfForm(t *testing.T) {
	var xs []float32
	for v := float32(-12); v <= 12; v += 0.0011 {
		xs = append(xs, v)
	}
	got := append([]float32(nil), xs...)
	gelu(got)
	for i, v := range xs {
		want := 0.5 * float64(v) * (1 + math.Erf(float64(v)/math.Sqrt2))
		if d := math.Abs(float64(got[i]) - want); d > 3e-7*math.Abs(float64(v))+6e-8*math.Abs(want) {
			t.Fatalf("gelu(%v) = %v, want %v (off by %.3g)", v, got[i], want, d)
		}
	}
}

// TestKernelsMatchGo checks the assembly gelu and softmax exponentials
// against their Go forms bit for bit, so that a vector does not depend
// on whether the CPU has AVX2 (nor on where a row's floats fall among
// the assembly's groups of eight).
func TestKernelsMatchGo(t *testing.T) {
	if !haveAVX2 {
		t.Skip("no AVX2: the assembly kernels cannot run")
	}
	xs := []float32{0, float32(math.Copysign(0, -1)), 1e-30, -1e-30, 90, -90, -200, 7, -7}
	for v := float32(-20); v <= 20; v += 0.00137 {
		xs = append(xs, v)
	}
	xs = xs[:len(xs)/8*8]
	asm := append([]float32(nil), xs...)
	gelu(asm)
	gold := append([]float32(nil), xs...)
	geluGo(gold)
	for i := range xs {
		if math.Float32bits(asm[i]) != math.Float32bits(gold[i]) {
			t.Fatalf("gelu(%v): assembly %v, Go %v", xs[i], asm[i], gold[i])
		}
	}
	const top, scale = 3.5, 0.17677669
	copy(asm, xs)
	expShifted(asm, top, scale)
	for i, v := range xs {
		if want := expNeg((v - top) * scale); math.Float32bits(asm[i]) != math.Float32bits(want) {
			t.Fatalf("expNeg((%v-top)·scale): assembly %v, Go %v", v, asm[i], want)
		}
	}
}
