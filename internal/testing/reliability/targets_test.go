package reliability_test

import (
	"path"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/pdnskit/reconcile/pdnstest"
)

// targetSelector picks, from the configured targets, those a test runs on.
type targetSelector func([]pdnstest.Target) []pdnstest.Target

// where selects the targets that want accepts.
func where(want func(pdnstest.Target) bool) targetSelector {
	return func(targets []pdnstest.Target) []pdnstest.Target {
		var out []pdnstest.Target
		for _, tg := range targets {
			if want(tg) {
				out = append(out, tg)
			}
		}
		return out
	}
}

// everyTarget selects every configured target.
var everyTarget = where(func(pdnstest.Target) bool { return true })

// sqlBackend accepts the targets of two frontends on one database.
func sqlBackend(tg pdnstest.Target) bool {
	return tg.Backend == pdnstest.GPGSQL || tg.Backend == pdnstest.GMySQL
}

// newestOfEach selects, for each of backends, the configured target of
// the newest PowerDNS version, as its image's tag or its root's name says
// it: a test that costs a server of its own per target, and is about the
// database rather than the version, runs once per backend. A version that
// can be read beats one that cannot; of two equal, the one configured
// last wins.
func newestOfEach(backends ...pdnstest.Backend) targetSelector {
	return func(targets []pdnstest.Target) []pdnstest.Target {
		var out []pdnstest.Target
		for _, b := range backends {
			var (
				best  pdnstest.Target
				found bool
			)
			for _, tg := range targets {
				if tg.Backend == b && (!found || !newerVersion(best, tg)) {
					best, found = tg, true
				}
			}
			if found {
				out = append(out, best)
			}
		}
		return out
	}
}

// newerVersion reports whether a's PowerDNS is newer than b's, by the
// versions their names say (targetVersion).
func newerVersion(a, b pdnstest.Target) bool {
	amaj, amin, aok := targetVersion(a)
	bmaj, bmin, bok := targetVersion(b)
	switch {
	case aok != bok:
		return aok
	case amaj != bmaj:
		return amaj > bmaj
	default:
		return amin > bmin
	}
}

// targetVersion reads the PowerDNS version a target's name says: the tag
// of its image (pdnskit/pdns-auth:5.1, powerdns/pdns-auth-51:5.1.4) or the
// name of its root (.../roots/5.1); ok is false for a name without one
// (HostRoot, a "latest" tag).
func targetVersion(tg pdnstest.Target) (major, minor int, ok bool) {
	name := path.Base(targetSource(tg))
	if tg.Provider != pdnstest.Process {
		_, name, _ = strings.Cut(name, ":")
	}
	parts := strings.SplitN(name, ".", 3)
	if len(parts) < 2 {
		return 0, 0, false
	}
	major, err1 := strconv.Atoi(parts[0])
	minor, err2 := strconv.Atoi(parts[1])
	return major, minor, err1 == nil && err2 == nil
}

// TestNewestOfEach: the selector keeps, per backend asked for, the target
// whose name says the newest version, whatever the order configured.
func TestNewestOfEach(t *testing.T) {
	img := func(image string, b pdnstest.Backend) pdnstest.Target {
		return pdnstest.Target{Provider: pdnstest.Container, Image: image, Backend: b}
	}
	root := func(r string, b pdnstest.Backend) pdnstest.Target {
		return pdnstest.Target{Provider: pdnstest.Process, Root: r, Backend: b}
	}
	for _, tc := range []struct {
		name    string
		targets []pdnstest.Target
		want    []pdnstest.Target
	}{
		{"local images, newest first", []pdnstest.Target{
			img("pdnskit/pdns-auth:5.1", pdnstest.GSQLite3), img("pdnskit/pdns-auth:5.1", pdnstest.GPGSQL),
			img("pdnskit/pdns-auth:4.9", pdnstest.GPGSQL), img("pdnskit/pdns-auth:4.9", pdnstest.GMySQL),
			img("pdnskit/pdns-auth:5.1", pdnstest.GMySQL),
		}, []pdnstest.Target{img("pdnskit/pdns-auth:5.1", pdnstest.GPGSQL), img("pdnskit/pdns-auth:5.1", pdnstest.GMySQL)}},
		{"official images", []pdnstest.Target{
			img("powerdns/pdns-auth-51:5.1.4", pdnstest.GPGSQL), img("powerdns/pdns-auth-49:4.9.17", pdnstest.GPGSQL),
		}, []pdnstest.Target{img("powerdns/pdns-auth-51:5.1.4", pdnstest.GPGSQL)}},
		{"roots", []pdnstest.Target{
			root("/c/roots/4.9", pdnstest.GMySQL), root("/c/roots/5.1", pdnstest.GMySQL), root("/c/roots/4.10", pdnstest.GMySQL),
		}, []pdnstest.Target{root("/c/roots/5.1", pdnstest.GMySQL)}},
		{"no version read: a version wins, else the last", []pdnstest.Target{
			root(pdnstest.HostRoot, pdnstest.GPGSQL), root("/c/roots/4.9", pdnstest.GPGSQL),
			img("a:latest", pdnstest.GMySQL), img("b", pdnstest.GMySQL),
		}, []pdnstest.Target{root("/c/roots/4.9", pdnstest.GPGSQL), img("b", pdnstest.GMySQL)}},
		{"none of the backends", []pdnstest.Target{img("pdnskit/pdns-auth:5.1", pdnstest.LMDB)}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, newestOfEach(pdnstest.GPGSQL, pdnstest.GMySQL)(tc.targets))
		})
	}
}
