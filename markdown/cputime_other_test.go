//go:build !unix

package markdown

// processCPU is not measured here: the benchmarks report 0.
func processCPU() float64 { return 0 }
