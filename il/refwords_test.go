package il_test

import (
	"slices"
	"testing"

	"miniil/il"
)

// TestRefWords checks which words of value types hold references:
// fields of every reference type, nested value types at their offset,
// nothing for a value type without references.
func TestRefWords(t *testing.T) {
	const src = `
.assembly extern mscorlib {}
.assembly t {}
.class public sequential sealed Num extends [mscorlib]System.ValueType
{
  .field public int32 a
  .field public float64 b
  .field public static string s
}
.class public sequential sealed Pair extends [mscorlib]System.ValueType
{
  .field public int64 n
  .field public string s
  .field public object o
}
.class public sequential sealed Outer extends [mscorlib]System.ValueType
{
  .field public valuetype Num num
  .field public int32[] arr
  .field public valuetype Pair pair
  .field public class Outer2 c
  .field public valuetype Empty e
  .field public string[][] jag
}
.class public sequential sealed Empty extends [mscorlib]System.ValueType
{
}
.class public Outer2 extends [mscorlib]System.Object
{
}
.method public static void main() cil managed
{
  .entrypoint
  ret
}
`
	mod, err := il.Load("refwords.il", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		class string
		words int
		refs  []int
	}{
		{"Num", 2, nil},
		{"Empty", 1, nil},
		{"Pair", 3, []int{1, 2}},
		// num: words 0-1; arr: 2; pair: 3-5 (refs 4, 5); c: 6; e: 7; jag: 8.
		{"Outer", 9, []int{2, 4, 5, 6, 8}},
	} {
		c := mod.Class(tt.class)
		if c == nil {
			t.Fatalf("no class %s", tt.class)
		}
		if got := c.Type().Words(); got != tt.words {
			t.Errorf("%s takes %d words, want %d", tt.class, got, tt.words)
		}
		if !slices.Equal(c.RefWords, tt.refs) {
			t.Errorf("%s: reference words %v, want %v", tt.class, c.RefWords, tt.refs)
		}
	}
}
