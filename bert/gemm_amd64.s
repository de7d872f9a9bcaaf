#include "textflag.h"

// func tile6x16(a *float32, lda int, b *float32, k int, c *float32, ldc int)
//
// c[r][j] = Σ a[r][i]·b[i][j] over i < k, for 6 rows r of a (row stride
// lda floats) and the 16 columns of the packed panel b (16 floats a
// row), into 6 rows of c (row stride ldc floats). Each sum is the fused
// multiply-adds of its products in the order of i, from zero.
TEXT ·tile6x16(SB), NOSPLIT, $0-48
	MOVQ a+0(FP), SI
	MOVQ lda+8(FP), AX
	SHLQ $2, AX
	MOVQ b+16(FP), DX
	MOVQ k+24(FP), CX
	MOVQ c+32(FP), DI
	MOVQ ldc+40(FP), BX
	SHLQ $2, BX
	LEAQ (SI)(AX*2), R8
	LEAQ (R8)(AX*2), R9
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	VXORPS Y8, Y8, Y8
	VXORPS Y9, Y9, Y9
	VXORPS Y10, Y10, Y10
	VXORPS Y11, Y11, Y11
	TESTQ CX, CX
	JZ   store

loop:
	VMOVUPS (DX), Y12
	VMOVUPS 32(DX), Y13
	VBROADCASTSS (SI), Y14
	VBROADCASTSS (SI)(AX*1), Y15
	VFMADD231PS Y12, Y14, Y0
	VFMADD231PS Y13, Y14, Y1
	VFMADD231PS Y12, Y15, Y2
	VFMADD231PS Y13, Y15, Y3
	VBROADCASTSS (R8), Y14
	VBROADCASTSS (R8)(AX*1), Y15
	VFMADD231PS Y12, Y14, Y4
	VFMADD231PS Y13, Y14, Y5
	VFMADD231PS Y12, Y15, Y6
	VFMADD231PS Y13, Y15, Y7
	VBROADCASTSS (R9), Y14
	VBROADCASTSS (R9)(AX*1), Y15
	VFMADD231PS Y12, Y14, Y8
	VFMADD231PS Y13, Y14, Y9
	VFMADD231PS Y12, Y15, Y10
	VFMADD231PS Y13, Y15, Y11
	ADDQ $4, SI
	ADDQ $4, R8
	ADDQ $4, R9
	ADDQ $64, DX
	DECQ CX
	JNZ  loop

store:
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	ADDQ    BX, DI
	VMOVUPS Y2, (DI)
	VMOVUPS Y3, 32(DI)
	ADDQ    BX, DI
	VMOVUPS Y4, (DI)
	VMOVUPS Y5, 32(DI)
	ADDQ    BX, DI
	VMOVUPS Y6, (DI)
	VMOVUPS Y7, 32(DI)
	ADDQ    BX, DI
	VMOVUPS Y8, (DI)
	VMOVUPS Y9, 32(DI)
	ADDQ    BX, DI
	VMOVUPS Y10, (DI)
	VMOVUPS Y11, 32(DI)
	VZEROUPPER
	RET
