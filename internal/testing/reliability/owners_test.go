package reliability_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pdnskit/reconcile"
	"github.com/pdnskit/reconcile/pdnstest"
	"github.com/pdnskit/reconcile/rrset"
)

// snapshot is a zone as read straight from the server: its data, and who
// owns each RRset, read through the library's public Reconciler.Live (RRset
// comments, and the claims in zone metadata).
type snapshot struct {
	state  zoneState
	owners map[rrset.Key]string
}

func takeSnapshot(t *testing.T, srv *pdnstest.Server, zone string) snapshot {
	t.Helper()
	// A reader of both stores: comments first, claims where there are none.
	reader, err := reconcile.New(srv.URL, reconcile.WithAPIKey(srv.APIKey), reconcile.WithManagedBy("snapshot"),
		reconcile.WithOwnershipStore(reconcile.OwnershipMetadata))
	require.NoError(t, err)
	var live []rrset.RRset
	harnessRead(t, func(ctx context.Context) error {
		var err error
		live, err = reader.Live(ctx, zone)
		return err
	})
	s := snapshot{state: make(zoneState), owners: make(map[rrset.Key]string)}
	for _, rr := range live {
		if rr.Type == "SOA" {
			continue
		}
		s.state[rr.Key()] = rr.Records
		if rr.ManagedBy != "" {
			s.owners[rr.Key()] = rr.ManagedBy
		}
	}
	return s
}

// typesAt lists the types held at each name.
func (s snapshot) typesAt() map[string][]string {
	out := make(map[string][]string)
	for k := range s.state {
		out[k.Name] = append(out[k.Name], k.Type)
	}
	return out
}

// cnameNextToAddress names a name that holds a CNAME next to an A or AAAA,
// "" when none does.
func (s snapshot) cnameNextToAddress() string {
	for name, types := range s.typesAt() {
		joined := "," + strings.Join(types, ",") + ","
		if strings.Contains(joined, ",CNAME,") && (strings.Contains(joined, ",A,") || strings.Contains(joined, ",AAAA,")) {
			return name
		}
	}
	return ""
}
