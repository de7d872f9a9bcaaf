package bert

import "golang.org/x/sys/cpu"

// haveTile says the CPU runs tile6x16 (AVX2 with FMA).
var haveTile = cpu.X86.HasAVX2 && cpu.X86.HasFMA

//go:noescape
func tile6x16(a *float32, lda int, b *float32, k int, c *float32, ldc int)
