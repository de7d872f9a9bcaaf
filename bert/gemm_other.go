//go:build !amd64

package bert

// haveAVX2 says the CPU runs the assembly kernels; only amd64 has them.
const haveAVX2, haveAVX512 = false, false

func tile6x16(a *float32, lda int, b *float32, k int, c *float32, ldc int) {
	panic("bert: no assembly kernels on this architecture")
}

func tile12x32(a *float32, lda int, b *float32, k int, c *float32, ldc int) {
	panic("bert: no assembly kernels on this architecture")
}

func geluAVX2(x []float32) { panic("bert: no assembly kernels on this architecture") }

func expShiftedAVX2(x []float32, top, scale float32) {
	panic("bert: no assembly kernels on this architecture")
}
