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

// deleted is rr as a delete stands for it: its key, without records.
func deleted(rr rrset.RRset) rrset.RRset { return rrset.RRset{Name: rr.Name, Type: rr.Type} }

func TestCheckVersionStoredTypes(t *testing.T) {
	lua, err := rrset.New(zone, "l", "LUA", 300, `A "ifportup(443, {'192.0.2.1'})"`)
	require.NoError(t, err)
	minute, err := rrset.New(zone, "loc", "LOC", 300, "52 22 23 N 4 53 32 E -2", "1 1 0 N 1 0 0 E 0")
	require.NoError(t, err)
	equator, err := rrset.New(zone, "loc", "LOC", 300, "0 N 10 E 0")
	require.NoError(t, err)
	fine, err := rrset.New(zone, "loc", "LOC", 300, "52 22 23 N 4 53 32 E -2", "1 1 0.001 N 1 0 0 E 0")
	require.NoError(t, err)
	tests := []struct {
		name         string
		rr           rrset.RRset
		version      string
		since, until string
		content      string
	}{
		{name: "LUA on 4.7", rr: lua, version: "4.7.3"},
		{name: "LUA on 5.0", rr: lua, version: "5.0.2"},
		{name: "LUA on 5.1", rr: lua, version: "5.1.5", until: "5.1", content: lua.Records[0]},
		{name: "LUA on 6.0", rr: lua, version: "6.0.0", until: "5.1", content: lua.Records[0]},
		{name: "LUA delete on 4.7", rr: deleted(lua), version: "4.7.3"},
		{name: "LUA delete on 5.0", rr: deleted(lua), version: "5.0.2"},
		{name: "LUA delete on 5.1", rr: deleted(lua), version: "5.1.5", until: "5.1"},
		{name: "LUA delete on 6.0", rr: deleted(lua), version: "6.0.0", until: "5.1"},
		{name: "LUA delete on no version", rr: deleted(lua), version: "master"},
		{name: "LOC delete on 4.9", rr: deleted(minute), version: "4.9.18"},
		{name: "LOC on a whole minute on 4.7", rr: minute, version: "4.7.3", since: "5.0", content: "1 1 0.000 N 1 0 0.000 E 0.00m 1.00m 10000.00m 10.00m"},
		{name: "LOC on a whole minute on 4.9", rr: minute, version: "4.9.18", since: "5.0", content: "1 1 0.000 N 1 0 0.000 E 0.00m 1.00m 10000.00m 10.00m"},
		{name: "LOC on a whole minute on 5.0", rr: minute, version: "5.0.2"},
		{name: "LOC on a whole minute on 5.1", rr: minute, version: "5.1.5"},
		{name: "LOC on the equator on 4.9", rr: equator, version: "4.9.18", since: "5.0", content: equator.Records[0]},
		{name: "LOC 4.x prints alike", rr: fine, version: "4.7.3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := rrset.CheckVersion(tt.rr, tt.version)
			if tt.since == "" && tt.until == "" {
				assert.NoError(t, err)
				return
			}
			var ve *rrset.VersionError
			require.True(t, errors.As(err, &ve), "%v", err)
			assert.Equal(t, tt.since, ve.Since)
			assert.Equal(t, tt.until, ve.Until)
			assert.Equal(t, tt.content, ve.Content)
			assert.Equal(t, tt.version, ve.Version)
			assert.Contains(t, err.Error(), "PowerDNS "+tt.version)
			switch {
			case tt.until != "" && len(tt.rr.Records) == 0:
				assert.Equal(t, "rrset: l.example.com. LUA: PowerDNS "+tt.version+
					" refuses to delete LUA records through its API unless enable-lua-record-updates is set; PowerDNS before 5.1 deletes it", err.Error())
			case tt.until != "":
				assert.Contains(t, err.Error(), "enable-lua-record-updates")
				assert.Contains(t, err.Error(), "PowerDNS before "+tt.until+" stores it")
			default:
				assert.Contains(t, err.Error(), "PowerDNS "+tt.since+" and later store it")
			}
		})
	}
}
