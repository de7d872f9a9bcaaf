#include "textflag.h"

// The float32 constants of fastmath.go, in its order of use.
DATA consts<>+0(SB)/4, $0xc2aeac4a  // -87.3365, below which e^x is 0
DATA consts<>+4(SB)/4, $0x3fb8aa3b  // log2 e
DATA consts<>+8(SB)/4, $0x3f000000  // 0.5
DATA consts<>+12(SB)/4, $0x3f318000 // ln2hi
DATA consts<>+16(SB)/4, $0xb95e8083 // ln2lo
DATA consts<>+20(SB)/4, $0x39500d01 // 1/5040
DATA consts<>+24(SB)/4, $0x3ab60b61 // 1/720
DATA consts<>+28(SB)/4, $0x3c088889 // 1/120
DATA consts<>+32(SB)/4, $0x3d2aaaab // 1/24
DATA consts<>+36(SB)/4, $0x3e2aaaab // 1/6
DATA consts<>+40(SB)/4, $0x3f800000 // 1
DATA consts<>+44(SB)/4, $0x3f3504f3 // 1/√2
DATA consts<>+48(SB)/4, $0x3e2ef945 // erfc's fit, highest term first
DATA consts<>+52(SB)/4, $0xbf527892
DATA consts<>+56(SB)/4, $0x3fbe87b0
DATA consts<>+60(SB)/4, $0xbf914e5d
DATA consts<>+64(SB)/4, $0x3e8ec7cc
DATA consts<>+68(SB)/4, $0xbe3ec24c
DATA consts<>+72(SB)/4, $0x3dc636c9
DATA consts<>+76(SB)/4, $0x3ebf88fb
DATA consts<>+80(SB)/4, $0x3f8000c7
DATA consts<>+84(SB)/4, $0xbfa1fc4e
DATA consts<>+88(SB)/4, $0x0000007f // the exponent's bias
DATA consts<>+92(SB)/4, $0x7fffffff // all but the sign
GLOBL consts<>(SB), RODATA|NOPTR, $96

// EXPNEG sets Y0 to expNeg(Y0) in each lane, with expNeg's operations in
// its order; it uses Y1 to Y4.
#define EXPNEG \
	VBROADCASTSS consts<>+0(SB), Y1 \
	VCMPPS       $1, Y1, Y0, Y4 \
	VBROADCASTSS consts<>+4(SB), Y1 \
	VMULPS       Y1, Y0, Y2 \
	VBROADCASTSS consts<>+8(SB), Y1 \
	VSUBPS       Y1, Y2, Y2 \
	VCVTTPS2DQ   Y2, Y2 \
	VCVTDQ2PS    Y2, Y3 \
	VBROADCASTSS consts<>+12(SB), Y1 \
	VMULPS       Y1, Y3, Y1 \
	VSUBPS       Y1, Y0, Y0 \
	VBROADCASTSS consts<>+16(SB), Y1 \
	VMULPS       Y1, Y3, Y1 \
	VSUBPS       Y1, Y0, Y0 \
	VBROADCASTSS consts<>+20(SB), Y1 \
	VMULPS       Y1, Y0, Y1 \
	VBROADCASTSS consts<>+24(SB), Y3 \
	VADDPS       Y3, Y1, Y1 \
	VMULPS       Y1, Y0, Y1 \
	VBROADCASTSS consts<>+28(SB), Y3 \
	VADDPS       Y3, Y1, Y1 \
	VMULPS       Y1, Y0, Y1 \
	VBROADCASTSS consts<>+32(SB), Y3 \
	VADDPS       Y3, Y1, Y1 \
	VMULPS       Y1, Y0, Y1 \
	VBROADCASTSS consts<>+36(SB), Y3 \
	VADDPS       Y3, Y1, Y1 \
	VMULPS       Y1, Y0, Y1 \
	VBROADCASTSS consts<>+8(SB), Y3 \
	VADDPS       Y3, Y1, Y1 \
	VMULPS       Y1, Y0, Y1 \
	VBROADCASTSS consts<>+40(SB), Y3 \
	VADDPS       Y3, Y1, Y1 \
	VMULPS       Y1, Y0, Y1 \
	VADDPS       Y3, Y1, Y1 \
	VPBROADCASTD consts<>+88(SB), Y3 \
	VPADDD       Y3, Y2, Y2 \
	VPSLLD       $23, Y2, Y2 \
	VMULPS       Y2, Y1, Y0 \
	VANDNPS      Y0, Y4, Y0

// func geluAVX2(x []float32)
//
// gelu over the first len(x)/8*8 floats of x.
TEXT ·geluAVX2(SB), NOSPLIT, $0-24
	MOVQ x_base+0(FP), SI
	MOVQ x_len+8(FP), CX
	SHRQ $3, CX
	JZ   done

loop:
	VMOVUPS      (SI), Y6
	VBROADCASTSS consts<>+44(SB), Y1
	VMULPS       Y1, Y6, Y7
	VPBROADCASTD consts<>+92(SB), Y1
	VANDPS       Y1, Y7, Y7
	VBROADCASTSS consts<>+8(SB), Y1
	VMULPS       Y1, Y7, Y8
	VBROADCASTSS consts<>+40(SB), Y1
	VADDPS       Y1, Y8, Y8
	VDIVPS       Y8, Y1, Y8
	VBROADCASTSS consts<>+48(SB), Y0
	VMULPS       Y0, Y8, Y0
	VBROADCASTSS consts<>+52(SB), Y1
	VADDPS       Y1, Y0, Y0
	VMULPS       Y0, Y8, Y0
	VBROADCASTSS consts<>+56(SB), Y1
	VADDPS       Y1, Y0, Y0
	VMULPS       Y0, Y8, Y0
	VBROADCASTSS consts<>+60(SB), Y1
	VADDPS       Y1, Y0, Y0
	VMULPS       Y0, Y8, Y0
	VBROADCASTSS consts<>+64(SB), Y1
	VADDPS       Y1, Y0, Y0
	VMULPS       Y0, Y8, Y0
	VBROADCASTSS consts<>+68(SB), Y1
	VADDPS       Y1, Y0, Y0
	VMULPS       Y0, Y8, Y0
	VBROADCASTSS consts<>+72(SB), Y1
	VADDPS       Y1, Y0, Y0
	VMULPS       Y0, Y8, Y0
	VBROADCASTSS consts<>+76(SB), Y1
	VADDPS       Y1, Y0, Y0
	VMULPS       Y0, Y8, Y0
	VBROADCASTSS consts<>+80(SB), Y1
	VADDPS       Y1, Y0, Y0
	VMULPS       Y0, Y8, Y0
	VBROADCASTSS consts<>+84(SB), Y1
	VADDPS       Y1, Y0, Y0
	VMULPS       Y7, Y7, Y9
	VSUBPS       Y9, Y0, Y0
	EXPNEG
	VBROADCASTSS consts<>+8(SB), Y1
	VMULPS       Y1, Y8, Y8
	VMULPS       Y0, Y8, Y8
	VMULPS       Y8, Y6, Y9
	VSUBPS       Y9, Y6, Y10
	VXORPS       Y11, Y11, Y11
	VCMPPS       $1, Y11, Y6, Y12
	VBLENDVPS    Y12, Y9, Y10, Y10
	VMOVUPS      Y10, (SI)
	ADDQ         $32, SI
	DECQ         CX
	JNZ          loop

done:
	VZEROUPPER
	RET

// func expShiftedAVX2(x []float32, top, scale float32)
//
// x[i] = expNeg((x[i]-top)*scale) over the first len(x)/8*8 floats.
TEXT ·expShiftedAVX2(SB), NOSPLIT, $0-32
	MOVQ         x_base+0(FP), SI
	MOVQ         x_len+8(FP), CX
	VBROADCASTSS top+24(FP), Y6
	VBROADCASTSS scale+28(FP), Y7
	SHRQ         $3, CX
	JZ           done

loop:
	VMOVUPS (SI), Y0
	VSUBPS  Y6, Y0, Y0
	VMULPS  Y7, Y0, Y0
	EXPNEG
	VMOVUPS Y0, (SI)
	ADDQ    $32, SI
	DECQ    CX
	JNZ     loop

done:
	VZEROUPPER
	RET
