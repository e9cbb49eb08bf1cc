//go:build !linux

package prefault

import "unsafe"

func populate(p unsafe.Pointer, n uintptr) {}

func populateRead(p unsafe.Pointer, n uintptr) {}

func adviseHuge(start, n uintptr) {}
