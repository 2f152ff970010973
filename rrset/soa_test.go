package rrset_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/pdnskit/reconcile/rrset"
)

func TestSOASerialRewritten(t *testing.T) {
	tests := []struct {
		api, edit string
		want      bool
	}{
		{"DEFAULT", "", true},
		{"default", "", true},
		{"INCREASE", "", true},
		{"EPOCH", "", true},
		{"SOA-EDIT-INCREASE", "", true},
		{"SOA-EDIT", "EPOCH", true},
		{"soa-edit", "INCEPTION-INCREMENT", true},
		{"SOA-EDIT", "", false},
		{"SOA-EDIT", "NONE", false},
		{"", "EPOCH", false},
		{"OFF", "", false},
		{"off", "", false},
		{"BOGUS", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.api+"/"+tt.edit, func(t *testing.T) {
			assert.Equal(t, tt.want, rrset.SOASerialRewritten(tt.api, tt.edit))
		})
	}
}

func TestEqualIgnoringSerial(t *testing.T) {
	soa := func(ttl uint32, content string) rrset.RRset {
		t.Helper()
		rr, err := rrset.New(zone, "@", "SOA", ttl, content)
		assert.NoError(t, err)
		return rr
	}
	base := soa(3600, "ns1.example.net. hostmaster.example.net. 1 10800 3600 604800 3600")
	other, err := rrset.New(zone, "www", "A", 3600, "192.0.2.1")
	assert.NoError(t, err)
	tests := []struct {
		name string
		b    rrset.RRset
		want bool
	}{
		{"same", base, true},
		{"other serial", soa(3600, "ns1.example.net. hostmaster.example.net. 2026120101 10800 3600 604800 3600"), true},
		{"spelled otherwise, other serial", soa(3600, "NS1.example.net hostmaster.example.net 02 10800 3600 604800 3600"), true},
		{"other TTL", soa(60, "ns1.example.net. hostmaster.example.net. 1 10800 3600 604800 3600"), false},
		{"other primary", soa(3600, "ns2.example.net. hostmaster.example.net. 1 10800 3600 604800 3600"), false},
		{"other mailbox", soa(3600, "ns1.example.net. testmaster@example.net. 1 10800 3600 604800 3600"), false},
		{"other minimum", soa(3600, "ns1.example.net. hostmaster.example.net. 1 10800 3600 604800 300"), false},
		{"not an SOA", other, false},
		{"no records", rrset.RRset{Name: zone, Type: "SOA", TTL: 3600}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, rrset.EqualIgnoringSerial(base, tt.b))
			assert.Equal(t, tt.want, rrset.EqualIgnoringSerial(tt.b, base), "symmetric")
		})
	}
}
