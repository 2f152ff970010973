package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pdnskit/reconcile/rrset"
)

// FuzzReadZoneFile checks that any zone file, for any zone, either fails
// with an error naming the file, or gives RRsets in canonical form, inside
// the zone, one per name and type, without the zone's SOA or apex NS; and
// that it never panics.
func FuzzReadZoneFile(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("testdata", "*.zone"))
	for _, path := range seeds {
		b, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add("example.com.", b)
	}
	f.Add("example.com", []byte("$ORIGIN sub.example.com.\nwww 60 IN A 192.0.2.1\n"))
	f.Add("Example.COM.", []byte("@ IN TXT \"a\" \"b\"\n@ 10 IN TXT c\n"))
	f.Add("example.com.", []byte("$INCLUDE /etc/passwd\n"))
	f.Add("example.com.", []byte("a IN CNAME @\na IN A 192.0.2.1\n( unbalanced\n"))
	f.Add("example.com.", []byte("x 1 CH A 1.2.3.4\n\\000 IN A 192.0.2.1\n"))

	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, zone string, data []byte) {
		canonical, err := rrset.CanonicalZone(zone)
		if err != nil {
			return
		}
		path := filepath.Join(dir, "fuzz.zone")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		zf, err := readZoneFile(path, canonical)
		if err != nil {
			if !strings.Contains(err.Error(), "-file") && !strings.Contains(err.Error(), path) {
				t.Fatalf("error names neither the file nor -file: %v", err)
			}
			return
		}
		seen := make(map[rrset.Key]bool)
		for _, rr := range zf.desired {
			if seen[rr.Key()] {
				t.Fatalf("%s twice", rr.Key())
			}
			seen[rr.Key()] = true
			again, err := rrset.New(canonical, rr.Name, rr.Type, rr.TTL, rr.Records...)
			if err != nil {
				t.Fatalf("%s %s does not canonicalise again: %v", rr.Name, rr.Type, err)
			}
			if !again.EqualData(rr) || again.Name != rr.Name {
				t.Fatalf("%s %s not canonical: %v, again %v", rr.Name, rr.Type, rr, again)
			}
			if rr.Name != canonical && !strings.HasSuffix(rr.Name, "."+canonical) {
				t.Fatalf("%s outside %s", rr.Name, canonical)
			}
			if rr.Name == canonical && (rr.Type == "SOA" || rr.Type == "NS") {
				t.Fatalf("%s %s kept", rr.Name, rr.Type)
			}
		}
	})
}
