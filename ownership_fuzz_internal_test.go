package reconcile

import (
	"encoding/json"
	"testing"

	"github.com/pdnskit/reconcile/internal/claimrec"
)

// FuzzOwnerRoundTrip: an owner that validOwner accepts reads back exactly
// as written, through JSON (how it travels to PowerDNS and back) and
// through a claim record (how the metadata store keeps it). An owner that
// did not would make its RRset seem to change hands on every write, or
// lose its claim.
func FuzzOwnerRoundTrip(f *testing.F) {
	for _, seed := range []string{"ns/name", "team=a/obj", "ünïcode/名前", "no\u00a0break", "caf\xe9", "a\u2028b"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, owner string) {
		if owner == "" || validOwner(owner) != "" {
			return
		}
		body, err := json.Marshal(owner)
		if err != nil {
			t.Fatalf("marshal %q: %v", owner, err)
		}
		var back string
		if err := json.Unmarshal(body, &back); err != nil || back != owner {
			t.Fatalf("JSON gives %q back for %q (%v)", back, owner, err)
		}
		kind := claimrec.ClaimPrefix + "test-1"
		rec := claimrec.Record{Writer: "w", Claims: []claimrec.Claim{
			{Name: "a.example.", Type: "A", Stamp: 1, Owner: owner},
			{Name: "b.example.", Type: "A", Stamp: 2, Owner: owner},
		}}
		got, ok := claimrec.Parse(kind, rec.Values(valueBudget(DefaultMaxPatchBytes)))
		if !ok || len(got.Claims) != 2 || got.Claims[0].Owner != owner || got.Claims[1].Owner != owner {
			t.Fatalf("a claim record gives %+v back for owner %q", got.Claims, owner)
		}
	})
}
