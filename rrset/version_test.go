package rrset_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pdnskit/reconcile/rrset"
)

func TestCheckVersion(t *testing.T) {
	empty, err := rrset.New(zone, "g", "TYPE65420", 300, `\# 0`, `\# 1 00`)
	require.NoError(t, err)
	data, err := rrset.New(zone, "g", "TYPE65420", 300, `\# 2 4142`)
	require.NoError(t, err)
	tests := []struct {
		name    string
		rr      rrset.RRset
		version string
		refused bool
	}{
		{"empty data on 4.7", empty, "4.7.3", true},
		{"empty data on 4.9", empty, "4.9.18", true},
		{"empty data on 5.0", empty, "5.0.2", true},
		{"empty data on 5.1", empty, "5.1.5", false},
		{"empty data on a 5.1 beta", empty, "5.1.0-beta1", false},
		{"empty data on 6.0", empty, "6.0.0", false},
		{"data on 4.7", data, "4.7.3", false},
		{"unreadable version", empty, "master", false},
		{"no version", empty, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := rrset.CheckVersion(tt.rr, tt.version)
			if !tt.refused {
				assert.NoError(t, err)
				return
			}
			var ve *rrset.VersionError
			require.True(t, errors.As(err, &ve), "%v", err)
			assert.Equal(t, tt.version, ve.Version)
			assert.Equal(t, "5.1", ve.Since)
			assert.Equal(t, `\# 0`, ve.Content)
			assert.Equal(t, "TYPE65420", ve.Type)
			assert.Contains(t, err.Error(), "PowerDNS "+tt.version)
		})
	}
}
