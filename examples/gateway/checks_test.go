package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/pdnskit/reconcile/rrset"
)

// TestChecksFail: each broken promise is reported, with what broke it, and
// fails the demo.
func TestChecksFail(t *testing.T) {
	var out bytes.Buffer
	d := &demo{out: &out, zone: "gateway.example."}
	d.ext = &writer{name: "external-dns", wire: newWire(), turnedDown: map[rrset.Key]bool{}}
	d.gw = &writer{name: "gateway-dns", wire: newWire(), turnedDown: map[rrset.Key]bool{}}
	cname := rrset.Key{Name: "v4.gw1.gateway.example.", Type: "CNAME"}
	d.gw.turnedDown[cname] = true
	d.gw.wire.writes[cname] = 2
	d.gw.wire.answers[422] = 2
	d.checks.cnameWithAddress = []string{"after step 2, v4.gw1 held A and CNAME"}
	d.checks.deletedInFlap = []string{"lost v4.gw2 A"}

	assert.False(t, d.checks.report(d))
	assert.Equal(t, `
Checks
   FAIL  no name held a CNAME next to an A or AAAA, after any step
         after step 2, v4.gw1 held A and CNAME
   FAIL  no wanted record was deleted during the flap
         lost v4.gw2 A
   FAIL  no 422 reached PowerDNS: 2 422 answers, 2 4xx answers in all
   FAIL  no refused write was sent more than once: 1 write blocked or refused, sent 2 times
         gateway-dns sent v4.gw1 CNAME 2 times
`, out.String())

	out.Reset()
	d.checks = checks{}
	d.gw.wire = newWire()
	assert.True(t, d.checks.report(d))
}
