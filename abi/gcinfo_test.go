package abi

import "testing"

// TestGCLoc checks that locations keep their register or offset and
// kind through the encoding, and how they print.
func TestGCLoc(t *testing.T) {
	for _, tt := range []struct {
		loc      GCLoc
		reg      bool
		n        int // register number or RBP offset
		interior bool
		text     string
	}{
		{FrameLoc(-8, false), false, -8, false, "ref [rbp-0x8]"},
		{FrameLoc(-0x1000, true), false, -0x1000, true, "ptr [rbp-0x1000]"},
		{FrameLoc(16, false), false, 16, false, "ref [rbp+0x10]"},
		{FrameLoc(-(1 << 30), true), false, -(1 << 30), true, "ptr [rbp-0x40000000]"},
		{RegLoc(RegRBX, false), true, RegRBX, false, "ref rbx"},
		{RegLoc(RegR14, true), true, RegR14, true, "ptr r14"},
		{RegLoc(RegRAX, false), true, RegRAX, false, "ref rax"},
	} {
		if tt.loc.IsReg() != tt.reg || tt.loc.Interior() != tt.interior || tt.loc.String() != tt.text {
			t.Errorf("%s: register %v, interior %v; want %q", tt.loc, tt.loc.IsReg(), tt.loc.Interior(), tt.text)
		}
		if tt.reg && tt.loc.Reg() != tt.n || !tt.reg && tt.loc.Offset() != tt.n {
			t.Errorf("%s: register %d, offset %d; want %d", tt.loc, tt.loc.Reg(), tt.loc.Offset(), tt.n)
		}
	}
	if got := FormatLocs([]GCLoc{RegLoc(RegRBX, false), FrameLoc(-0x30, true), FrameLoc(-0x18, false)}); got != "ref rbx [rbp-0x18]; ptr [rbp-0x30]" {
		t.Errorf("FormatLocs: %q", got)
	}
	if got := FormatLocs(nil); got != "none" {
		t.Errorf("FormatLocs(nil): %q", got)
	}
}

// TestGCInfoAt checks the lookup of safepoints by return address.
func TestGCInfoAt(t *testing.T) {
	gi := GCInfo{
		Safepoints: []Safepoint{{Offset: 0x10, Live: 0, NLive: 1}, {Offset: 0x20}, {Offset: 0x38, Live: 1, NLive: 2}},
		Locs:       []GCLoc{RegLoc(RegRBX, false), FrameLoc(-8, false), FrameLoc(-16, true)},
	}
	for _, tt := range []struct {
		off  int
		want string // "": no safepoint
	}{{0x10, "ref rbx"}, {0x20, "none"}, {0x38, "ref [rbp-0x8]; ptr [rbp-0x10]"}, {0x11, ""}, {0, ""}, {0x40, ""}} {
		s := gi.At(tt.off)
		switch {
		case s == nil && tt.want != "":
			t.Errorf("no safepoint at %#x", tt.off)
		case s != nil && tt.want == "":
			t.Errorf("a safepoint at %#x", tt.off)
		case s != nil && FormatLocs(gi.LiveAt(s)) != tt.want:
			t.Errorf("at %#x: %s, want %s", tt.off, FormatLocs(gi.LiveAt(s)), tt.want)
		}
	}
}
