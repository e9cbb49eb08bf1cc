package il_test

import (
	"strings"
	"testing"

	"miniil/il"
)

// jaggedSrc is a program with classes for the jagged array tests; body is
// main's, with locals of every type the tests store into.
func jaggedSrc(body string) string {
	return `.assembly t {}
.class public Animal extends [mscorlib]System.Object {}
.class public Dog extends Animal {}
.class public Cat extends Animal {}
.method static void main() cil managed
{
  .entrypoint
  .maxstack 4
  .locals init (int32[] i1, string[] s1, object o, object[] o1, class Animal a,
                class Animal[] a1, class Dog d, class [mscorlib]System.SystemException se,
                class [mscorlib]System.ArgumentException ae, int32[][] i2)
` + body + `
  ret
}
`
}

// TestVerifyJagged checks how the verifier types jagged arrays: ldelem.ref
// of a T[][] gives T[], the element forms must match the row type, and two
// jagged arrays merge element-wise (string[][] and int32[][] at object[],
// Dog[][] and Cat[][] at Animal[][]), as CoreCLR merges array types.
func TestVerifyJagged(t *testing.T) {
	// merge leaves A or B on the stack at label J.
	merge := func(a, b string) string {
		return "ldc.i4.0\nbrtrue.s B\nldc.i4.1\nnewarr " + a + "\nbr.s J\nB: ldc.i4.1\nnewarr " + b + "\nJ: "
	}
	tests := []struct {
		name, body string
		err        string // "" when the program verifies
	}{
		{"row of int32[][] is int32[]", "ldc.i4.1\nnewarr int32[]\nldc.i4.0\nldelem.ref\nstloc i1", ""},
		{"row of int32[][] is no string[]", "ldc.i4.1\nnewarr int32[]\nldc.i4.0\nldelem.ref\nstloc s1",
			"stloc: cannot store int32[] into local 1 (s1) of type string[]"},
		{"ldelem.i4 of int32[][]", "ldc.i4.1\nnewarr int32[]\nldc.i4.0\nldelem.i4\npop",
			"ldelem.i4: cannot access an element of int32[][] as int32"},
		{"stelem.i4 into int32[][]", "ldc.i4.1\nnewarr int32[]\nldc.i4.0\nldc.i4.0\nstelem.i4",
			"stelem.i4: cannot access an element of int32[][] as int32"},
		{"ldelem.ref of a row of int32[][]", "ldc.i4.1\nnewarr int32[]\nldc.i4.0\nldelem.ref\nldc.i4.0\nldelem.ref\npop",
			"ldelem.ref: cannot access an element of int32[] as an object reference"},
		{"ldelem with a row token", "ldc.i4.1\nnewarr int32[]\nldc.i4.0\nldelem int32[]\nldc.i4.0\nldelem.i4\npop", ""},
		{"ldelem with a wrong row token", "ldc.i4.1\nnewarr int32[]\nldc.i4.0\nldelem string[]\npop",
			"ldelem: cannot access an element of int32[][] as string[]"},
		{"ldelem with a base row token", "ldc.i4.1\nnewarr class Dog[]\nldc.i4.0\nldelem class Animal[]\nstloc a1", ""},
		{"three levels", "ldc.i4.1\nnewarr int32[][]\nldc.i4.0\nldelem.ref\nstloc i2", ""},
		{"three levels are not two", "ldc.i4.1\nnewarr int32[][]\nstloc i2",
			"stloc: cannot store int32[][][] into local 9 (i2) of type int32[][]"},
		{"covariance: string[][] is object[]", "ldc.i4.1\nnewarr string[]\nstloc o1", ""},
		{"covariance: int32[][] is object[]", "ldc.i4.1\nnewarr int32[]\nstloc o1", ""},
		{"merge string[][] and int32[][]", merge("string[]", "int32[]") + "dup\nldlen\npop\nldc.i4.0\nldelem.ref\nstloc o", ""},
		{"merged row is object", merge("string[]", "int32[]") + "ldc.i4.0\nldelem.ref\nstloc s1",
			"stloc: cannot store object into local 1 (s1) of type string[]"},
		{"merge Dog[][] and Cat[][]", merge("class Dog[]", "class Cat[]") + "ldc.i4.0\nldelem.ref\nstloc a1", ""},
		{"merge Dog[][] and Cat[][] is no Dog[][]", merge("class Dog[]", "class Cat[]") + "ldc.i4.0\nldelem.ref\nldc.i4.0\nldelem.ref\nstloc d",
			"stloc: cannot store class Animal into local 6 (d) of type class Dog"},
		{"merge exception arrays", merge("class [mscorlib]System.ArgumentException[]", "class [mscorlib]System.InvalidOperationException[]") +
			"ldc.i4.0\nldelem.ref\nldc.i4.0\nldelem.ref\nstloc se", ""},
		{"merge exception arrays is no ArgumentException[][]", merge("class [mscorlib]System.ArgumentException[]", "class [mscorlib]System.InvalidOperationException[]") +
			"ldc.i4.0\nldelem.ref\nldc.i4.0\nldelem.ref\nstloc ae",
			"stloc: cannot store class System.SystemException into local 8 (ae) of type class System.ArgumentException"},
		{"merge string[][][] and Dog[][][]", merge("string[][]", "class Dog[][]") + "ldc.i4.0\nldelem.ref\nldc.i4.0\nldelem.ref\nstloc o", ""},
		{"merge int32[][] and uint32[][] keeps the first", merge("int32[]", "uint32[]") + "ldc.i4.0\nldelem.ref\nstloc i1", ""},
		{"merge Dog[][] and object[][]", merge("class Dog[]", "object[]") + "ldc.i4.0\nldelem.ref\nstloc o1", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := il.Load("t.il", []byte(jaggedSrc(tt.body)))
			switch {
			case tt.err == "" && err != nil:
				t.Fatalf("does not verify: %v", err)
			case tt.err != "" && err == nil:
				t.Fatalf("verifies, want %q", tt.err)
			case tt.err != "" && !strings.Contains(err.Error(), tt.err):
				t.Fatalf("error %q, want %q", err, tt.err)
			}
		})
	}
}

// TestStackDepths checks that StackDepths reports the deepest stack of
// each method whatever its .maxstack, where Verify refuses the overflow.
func TestStackDepths(t *testing.T) {
	const src = `.assembly extern mscorlib {}
.assembly t {}
.method public static int32 deep() cil managed
{
  .maxstack 1
  ldc.i4.1
  ldc.i4.2
  ldc.i4.3
  add
  add
  ret
}
.method public static int32 main() cil managed
{
  .entrypoint
  .maxstack 8
  call int32 deep()
  ret
}
`
	if _, err := il.LoadString("deep.il", src); err == nil || !strings.Contains(err.Error(), "stack overflow") {
		t.Fatalf("Load: want a stack overflow error, got %v", err)
	}
	m, err := il.ParseString("deep.il", src)
	if err != nil {
		t.Fatal(err)
	}
	depths, err := il.StackDepths(m)
	if err != nil {
		t.Fatalf("StackDepths: %v", err)
	}
	got := map[string]int{}
	for md, d := range depths {
		got[md.Name] = d
	}
	if got["deep"] != 3 || got["main"] != 1 {
		t.Errorf("depths %v, want deep 3 and main 1", got)
	}
}
