package bert

import "math"

// expNeg is e^x for x ≤ 0 in float32, within 2e-7 relative: x is cut
// as k·ln 2 + r with |r| ≤ ln 2/2, e^r is a degree-7 polynomial and 2^k
// goes into the exponent. Below -87.3365 (2^-126) it gives 0.
func expNeg(x float32) float32 {
	const (
		log2e = 1.44269504088896341
		ln2hi = 0.693359375 // ln 2 cut so that k·ln2hi is exact
		ln2lo = -2.12194440e-4
	)
	if x < -87.3365 {
		return 0
	}
	k := float32(int32(x*log2e - 0.5))
	r := x - k*ln2hi - k*ln2lo
	p := 1 + r*(1+r*(1.0/2+r*(1.0/6+r*(1.0/24+r*(1.0/120+r*(1.0/720+r*(1.0/5040)))))))
	return p * math.Float32frombits(uint32(int32(k)+127)<<23)
}

// gelu is BERT's GELU, in place: eight floats at a time in assembly
// where the CPU has AVX2, the same operations in the same order as
// geluGo, which does the rest.
func gelu(x []float32) {
	n := 0
	if haveAVX2 {
		n = len(x) / 8 * 8
		geluAVX2(x[:n])
	}
	geluGo(x[n:])
}

// expShifted sets x[i] to expNeg((x[i]-top)·scale), as gelu does.
func expShifted(x []float32, top, scale float32) {
	n := 0
	if haveAVX2 {
		n = len(x) / 8 * 8
		expShiftedAVX2(x[:n], top, scale)
	}
	for i, v := range x[n:] {
		x[n+i] = expNeg((v - top) * scale)
	}
}

// geluGo is BERT's GELU, v·Φ(v) = v·erfc(-v/√2)/2, in float32. erfc is
// the Chebyshev fit of Numerical Recipes (fractional error below 1.2e-7
// for every argument), taken for |v| and reflected, so that negative
// inputs keep their relative precision. Against the float64 math.Erf
// form it differs by a few float32 roundings; the vectors differ from
// that form's by a cosine of 1 - 1e-7 or less.
func geluGo(x []float32) {
	for i, v := range x {
		z := v * (1 / math.Sqrt2)
		if z < 0 {
			z = -z
		}
		t := 1 / (1 + 0.5*z)
		poly := -1.26551223 + t*(1.00002368+t*(0.37409196+t*(0.09678418+
			t*(-0.18628806+t*(0.27886807+t*(-1.13520398+t*(1.48851587+
				t*(-0.82215223+t*0.17087277))))))))
		half := 0.5 * t * expNeg(poly-z*z) // erfc(z)/2 = Φ(-|v|)
		if v < 0 {
			x[i] = v * half
		} else {
			x[i] = v - v*half
		}
	}
}
