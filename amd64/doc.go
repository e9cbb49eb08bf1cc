// Package amd64 is the JIT's x86-64 back end: an assembler (its own
// encoder, checked against golang-asm in tests), a disassembler over
// x86asm, register homes (a linear scan) and the code generator that
// turns a method's IR, laid out by package funclet, into machine code,
// with the code range of each funclet and the IL offset of each call
// site. It is internal to miniil: no compatibility promise.
package amd64
