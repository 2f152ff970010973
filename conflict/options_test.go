package conflict_test

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/pdnskit/reconcile/conflict"
)

// staticType returns the type an expression has at compile time, which is
// what decides whether it may be passed to a call.
func staticType[T any](T) reflect.Type { return reflect.TypeFor[T]() }

// TestOptionTypes checks, for every option, which calls accept it: an
// option is assignable to a call's option type exactly when the call
// honours it, so that Against(want, w, live, WithPolicy(Takeover)) and
// Check(desired, live, w, WithZone(z)) do not compile. Both the type the
// option function declares and the type of the value it returns are
// checked, so that no type assertion reaches a call the option does not
// apply to either.
func TestOptionTypes(t *testing.T) {
	var (
		check   = reflect.TypeFor[conflict.CheckOption]()
		against = reflect.TypeFor[conflict.AgainstOption]()
	)
	type takes struct{ check, against bool }
	for _, tc := range []struct {
		name   string
		static reflect.Type
		value  any
		takes  takes
	}{
		{"WithPolicy", staticType(conflict.WithPolicy(conflict.Takeover)), conflict.WithPolicy(conflict.Takeover), takes{true, false}},
		{"WithZone", staticType(conflict.WithZone("example.com.")), conflict.WithZone("example.com."), takes{false, true}},
		{"WithAdoption", staticType(conflict.WithAdoption(true)), conflict.WithAdoption(true), takes{true, true}},
		{"WithDisabledLive", staticType(conflict.WithDisabledLive()), conflict.WithDisabledLive(), takes{true, true}},
		{"WithAllowed", staticType(conflict.WithAllowed()), conflict.WithAllowed(), takes{true, true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, typ := range []reflect.Type{tc.static, reflect.TypeOf(tc.value)} {
				got := takes{typ.AssignableTo(check), typ.AssignableTo(against)}
				assert.Equal(t, tc.takes, got, "%s: Check, Against", typ)
			}
		})
	}
}

// TestNilOptions checks that a nil option is skipped by every call.
func TestNilOptions(t *testing.T) {
	assert.NotPanics(t, func() {
		conflict.Check(nil, nil, "w", nil)
		conflict.Against(lv("x", "A", "", "192.0.2.1"), "w", nil, nil)
	})
}
