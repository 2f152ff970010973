package main

import (
	"go/constant"
	"go/types"
	"math"
	"sort"
	"strconv"
	"strings"
)

// writer turns the exported objects of one package into record lines. Types
// are printed by its own printer, not types.TypeString, so that the record
// holds no parameter names (which are not API) and spells a type the same
// whichever Go version reads it (an empty interface is always any).
type writer struct {
	pkg   *types.Package
	lines []string
}

func (w *writer) emit(parts ...string) {
	w.lines = append(w.lines, "pkg "+w.pkg.Path()+", "+strings.Join(parts, ""))
}

// object records one exported package-level object.
func (w *writer) object(obj types.Object) {
	switch obj := obj.(type) {
	case *types.Const:
		w.emit("const ", obj.Name(), " ", w.typ(obj.Type()), " = ", value(obj.Val()))
	case *types.Var:
		w.emit("var ", obj.Name(), " ", w.typ(obj.Type()))
	case *types.Func:
		sig := obj.Type().(*types.Signature)
		w.emit("func ", obj.Name(), w.typeParams(sig.TypeParams()), w.signature(sig))
	case *types.TypeName:
		w.typeName(obj)
	}
}

// typeName records a type: its kind, then its fields, interface methods or
// methods, each on its own line.
func (w *writer) typeName(obj *types.TypeName) {
	if obj.IsAlias() {
		alias, ok := obj.Type().(*types.Alias)
		tparams := ""
		if ok {
			tparams = w.typeParams(alias.TypeParams())
		}
		w.emit("type ", obj.Name(), tparams, " = ", w.typ(types.Unalias(obj.Type())))
		return
	}
	named, ok := obj.Type().(*types.Named)
	if !ok {
		return
	}
	head := "type " + obj.Name() + w.typeParams(named.TypeParams())
	switch u := named.Underlying().(type) {
	case *types.Struct:
		w.emit(head, " struct")
		w.fields(head+" struct, ", u, 0)
	case *types.Interface:
		if !u.IsMethodSet() {
			// A constraint: its type terms are its API.
			w.emit(head, " ", w.typ(u))
			return
		}
		var names []string
		for i := range u.NumMethods() {
			m := u.Method(i)
			if !m.Exported() {
				names = append(names, "unexported methods")
				continue
			}
			names = append(names, m.Name())
			w.emit(head, " interface, ", m.Name(), w.signature(m.Type().(*types.Signature)))
		}
		sort.Strings(names)
		names = compact(names)
		if len(names) == 0 {
			w.emit(head, " interface {}")
		} else {
			w.emit(head, " interface { ", strings.Join(names, ", "), " }")
		}
		return
	default:
		w.emit(head, " ", w.typ(u))
	}
	w.methods(named)
}

// fields records the exported fields of a struct; the fields of an
// unexported embedded struct are recorded as the outer type's, since they
// are promoted and importers reach them.
func (w *writer) fields(prefix string, s *types.Struct, depth int) {
	for i := range s.NumFields() {
		f := s.Field(i)
		if f.Embedded() {
			if f.Exported() {
				w.emit(prefix, "embedded ", w.typ(f.Type()))
				continue
			}
			if inner, ok := derefStruct(f.Type()); ok && depth < 8 {
				w.fields(prefix, inner, depth+1)
			}
			continue
		}
		if f.Exported() {
			w.emit(prefix, f.Name(), " ", w.typ(f.Type()))
		}
	}
}

func derefStruct(t types.Type) (*types.Struct, bool) {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	s, ok := t.Underlying().(*types.Struct)
	return s, ok
}

// methods records the exported methods a value of the named type has,
// declared or promoted; a method only *T has is recorded with a pointer
// receiver.
func (w *writer) methods(named *types.Named) {
	recv := named.Obj().Name()
	if tp := named.TypeParams(); tp.Len() > 0 {
		names := make([]string, tp.Len())
		for i := range tp.Len() {
			names[i] = tp.At(i).Obj().Name()
		}
		recv += "[" + strings.Join(names, ", ") + "]"
	}
	values := types.NewMethodSet(named)
	pointers := types.NewMethodSet(types.NewPointer(named))
	for i := range pointers.Len() {
		m := pointers.At(i).Obj()
		if !m.Exported() {
			continue
		}
		r := "(*" + recv + ")"
		if values.Lookup(m.Pkg(), m.Name()) != nil {
			r = "(" + recv + ")"
		}
		w.emit("method ", r, " ", m.Name(), w.signature(m.Type().(*types.Signature)))
	}
}

// typeParams prints a type parameter list, or nothing when there is none.
func (w *writer) typeParams(tp *types.TypeParamList) string {
	if tp == nil || tp.Len() == 0 {
		return ""
	}
	parts := make([]string, tp.Len())
	for i := range tp.Len() {
		p := tp.At(i)
		parts[i] = p.Obj().Name() + " " + w.typ(p.Constraint())
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// signature prints parameters and results without their names.
func (w *writer) signature(sig *types.Signature) string {
	var b strings.Builder
	b.WriteString("(")
	params := sig.Params()
	for i := range params.Len() {
		if i > 0 {
			b.WriteString(", ")
		}
		t := params.At(i).Type()
		if sig.Variadic() && i == params.Len()-1 {
			if s, ok := t.(*types.Slice); ok {
				b.WriteString("..." + w.typ(s.Elem()))
				continue
			}
		}
		b.WriteString(w.typ(t))
	}
	b.WriteString(")")
	results := sig.Results()
	switch results.Len() {
	case 0:
	case 1:
		b.WriteString(" " + w.typ(results.At(0).Type()))
	default:
		parts := make([]string, results.Len())
		for i := range results.Len() {
			parts[i] = w.typ(results.At(i).Type())
		}
		b.WriteString(" (" + strings.Join(parts, ", ") + ")")
	}
	return b.String()
}

// typ prints a type; names of other packages are qualified by import path.
func (w *writer) typ(t types.Type) string {
	switch t := t.(type) {
	case *types.Basic:
		if t.Kind() == types.UnsafePointer {
			return "unsafe.Pointer"
		}
		return t.Name()
	case *types.Alias:
		return w.qualified(t.Obj()) + w.typeArgs(t.TypeArgs())
	case *types.Named:
		return w.qualified(t.Obj()) + w.typeArgs(t.TypeArgs())
	case *types.TypeParam:
		return t.Obj().Name()
	case *types.Pointer:
		return "*" + w.typ(t.Elem())
	case *types.Slice:
		return "[]" + w.typ(t.Elem())
	case *types.Array:
		return "[" + strconv.FormatInt(t.Len(), 10) + "]" + w.typ(t.Elem())
	case *types.Map:
		return "map[" + w.typ(t.Key()) + "]" + w.typ(t.Elem())
	case *types.Chan:
		elem := w.typ(t.Elem())
		switch t.Dir() {
		case types.SendOnly:
			return "chan<- " + elem
		case types.RecvOnly:
			return "<-chan " + elem
		}
		if c, ok := t.Elem().(*types.Chan); ok && c.Dir() == types.RecvOnly {
			elem = "(" + elem + ")"
		}
		return "chan " + elem
	case *types.Signature:
		return "func" + w.signature(t)
	case *types.Struct:
		if t.NumFields() == 0 {
			return "struct{}"
		}
		parts := make([]string, t.NumFields())
		for i := range t.NumFields() {
			f := t.Field(i)
			s := w.typ(f.Type())
			if !f.Embedded() {
				s = f.Name() + " " + s
			}
			if tag := t.Tag(i); tag != "" {
				s += " " + strconv.Quote(tag)
			}
			parts[i] = s
		}
		return "struct{ " + strings.Join(parts, "; ") + " }"
	case *types.Interface:
		return w.iface(t)
	case *types.Union:
		parts := make([]string, t.Len())
		for i := range t.Len() {
			term := t.Term(i)
			parts[i] = w.typ(term.Type())
			if term.Tilde() {
				parts[i] = "~" + parts[i]
			}
		}
		return strings.Join(parts, " | ")
	case *types.Tuple:
		parts := make([]string, t.Len())
		for i := range t.Len() {
			parts[i] = w.typ(t.At(i).Type())
		}
		return "(" + strings.Join(parts, ", ") + ")"
	}
	return t.String()
}

// iface prints an interface literal: its explicit methods and embedded
// types, sorted; an empty one is any.
func (w *writer) iface(t *types.Interface) string {
	var parts []string
	for i := range t.NumExplicitMethods() {
		m := t.ExplicitMethod(i)
		parts = append(parts, m.Name()+w.signature(m.Type().(*types.Signature)))
	}
	for i := range t.NumEmbeddeds() {
		parts = append(parts, w.typ(t.EmbeddedType(i)))
	}
	if len(parts) == 0 {
		return "any"
	}
	sort.Strings(parts)
	return "interface{ " + strings.Join(parts, "; ") + " }"
}

func (w *writer) typeArgs(args *types.TypeList) string {
	if args == nil || args.Len() == 0 {
		return ""
	}
	parts := make([]string, args.Len())
	for i := range args.Len() {
		parts[i] = w.typ(args.At(i))
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func (w *writer) qualified(obj *types.TypeName) string {
	if obj.Pkg() == nil || obj.Pkg() == w.pkg {
		return obj.Name()
	}
	return obj.Pkg().Path() + "." + obj.Name()
}

// value prints a constant's value: exactly, but a float as the shortest
// decimal that reads back as the same float64 (0.3, not 3/10).
func value(v constant.Value) string {
	if v.Kind() == constant.Float {
		if f, _ := constant.Float64Val(v); !math.IsInf(f, 0) {
			return strconv.FormatFloat(f, 'g', -1, 64)
		}
	}
	return v.ExactString()
}

// compact drops repeats from a sorted slice.
func compact(s []string) []string {
	out := s[:0]
	for i, v := range s {
		if i > 0 && v == s[i-1] {
			continue
		}
		out = append(out, v)
	}
	return out
}
