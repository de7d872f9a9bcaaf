package bert

import "golang.org/x/sys/cpu"

// haveAVX2 says the CPU runs the assembly kernels (AVX2 with FMA).
var haveAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// haveAVX512 says the CPU runs tile12x32 too.
var haveAVX512 = haveAVX2 && cpu.X86.HasAVX512F

//go:noescape
func tile6x16(a *float32, lda int, b *float32, k int, c *float32, ldc int)

//go:noescape
func tile12x32(a *float32, lda int, b *float32, k int, c *float32, ldc int)

//go:noescape
func geluAVX2(x []float32)

//go:noescape
func expShiftedAVX2(x []float32, top, scale float32)
