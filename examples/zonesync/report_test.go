package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/pdnskit/reconcile"
	pdnserrors "github.com/pdnskit/reconcile/errors"
	"github.com/pdnskit/reconcile/rrset"
)

// TestReportSections renders what a live server rarely produces on demand:
// a refusal by PowerDNS, deletes held by the delete guard and changes
// postponed by another writer's Sync.
func TestReportSections(t *testing.T) {
	www := rrset.RRset{Name: "www.example.com.", Type: "A", TTL: 300, Records: []string{"192.0.2.1"}, ManagedBy: "zonesync"}
	old := rrset.RRset{Name: "old.example.com.", Type: "TXT", TTL: 300, Records: []string{`"x"`}, ManagedBy: "zonesync"}
	create := rrset.Change{Op: rrset.OpCreate, New: &www}
	rep := newReport(&config{zone: "example.com.", managedBy: "zonesync", file: "example.zone", apply: true}, &zoneFile{})
	rep.addRefused([]reconcile.Refusal{{Change: create, Remembered: true, Problems: []pdnserrors.Problem{{
		Reason: pdnserrors.Conflict, Message: "RRset www.example.com. IN A: Conflicts with pre-existing RRset",
	}}}})
	rep.addDeferred([]reconcile.Deferral{{RRset: old, Reason: reconcile.DeferGuard}})
	rep.Postponed = []rrset.Change{create}
	rep.PostponedFor = []string{"external-dns"}

	var out bytes.Buffer
	rep.writeText(&out)
	assert.Equal(t, `Nothing applied to example.com. by zonesync: no changes.
Refused by PowerDNS:
  www.example.com. A create: RRset www.example.com. IN A: Conflicts with pre-existing RRset (refused before, not sent again)
Deletes held back:
  old.example.com. TXT: this run would delete over 30% of the writer's RRsets in the zone; -force-deletes lets it
Postponed: 1 change(s), external-dns writing to the zone; run again.
`, out.String())
	assert.True(t, rep.held(), "exit code 2")
}
