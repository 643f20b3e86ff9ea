//go:build amd64

#include "textflag.h"

// func diff(a, b unsafe.Pointer, n int) int
//
// The index of the first of the n bytes at a and b that differ, or n.
// Fewer than 16 bytes are compared as two words (overlapping) or byte by
// byte. From 16 on, 64 bytes a turn while they fit (four 16-byte lanes
// compared, their results and-ed; a turn that differs places the
// difference by the four lanes' masks as one word), then 16 a turn, then
// the last 16 bytes, overlapping bytes found equal. Every load is within
// the n bytes.
TEXT ·diff(SB), NOSPLIT, $0-32
	MOVQ	a+0(FP), SI
	MOVQ	b+8(FP), DI
	MOVQ	n+16(FP), CX
	XORQ	AX, AX              // i
	CMPQ	CX, $16
	JL	small
	LEAQ	-64(CX), BX         // the last i from which 64 bytes fit
	CMPQ	BX, $0
	JL	by16

loop64:
	MOVOU	(SI)(AX*1), X0
	MOVOU	(DI)(AX*1), X1
	PCMPEQB	X1, X0
	MOVOU	16(SI)(AX*1), X2
	MOVOU	16(DI)(AX*1), X3
	PCMPEQB	X3, X2
	MOVOU	32(SI)(AX*1), X4
	MOVOU	32(DI)(AX*1), X5
	PCMPEQB	X5, X4
	MOVOU	48(SI)(AX*1), X6
	MOVOU	48(DI)(AX*1), X7
	PCMPEQB	X7, X6
	MOVOU	X0, X8
	PAND	X2, X8
	PAND	X4, X8
	PAND	X6, X8
	PMOVMSKB	X8, DX
	CMPL	DX, $0xffff
	JNE	in64
	ADDQ	$64, AX
	CMPQ	AX, BX
	JLE	loop64

by16:
	LEAQ	-16(CX), BX         // the last i from which 16 bytes fit
	CMPQ	AX, BX
	JG	last16

loop16:
	MOVOU	(SI)(AX*1), X0
	MOVOU	(DI)(AX*1), X1
	PCMPEQB	X1, X0
	PMOVMSKB	X0, DX
	XORL	$0xffff, DX
	JNZ	found
	ADDQ	$16, AX
	CMPQ	AX, BX
	JLE	loop16

last16:
	CMPQ	AX, CX
	JGE	same                // every byte compared
	MOVQ	BX, AX              // n-16: the last 16 bytes, one more turn
	JMP	loop16

same:
	MOVQ	CX, ret+24(FP)
	RET

found:
	BSFL	DX, DX
	ADDQ	DX, AX
	MOVQ	AX, ret+24(FP)
	RET

in64:
	// The equal bytes of the 64 as the bits of one word: the first 0.
	PMOVMSKB	X0, DX
	PMOVMSKB	X2, R8
	PMOVMSKB	X4, R9
	PMOVMSKB	X6, R10
	SHLQ	$16, R8
	SHLQ	$32, R9
	SHLQ	$48, R10
	ORQ	R8, DX
	ORQ	R9, R10
	ORQ	R10, DX
	NOTQ	DX
	BSFQ	DX, DX
	ADDQ	DX, AX
	MOVQ	AX, ret+24(FP)
	RET

small:
	CMPQ	CX, $8
	JL	bytes
	// 8 to 15 bytes: the first 8, then the last 8.
	MOVQ	(SI), DX
	XORQ	(DI), DX
	JNZ	word
	LEAQ	-8(CX), AX
	MOVQ	(SI)(AX*1), DX
	XORQ	(DI)(AX*1), DX
	JNZ	word
	MOVQ	CX, ret+24(FP)
	RET

word:
	// The first byte that differs in the word at i.
	BSFQ	DX, DX
	SHRQ	$3, DX
	ADDQ	DX, AX
	MOVQ	AX, ret+24(FP)
	RET

bytes:
	CMPQ	AX, CX
	JGE	same
	MOVBLZX	(SI)(AX*1), DX
	MOVBLZX	(DI)(AX*1), R8
	CMPL	DX, R8
	JNE	diffbyte
	INCQ	AX
	JMP	bytes

diffbyte:
	MOVQ	AX, ret+24(FP)
	RET
