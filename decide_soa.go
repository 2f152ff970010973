package reconcile

import (
	"strings"

	"github.com/pdnskit/reconcile/rrset"
)

// withLiveSerial returns desired with its apex SOA carrying the live SOA's
// serial, when the zone's SOA-EDIT-API makes PowerDNS replace the serial of
// every SOA written through the API (rrset.SOASerialRewritten): the desired
// serial can then never be what the zone holds, and comparing it would
// rewrite the SOA on every operation. The other fields are still compared
// (as rrset.EqualIgnoringSerial does), and written when they differ.
// desired is changed in place (the same way each time), and returned.
func withLiveSerial(desired *rrset.Set, obs *observation) *rrset.Set {
	if !obs.serialRewritten || desired == nil {
		return desired
	}
	k := rrset.Key{Name: desired.Zone(), Type: "SOA"}
	want, ok := desired.Get(k)
	if !ok || len(want.Records) != 1 {
		return desired
	}
	live, ok := obs.set.Get(k)
	if !ok || len(live.Records) != 1 {
		return desired
	}
	content, ok := replaceSerial(want.Records[0], live.Records[0])
	if !ok || content == want.Records[0] {
		return desired
	}
	want.Records = []string{content}
	desired.Delete(k)
	_ = desired.Add(want)
	return desired
}

// replaceSerial puts the serial (third field) of from into soa.
func replaceSerial(soa, from string) (string, bool) {
	f, g := strings.Fields(soa), strings.Fields(from)
	if len(f) != 7 || len(g) != 7 {
		return soa, false
	}
	f[2] = g[2]
	return strings.Join(f, " "), true
}
