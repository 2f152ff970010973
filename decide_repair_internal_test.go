package reconcile

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pdnskit/reconcile/internal/zonejson"
	"github.com/pdnskit/reconcile/rrset"
)

// TestDecideRepairsRepeatedRecords: an RRset PowerDNS stores with a record
// twice reads as the desired RRset, yet the writer's own is written again
// (once each), in scope only; another writer's, or one the plan already
// changes, is left to the rest of decide.
func TestDecideRepairsRepeatedRecords(t *testing.T) {
	soa := zonejson.RRset{Name: testZone, Type: "SOA", TTL: 3600, Records: []zonejson.Record{{Content: "ns1.example.net. hostmaster.example.com. 1 10800 3600 604800 3600"}}}
	twice := func(name, holder string, contents ...string) zonejson.RRset {
		var recs []zonejson.Record
		for _, c := range contents {
			recs = append(recs, zonejson.Record{Content: c})
		}
		return zonejson.RRset{Name: name + "." + testZone, Type: "A", TTL: 300, Records: recs,
			Comments: []zonejson.Comment{{Account: commentAccount, Content: "managed-by=" + holder}}}
	}
	z := zonejson.Zone{Name: testZone, RRsets: []zonejson.RRset{soa,
		twice("a", "me", "192.0.2.2", "192.0.2.2"),
		twice("b", "me", "192.0.2.3", "192.0.2.4"),
		twice("c", "them", "192.0.2.5", "192.0.2.5"),
		twice("d", "me", "192.0.2.6", "192.0.2.6"),
		twice("e", "me", "192.0.2.7", "192.0.2.7"),
	}}
	obs, err := observe(testZone, z, nil, "me", readScope{}, nil, func(string, ...any) {})
	require.NoError(t, err)
	assert.ElementsMatch(t, []rrset.Key{{Name: "a." + testZone, Type: "A"}, {Name: "c." + testZone, Type: "A"},
		{Name: "d." + testZone, Type: "A"}, {Name: "e." + testZone, Type: "A"}}, obs.repeated)

	desired := setOf(t,
		rr(t, "me", "a", "A", "192.0.2.2"),
		rr(t, "me", "b", "A", "192.0.2.3", "192.0.2.4"),
		rr(t, "me", "c", "A", "192.0.2.5"),
		rr(t, "me", "d", "A", "192.0.2.9"),
		rr(t, "me", "e", "A", "192.0.2.7"))

	t.Run("sync", func(t *testing.T) {
		d := decide(intent{desired: desired}, obs, defaultRules(), &memory{})
		assert.Equal(t, []string{"update d A", "update a A", "update e A", "blocked c A NotOwner"}, summary(d))
		for _, c := range d.plan.Changes {
			assert.Equal(t, "me", c.New.ManagedBy)
			assert.Len(t, c.New.Records, 1, "each record once")
		}
	})
	t.Run("one key", func(t *testing.T) {
		k := rrset.Key{Name: "e." + testZone, Type: "A"}
		d := decide(intent{desired: desired, keys: []rrset.Key{k}}, obs, defaultRules(), &memory{})
		assert.Equal(t, []string{"update e A"}, summary(d))
	})
}
