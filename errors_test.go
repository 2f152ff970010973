package reconcile_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pdnskit/reconcile"
)

func TestNewSentinelErrors(t *testing.T) {
	tests := []struct {
		name, url, key string
		want           error
	}{
		{"no scheme", "pdns:8081", "k", reconcile.ErrInvalidServerURL},
		{"path", "http://pdns:8081/pdns", "k", reconcile.ErrInvalidServerURL},
		{"query with the key", "http://pdns:8081/?api-key=s3cr3t", "s3cr3t", reconcile.ErrInvalidServerURL},
		{"password in an unparsable URL", "http://u:pw-s3cr3t@pdns:80x1", "k", reconcile.ErrInvalidServerURL},
		{"key with a newline", "http://pdns:8081", "s3cr3t\n", reconcile.ErrInvalidAPIKey},
		{"key with a C1 control", "http://pdns:8081", "s3cr3t\u0085", reconcile.ErrInvalidAPIKey},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := reconcile.New(tc.url, reconcile.WithAPIKey(tc.key), reconcile.WithManagedBy("test"))
			require.Error(t, err)
			assert.True(t, errors.Is(err, tc.want), "%v", err)
			assert.NotContains(t, err.Error(), "s3cr3t")
		})
	}
	_, err := reconcile.New("http://pdns:8081", reconcile.WithAPIKey("k"), reconcile.WithManagedBy("test"))
	assert.NoError(t, err)
}
