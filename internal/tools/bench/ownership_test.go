package bench

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/joeig/go-powerdns/v3"
)

// encoderBody is one PATCH body of sets as go-powerdns encodes it.
func encoderBody(t *testing.T, sets []powerdns.RRset) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(powerdns.RRsets{Sets: sets}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestBodies(t *testing.T) {
	c, err := NewCase(Deleted, 200)
	if err != nil {
		t.Fatal(err)
	}
	own := Ownership{Store: StoreComments, Comments: []powerdns.Comment{{Content: powerdns.String("managed-by=bench"), Account: powerdns.String("bench")}}}
	whole, err := Bodies(c.Changes, own, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(whole) != 1 {
		t.Fatalf("no limit: %d bodies, want 1", len(whole))
	}
	// Deletes first, then the writes, as go-powerdns would encode them.
	var sets []powerdns.RRset
	for _, del := range []bool{true, false} {
		for _, ch := range c.Changes {
			if ch.Delete == del {
				sets = append(sets, ChangeEntry(ch, own.comments()))
			}
		}
	}
	if want := encoderBody(t, sets); !bytes.Equal(whole[0], want) {
		t.Errorf("body differs from go-powerdns's encoding:\n%s\nwant\n%s", whole[0], want)
	}

	initial, err := NewCase(Initial, 1000)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		own  Ownership
	}{{"comments", own}, {"none", Ownership{Store: StoreNone}}} {
		t.Run(tc.name, func(t *testing.T) {
			one, err := Bodies(initial.Changes, tc.own, 0)
			if err != nil {
				t.Fatal(err)
			}
			limit := len(one[0]) / 3
			split, err := Bodies(initial.Changes, tc.own, limit)
			if err != nil {
				t.Fatal(err)
			}
			if len(split) < 3 || len(split) > 4 {
				t.Errorf("%d bytes under a limit of %d: %d bodies", len(one[0]), limit, len(split))
			}
			var entries []json.RawMessage
			for i, b := range split {
				if len(b) > limit {
					t.Errorf("body %d is %d bytes, over the limit of %d", i, len(b), limit)
				}
				var got struct{ RRsets []json.RawMessage }
				if err := json.Unmarshal(b, &got); err != nil {
					t.Fatalf("body %d: %v", i, err)
				}
				entries = append(entries, got.RRsets...)
			}
			if len(entries) != len(initial.Changes) {
				t.Errorf("the bodies hold %d entries, want %d", len(entries), len(initial.Changes))
			}
			hasComments := strings.Contains(string(one[0]), `"comments"`)
			if hasComments != (tc.own.Store == StoreComments) {
				t.Errorf("comments in the body: %v, store %s", hasComments, tc.own.Store)
			}
		})
	}
	if b, err := Bodies(nil, own, 0); err != nil || b != nil {
		t.Errorf("no changes: %d bodies, %v", len(b), err)
	}
}

func TestClaimAndReleaseValues(t *testing.T) {
	specs := Workload(3)
	claims := ClaimValues(specs, 42)
	want := []string{"writer " + ManagedBy, "claims host-0.bench.example. A 42 = host-1.bench.example. A 42 = host-2.bench.example. A 42 ="}
	if strings.Join(claims, "|") != strings.Join(want, "|") {
		t.Errorf("claims = %q, want %q", claims, want)
	}
	releases := ReleaseValues(specs[1:2], SeedClaimKind)
	if want := []string{"writer " + ManagedBy, "releases host-1.bench.example. A " + SeedClaimKind}; strings.Join(releases, "|") != strings.Join(want, "|") {
		t.Errorf("releases = %q, want %q", releases, want)
	}
	body, err := MetadataBody(FloorClaimKind, claims)
	if err != nil {
		t.Fatal(err)
	}
	var md powerdns.Metadata
	if err := json.Unmarshal(body, &md); err != nil || md.Kind == nil || string(*md.Kind) != FloorClaimKind || len(md.Metadata) != 2 {
		t.Errorf("metadata body %s decodes to %+v, %v", body, md, err)
	}
}

func TestCreatedAndDeleted(t *testing.T) {
	for _, tc := range []struct {
		s                Scenario
		created, deleted int
	}{
		{Initial, 1000, 0},
		{Changed, 0, 0}, // updates of RRsets the start holds claim nothing new
		{NoOp, 0, 0},
		{Deleted, 0, 100},
	} {
		t.Run(tc.s.String(), func(t *testing.T) {
			c, err := NewCase(tc.s, 1000)
			if err != nil {
				t.Fatal(err)
			}
			created, deleted := createdAndDeleted(c)
			if len(created) != tc.created || len(deleted) != tc.deleted {
				t.Errorf("created %d, deleted %d; want %d, %d", len(created), len(deleted), tc.created, tc.deleted)
			}
		})
	}
}
