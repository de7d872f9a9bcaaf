package bert

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/viterin/vek/vek32"
)

// TestMulMatchesVek checks the tiled product against vek32.MatMul_Into,
// the product the encoder used before: with the assembly kernel the two
// must agree to the bit (the vectors cached on disk stay valid), with the
// Go kernel to float32 rounding; and so for every shape a tile can be cut
// into, on one goroutine or several.
func TestMulMatchesVek(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, m := range []int{1, 2, 5, 6, 7, 12, 13, 25, 30} {
		for _, k := range []int{1, 7, 32, 384} {
			for _, cols := range []int{2, 15, 16, 17, 40, 48, 64} {
				a, b := randomFloats(rng, m*k), randomFloats(rng, k*cols)
				want := make([]float32, m*cols)
				vek32.MatMul_Into(want, a, b, k)
				for _, workers := range []int{1, 3} {
					name := fmt.Sprintf("%dx%dx%d/%d", m, k, cols, workers)
					got := make([]float32, m*cols)
					var pad []float32
					mul(got, cols, a, k, m, pack(nil, b, k, cols, cols, 1), workers, &pad)
					if haveAVX2 && !slices.Equal(got, want) {
						t.Errorf("%s: the product differs from vek's", name)
					}
					for i := range got {
						if d := math.Abs(float64(got[i] - want[i])); d > 1e-5*float64(k) {
							t.Fatalf("%s: element %d is %v, want %v", name, i, got[i], want[i])
						}
					}
				}
			}
		}
	}
}

// TestTileGoMatchesTheKernel checks the Go tile, which CPUs without AVX2
// run, against the assembly one.
func TestTileGoMatchesTheKernel(t *testing.T) {
	if !haveAVX2 {
		t.Skip("no AVX2 and FMA: the assembly kernel cannot run")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	const k, lda = 50, 60
	a, panel := randomFloats(rng, tileRows*lda), randomFloats(rng, k*panelCols)
	asm := make([]float32, tileRows*panelCols)
	gold := make([]float32, tileRows*panelCols)
	tile(a, lda, panel, k, asm, panelCols)
	tileGo(a, lda, panel, k, gold, panelCols)
	for i := range asm {
		if d := math.Abs(float64(asm[i] - gold[i])); d > 1e-6 {
			t.Errorf("element %d: Go %v, assembly %v", i, gold[i], asm[i])
		}
	}
}

// randomFloats returns n numbers in [-1, 1).
func randomFloats(rng *rand.Rand, n int) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = rng.Float32()*2 - 1
	}
	return out
}

// TestMulRaisesAHelpersPanicInTheCaller gives a product split over
// goroutines a result slice too short: the panic must reach the caller,
// where Embed's workers recover it, not end the process.
func TestMulRaisesAHelpersPanicInTheCaller(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const m, k, cols = 12, 8, 64
	b := pack(nil, randomFloats(rng, k*cols), k, cols, cols, 1)
	defer func() {
		if recover() == nil {
			t.Fatal("mul with a short result: no panic in the caller")
		}
	}()
	var pad []float32
	mul(make([]float32, cols), cols, randomFloats(rng, m*k), k, m, b, 2, &pad)
}
