//go:build !amd64

package bert

// haveTile says the CPU runs the assembly tile kernel; only amd64 has one.
const haveTile = false

func tile6x16(a *float32, lda int, b *float32, k int, c *float32, ldc int) {
	panic("bert: no assembly tile kernel on this architecture")
}
