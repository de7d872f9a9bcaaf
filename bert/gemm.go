package bert

import (
	"math"
	"sync"
	"unsafe"
)

// The matrix products run on tiles of tileRows rows of the left matrix
// and panelCols columns of the right one, packed so that the tile kernel
// reads them in order. Every product is the fused multiply-adds of its
// terms in order from zero, as vek32.MatMul_Into computed them before,
// so that vectors stay bit-identical to the ones already cached; and a
// row's result never depends on the other rows of its tile, so a text's
// vector does not depend on its batch.
const (
	tileRows  = 6
	wideRows  = 12
	panelCols = 16
)

// packed is a matrix of rows×cols in column panels of panelCols: panel p
// holds, row by row, columns p·panelCols up to the next panel's, the
// last one padded with zeros.
type packed struct {
	data       []float32
	rows, cols int
}

func (b packed) panels() int { return (b.cols + panelCols - 1) / panelCols }

// pack lays out the rows×cols matrix whose element (i, j) is
// src[i·rowStride + j·colStride] as panels, reusing buf.
func pack(buf, src []float32, rows, cols, rowStride, colStride int) packed {
	n := (cols + panelCols - 1) / panelCols * panelCols * rows
	if cap(buf) < n {
		buf = make([]float32, n)
	}
	buf = buf[:n]
	for p := 0; p*panelCols < cols; p++ {
		out := buf[p*panelCols*rows:]
		for i := range rows {
			row := out[i*panelCols : (i+1)*panelCols]
			for j := range row {
				c := p*panelCols + j
				if c < cols {
					row[j] = src[i*rowStride+c*colStride]
				} else {
					row[j] = 0
				}
			}
		}
	}
	return packed{data: buf, rows: rows, cols: cols}
}

// mul writes a·b into c for m rows of a, whose rows are lda floats apart
// (c's ldc apart), using up to workers goroutines over b's panels. pad is
// the caller's buffer for a product of fewer than tileRows rows.
func mul(c []float32, ldc int, a []float32, lda, m int, b packed, workers int, pad *[]float32) {
	if m == 0 {
		return
	}
	if m < tileRows {
		// Too few rows for a tile: run one on a copy padded with zero
		// rows, and keep the first m rows of its results.
		*pad = grow(*pad, tileRows*b.rows)
		p := *pad
		clear(p)
		for r := range m {
			copy(p[r*b.rows:(r+1)*b.rows], a[r*lda:r*lda+b.rows])
		}
		a, lda = p, b.rows
	}
	panels := b.panels()
	workers = max(1, min(workers, panels))
	if workers == 1 {
		mulPanels(c, ldc, a, lda, m, b, 0, panels)
		return
	}
	// A panic (a bug) in a helper goroutine is raised again here, in the
	// caller's, whose recover turns it into Embed's error.
	var wg sync.WaitGroup
	var once sync.Once
	var failure any
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if r := recover(); r != nil {
					once.Do(func() { failure = r })
				}
			}()
			mulPanels(c, ldc, a, lda, m, b, w*panels/workers, (w+1)*panels/workers)
		}()
	}
	wg.Wait()
	if failure != nil {
		panic(failure)
	}
}

// mulPanels runs the tiles of panels [from, to): two panels at a time
// in tiles of wideRows rows where the CPU has AVX-512, and the rest in
// tiles of tileRows.
func mulPanels(c []float32, ldc int, a []float32, lda, m int, b packed, from, to int) {
	for p := from; p < to; p++ {
		col := p * panelCols
		if !haveAVX512 || m < wideRows || p+1 >= to || b.cols < col+2*panelCols {
			narrow(c, ldc, a, lda, m, b, p, 0)
			continue
		}
		pair := b.data[p*panelCols*b.rows : (p+2)*panelCols*b.rows]
		r := 0
		for ; r+wideRows <= m; r += wideRows {
			wide(a[r*lda:], lda, pair, b.rows, c[r*ldc+col:], ldc)
		}
		narrow(c, ldc, a, lda, m, b, p, r)
		narrow(c, ldc, a, lda, m, b, p+1, r)
		p++
	}
}

// narrow runs panel p's tiles of tileRows over rows [from, m). A last
// partial tile is run over the last tileRows rows, computing some again
// with the same results; a partial panel's tiles go through a full-size
// tile.
func narrow(c []float32, ldc int, a []float32, lda, m int, b packed, p, from int) {
	var tmp [tileRows * panelCols]float32
	panel := b.data[p*panelCols*b.rows : (p+1)*panelCols*b.rows]
	col := p * panelCols
	width := min(panelCols, b.cols-col)
	rows := max(m, tileRows)
	for r := from; r < rows; r += tileRows {
		r = min(r, rows-tileRows)
		if width == panelCols && m >= tileRows {
			tile(a[r*lda:], lda, panel, b.rows, c[r*ldc+col:], ldc)
			continue
		}
		tile(a[r*lda:], lda, panel, b.rows, tmp[:], panelCols)
		for i := range min(tileRows, m-r) {
			copy(c[(r+i)*ldc+col:(r+i)*ldc+col+width], tmp[i*panelCols:i*panelCols+width])
		}
	}
}

// wide computes wideRows rows of two full panels with tile12x32; the
// slices' bounds are checked here, as tile does.
func wide(a []float32, lda int, pair []float32, k int, c []float32, ldc int) {
	_ = a[(wideRows-1)*lda+k-1]
	_ = pair[2*k*panelCols-1]
	_ = c[(wideRows-1)*ldc+2*panelCols-1]
	tile12x32(unsafe.SliceData(a), lda, unsafe.SliceData(pair), k, unsafe.SliceData(c), ldc)
}

// tile computes one tile, with the assembly kernel where the CPU has it.
// The slices' bounds are checked here, so that the kernel never reads
// or writes past them.
func tile(a []float32, lda int, panel []float32, k int, c []float32, ldc int) {
	_ = a[(tileRows-1)*lda+k-1]
	_ = panel[k*panelCols-1]
	_ = c[(tileRows-1)*ldc+panelCols-1]
	if haveAVX2 {
		tile6x16(unsafe.SliceData(a), lda, unsafe.SliceData(panel), k, unsafe.SliceData(c), ldc)
		return
	}
	tileGo(a, lda, panel, k, c, ldc)
}

// tileGo is tile6x16 in Go, for CPUs without AVX2 and FMA. Its fused
// multiply-add goes through float64 and may round differently in the
// last bit.
func tileGo(a []float32, lda int, panel []float32, k int, c []float32, ldc int) {
	for r := range tileRows {
		var acc [panelCols]float32
		for i := range k {
			x := float64(a[r*lda+i])
			row := panel[i*panelCols : (i+1)*panelCols]
			for j := range acc {
				acc[j] = float32(math.FMA(x, float64(row[j]), float64(acc[j])))
			}
		}
		copy(c[r*ldc:r*ldc+panelCols], acc[:])
	}
}
