package pdnsapi

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBoundedBody(t *testing.T) {
	cases := []struct {
		name    string
		body    string
		limit   int64
		tooMuch bool
	}{
		{"under", "abc", 10, false},
		{"exactly", "abcdefghij", 10, false},
		{"one over", "abcdefghijk", 10, true},
		{"far over", strings.Repeat("x", 1<<16), 100, true},
		{"empty", "", 1, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := &boundedBody{rc: io.NopCloser(strings.NewReader(c.body)), left: c.limit, limit: c.limit}
			got, err := io.ReadAll(b)
			if !c.tooMuch {
				require.NoError(t, err)
				assert.Equal(t, c.body, string(got))
				return
			}
			var tooLarge *ResponseTooLargeError
			require.True(t, errors.As(err, &tooLarge), "error %v", err)
			assert.Equal(t, c.limit, tooLarge.Limit)
			assert.LessOrEqual(t, int64(len(got)), c.limit)
		})
	}
}
