package pdnsapi

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReadBody(t *testing.T) {
	body := `{"name":"example.com.","rrsets":[]}`
	for _, tc := range []struct {
		name     string
		announce int64
		body     string
		want     string
		err      error
	}{
		{name: "announced length", announce: int64(len(body)), body: body, want: body},
		{name: "no length announced", announce: -1, body: body, want: body},
		{name: "longer than announced", announce: 5, body: body, want: body},
		{name: "shorter than announced", announce: int64(len(body)) + 10, body: body, err: io.ErrUnexpectedEOF},
		{name: "empty where a length was announced", announce: 10, body: "", err: io.ErrUnexpectedEOF},
		{name: "length past the size cap", announce: 1 << 40, body: body, want: body},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := &http.Response{ContentLength: tc.announce, Body: io.NopCloser(strings.NewReader(tc.body))}
			got, err := readBody(resp)
			if tc.err != nil {
				require.Error(t, err)
				assert.True(t, errors.Is(err, tc.err), "error %v, want %v", err, tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, string(got))
		})
	}
}
