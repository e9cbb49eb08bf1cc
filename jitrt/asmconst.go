package jitrt

import "miniil/abi"

// The context offsets the assembly files use (go_asm.h holds only this
// package's constants).
const (
	asmCtxGoBP       = abi.CtxGoBP
	asmCtxGoSP       = abi.CtxGoSP
	asmCtxPC         = abi.CtxPC
	asmCtxPoll       = abi.CtxPoll
	asmCtxPollReq    = abi.CtxPollReq
	asmCtxR10        = abi.CtxR10
	asmCtxR11        = abi.CtxR11
	asmCtxR12        = abi.CtxR12
	asmCtxR13        = abi.CtxR13
	asmCtxR14        = abi.CtxR14
	asmCtxR8         = abi.CtxR8
	asmCtxR9         = abi.CtxR9
	asmCtxRAX        = abi.CtxRAX
	asmCtxRBP        = abi.CtxRBP
	asmCtxRBX        = abi.CtxRBX
	asmCtxRCX        = abi.CtxRCX
	asmCtxRDI        = abi.CtxRDI
	asmCtxRDX        = abi.CtxRDX
	asmCtxRSI        = abi.CtxRSI
	asmCtxRSP        = abi.CtxRSP
	asmCtxStackLimit = abi.CtxStackLimit
	asmCtxXMM0       = abi.CtxXMM0
	asmCtxXMM1       = abi.CtxXMM1
	asmCtxXMM10      = abi.CtxXMM10
	asmCtxXMM11      = abi.CtxXMM11
	asmCtxXMM12      = abi.CtxXMM12
	asmCtxXMM13      = abi.CtxXMM13
	asmCtxXMM14      = abi.CtxXMM14
	asmCtxXMM15      = abi.CtxXMM15
	asmCtxXMM2       = abi.CtxXMM2
	asmCtxXMM3       = abi.CtxXMM3
	asmCtxXMM4       = abi.CtxXMM4
	asmCtxXMM5       = abi.CtxXMM5
	asmCtxXMM6       = abi.CtxXMM6
	asmCtxXMM7       = abi.CtxXMM7
	asmCtxXMM8       = abi.CtxXMM8
	asmCtxXMM9       = abi.CtxXMM9
)
