package il_test

import (
	"math"
	"strings"
	"testing"

	"miniil/il"
)

// load loads a program whose entry point main has the given body.
func load(t *testing.T, body string) *il.Module {
	t.Helper()
	src := ".assembly extern mscorlib {}\n.assembly t {}\n.method static void main() cil managed\n{\n.entrypoint\n" + body + "\n}\n"
	m, err := il.Load("t.il", []byte(src))
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	return m
}

// method loads a program as load does and returns main.
func method(t *testing.T, body string) *il.Method { return load(t, body).Methods[0] }

// TestClauseOrder checks the clause table the verifier leaves: written
// inner first it is kept, and a clause listed after one whose handler
// contains it is moved before it (as the CLR sorts such tables), keeping
// the order of one try's handlers.
func TestClauseOrder(t *testing.T) {
	tests := []struct {
		name string
		body string
		want []string // each clause's try-start label, in table order
	}{
		{"finally in finally, listed outer first", `
T0: leave DONE
F0: nop
T1: leave F1E
F1: endfinally
F1E: endfinally
DONE: ret
.try T0 to F0 finally handler F0 to DONE
.try T1 to F1 finally handler F1 to F1E`, []string{"T1", "T0"}},
		{"catch in catch, listed outer first, handlers of one try kept in order", `
  br T0
H0: pop
T1: leave H1E
H1: pop
    leave H1E
H2: pop
    leave H1E
H1E: leave DONE
T0: leave DONE
T0E:
DONE: ret
.try T0 to T0E catch [mscorlib]System.Exception handler H0 to T0
.try T1 to H1 catch [mscorlib]System.ArgumentException handler H1 to H2
.try T1 to H1 catch [mscorlib]System.Exception handler H2 to H1E`, []string{"T1", "T1", "T0"}},
		{"inner first is kept", `
T0: leave DONE
F0: nop
T1: leave F1E
F1: endfinally
F1E: endfinally
DONE: ret
.try T1 to F1 finally handler F1 to F1E
.try T0 to F0 finally handler F0 to DONE`, []string{"T1", "T0"}},
		{"disjoint clauses keep their order", `
T1: leave T0
H1: pop
    leave T0
T0: leave DONE
H0: pop
    leave DONE
DONE: ret
.try T0 to H0 catch [mscorlib]System.Exception handler H0 to DONE
.try T1 to H1 catch [mscorlib]System.Exception handler H1 to T0`, []string{"T0", "T1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := method(t, tt.body)
			at := map[int]string{}
			for _, l := range m.Labels {
				at[l.Instr] = l.Name
			}
			var got []string
			for _, c := range m.EH {
				got = append(got, at[c.TryStart])
			}
			if strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Fatalf("clauses by try label: got %v, want %v", got, tt.want)
			}
			if len(m.EH) == 3 && m.EH[0].CatchType.Name == m.EH[1].CatchType.Name {
				t.Fatalf("the handlers of one try changed order: %s, %s", m.EH[0].Describe(), m.EH[1].Describe())
			}
		})
	}
}

// TestLdcR4Literal checks that an ldc.r4 literal is read as a float64 and
// then narrowed, as ilasm reads it, and that the printer writes literals
// that read back as the same float32.
func TestLdcR4Literal(t *testing.T) {
	tests := []struct {
		lit  string
		want float32
	}{
		{"1.0e300", float32(math.Inf(1))},
		{"-1e39", float32(math.Inf(-1))},
		// Rounded to float64 first, this is exactly the midpoint
		// between float32's max and 2^128, and the tie rounds to even:
		// +Inf (read straight as a float32 it would be the max).
		{"3.4028235677973366e38", float32(math.Inf(1))},
		{"3.4028235e38", math.MaxFloat32},
		{"1e-50", 0},
		{"1.4e-45", math.SmallestNonzeroFloat32},
		{"16777217", 16777216},
		{"0.1", 0.1},
	}
	for _, tt := range tests {
		mod := load(t, "ldc.r4 "+tt.lit+"\npop\nret")
		got := float32(mod.Methods[0].Code[0].Float())
		if got != tt.want && !(math.IsNaN(float64(got)) && math.IsNaN(float64(tt.want))) {
			t.Errorf("ldc.r4 %s = %v, want %v", tt.lit, got, tt.want)
		}
		printed := ""
		for _, line := range strings.Split(mod.String(), "\n") {
			if strings.Contains(line, "ldc.r4") {
				printed = line
			}
		}
		again := method(t, printed+"\npop\nret")
		if back := float32(again.Code[0].Float()); back != got {
			t.Errorf("ldc.r4 %s prints as %q, which reads back as %v, not %v", tt.lit, printed, back, got)
		}
	}
	for _, lit := range []string{"1e400", "-1e400"} {
		src := ".assembly t {}\n.method static void main() cil managed\n{\n.entrypoint\nldc.r4 " + lit + "\npop\nret\n}\n"
		if _, err := il.Load("t.il", []byte(src)); err == nil || !strings.Contains(err.Error(), "not a valid floating-point number") {
			t.Errorf("ldc.r4 %s: got %v, want the float64 range error ilasm gives", lit, err)
		}
	}
}
