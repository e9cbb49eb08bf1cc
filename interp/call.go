package interp

import (
	"context"
	"fmt"
	"math"

	"miniil/il"
)

// Call runs static method meth of module m and returns its result.
// Arguments and the result are in normalized Go form: int64 for integer
// and bool types (the value as the CLR widens it to 64 bits), float64 for
// float types, string for strings, nil for null and for no result (void).
// An unhandled exception is an *UnhandledException error.
func Call(ctx context.Context, m *il.Module, meth *il.Method, args []any, opts Options) (result any, err error) {
	if !meth.Static || meth.Builtin {
		return nil, fmt.Errorf("interp: %s is not a static method of the program", meth.FullName())
	}
	if len(args) != len(meth.Params) {
		return nil, fmt.Errorf("interp: %s takes %d argument(s), got %d", meth.FullName(), len(meth.Params), len(args))
	}
	for _, p := range meth.Params {
		if k := p.Type.Kind; k == il.KValue || k == il.KByRef {
			return nil, fmt.Errorf("interp: %s takes a %s; only primitives and references can be passed from Go", meth.FullName(), p.Type)
		}
	}
	if meth.Ret.Kind == il.KValue {
		return nil, fmt.Errorf("interp: %s returns a %s; only primitives and references can be returned to Go", meth.FullName(), meth.Ret)
	}
	if ctx == nil {
		ctx = context.Background()
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("interp: call not started: %w", err)
	}
	s := newState(ctx, m, opts)
	defer func() {
		if r := recover(); r != nil {
			result, err = nil, fmt.Errorf("interp: internal error: %v", r)
		}
		if ferr := s.out.finish(); ferr != nil && err == nil {
			err = fmt.Errorf("interp: writing output: %w", ferr)
		}
	}()
	if err := s.setup(); err != nil {
		return nil, err
	}
	vals := make([]value, len(args))
	for i, a := range args {
		switch x := a.(type) {
		case int64:
			vals[i] = value{n: normalize(meth.Params[i].Type.Kind, x)}
		case float64:
			vals[i] = value{n: fbits(x)}
			if meth.Params[i].Type.Kind == il.KR4 {
				vals[i] = value{n: fbits(r4(x))}
			}
		case string:
			str := newString(x)
			if !s.chargeStr(str) {
				return nil, fmt.Errorf("interp: argument %d does not fit in the heap limit", i+1)
			}
			vals[i] = value{r: str}
			s.goArgs = append(s.goArgs, str) // live for the whole call, as the JIT's runtime holds them
		case nil:
		default:
			return nil, fmt.Errorf("interp: argument %d has unsupported type %T", i+1, a)
		}
	}
	if err := s.runModuleInit(); err != nil {
		_, err = s.exit(err)
		return nil, err
	}
	if err := s.callFromGo(s.method(meth), vals...); err != nil {
		_, err = s.exit(err)
		return nil, err
	}
	if err := s.run(); err != nil {
		_, err = s.exit(err)
		return nil, err
	}
	if !s.hasResult {
		return nil, nil
	}
	v := s.result
	switch meth.Ret.Kind {
	case il.KR4, il.KR8:
		return math.Float64frombits(uint64(v.n)), nil
	case il.KString:
		if str, ok := v.r.(*managedString); ok {
			return str.goString(), nil
		}
		return nil, nil
	}
	if meth.Ret.IsRef() {
		if v.r == nil {
			return nil, nil
		}
		return nil, fmt.Errorf("interp: %s returns an object of type %s; only primitives and strings can be returned to Go", meth.FullName(), typeName(v.r))
	}
	return v.n, nil
}
