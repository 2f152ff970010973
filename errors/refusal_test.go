package errors_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	pdnserrors "github.com/pdnskit/reconcile/errors"
)

func TestRefusesContent(t *testing.T) {
	cases := map[int][2]bool{ // status: refuses content, too large
		400: {true, false},
		401: {false, false},
		403: {false, false},
		404: {false, false},
		409: {false, false},
		413: {true, true},
		422: {true, false},
		500: {false, false},
		502: {false, false},
	}
	for status, want := range cases {
		e := &pdnserrors.APIError{StatusCode: status}
		assert.Equal(t, want[0], e.RefusesContent(), "%d", status)
		assert.Equal(t, want[1], e.TooLarge(), "%d", status)
	}
}
