package reconcile

import (
	"errors"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pdnskit/reconcile/backoff"
	"github.com/pdnskit/reconcile/conflict"
)

func TestNewRefusesBadConfig(t *testing.T) {
	cases := map[string][]Option{
		"no writer":                  nil,
		"control in name":            {WithManagedBy("a\nb")},
		"name not UTF-8":             {WithManagedBy("caf\xe9")},
		"writer line over the limit": {WithManagedBy(strings.Repeat("<", 200)), WithMaxPatchBytes(1024)},
		"tiny patch":                 {WithManagedBy("w"), WithMaxPatchBytes(10)},
		"zero checks":                {WithManagedBy("w"), WithDeletionGate(0, time.Minute)},
		"negative span":              {WithManagedBy("w"), WithDeletionGate(1, -time.Second)},
		"guard over 1":               {WithManagedBy("w"), WithDeleteGuard(1.5, 10)},
		"bad store":                  {WithManagedBy("w"), WithOwnershipStore(OwnershipStore(9))},
		"nil logger":                 {WithManagedBy("w"), WithLogger(nil)},
		"bad url":                    {WithManagedBy("w")},
		"key with newline":           {WithManagedBy("w"), WithAPIKey("se\ncret")},
		"allow enforced":             {WithManagedBy("w"), WithAllowed(conflict.CNAMEAndOtherData)},
		"allow ownership":            {WithManagedBy("w"), WithAllowed(conflict.NotOwner)},
		"allow apex deletes":         {WithManagedBy("w"), WithAllowed(conflict.ApexRequired)},
		"allow unknown":              {WithManagedBy("w"), WithAllowed(conflict.Kind("Whatever"))},
		"negative resync":            {WithManagedBy("w"), WithResync(-time.Second)},
		"negative wait":              {WithManagedBy("w"), WithLockWait(-time.Second)},
		"negative hold":              {WithManagedBy("w"), WithLockHold(-time.Second)},
		"hold over a second":         {WithManagedBy("w"), WithLockHold(2 * time.Second)},
		"replace no account":         {WithManagedBy("w"), WithAdoptionReplacing("powerdns-operator", "")},
		"replace a control":          {WithManagedBy("w"), WithAdoptionReplacing("a\nb")},
		"replace not UTF-8":          {WithManagedBy("w"), WithAdoptionReplacing("caf\xe9")},
		"replace a long account":     {WithManagedBy("w"), WithAdoptionReplacing(strings.Repeat("a", 201))},
		"replace our own account":    {WithManagedBy("w"), WithAdoptionReplacing("pdnskit/reconcile")},
		"replace our note account":   {WithManagedBy("w"), WithAdoptionReplacing("pdnskit/reconcile note")},
	}
	for name, opts := range cases {
		t.Run(name, func(t *testing.T) {
			url := "http://127.0.0.1:8081"
			if name == "bad url" {
				url = "ftp://example"
			}
			r, err := New(url, opts...)
			require.Error(t, err)
			assert.Nil(t, r)
			assert.NotContains(t, err.Error(), "se\ncret")
			var cfgErr *ConfigError
			require.ErrorAs(t, err, &cfgErr, "every bad configuration is a *ConfigError")
			assert.NotEmpty(t, cfgErr.Option)
		})
	}
	_, err := New("http://127.0.0.1:8081")
	assert.ErrorIs(t, err, ErrNoWriter)
	var cfgErr *ConfigError
	require.ErrorAs(t, err, &cfgErr)
	assert.Equal(t, "WithManagedBy", cfgErr.Option)
	_, err = New("ftp://example", WithManagedBy("w"))
	assert.ErrorIs(t, err, ErrInvalidServerURL)
	_, err = New("http://127.0.0.1:8081", WithManagedBy("w"), WithAPIKey("se\ncret"))
	assert.ErrorIs(t, err, ErrInvalidAPIKey)
	require.ErrorAs(t, err, &cfgErr)
	assert.Equal(t, "WithAPIKey", cfgErr.Option)
	_, err = New("http://127.0.0.1:8081", WithManagedBy(strings.Repeat("<", 200)), WithMaxPatchBytes(4096))
	assert.NoError(t, err, "a limit that holds the writer line")
	_, err = New("http://127.0.0.1:8081", WithManagedBy(strings.Repeat("w", 200)), WithMaxPatchBytes(1024))
	assert.NoError(t, err, "the smallest limit holds a plain writer of 200 characters")
	r, err := New("http://127.0.0.1:8081", WithManagedBy("external-dns"), nil)
	require.NoError(t, err)
	assert.Equal(t, "external-dns", r.ManagedBy())
	assert.Equal(t, "127.0.0.1:53", r.cfg.dnsAddr)
}

// TestNewNamesTheBadOption: a value New cannot use is a *ConfigError naming
// the option it came through, never dropped for a default; the values
// around it are taken.
func TestNewNamesTheBadOption(t *testing.T) {
	for _, tc := range []struct {
		name    string
		opt     Option
		option  string // "" when New takes it
		backoff string // the backoff option a *backoff.OptionError names
	}{
		{"retry: negative multiplier", WithRetry(backoff.WithMultiplier(-1)), "WithRetry", "WithMultiplier"},
		{"retry: multiplier below 1", WithRetry(backoff.WithMultiplier(0.5)), "WithRetry", "WithMultiplier"},
		{"retry: NaN multiplier", WithRetry(backoff.WithMultiplier(math.NaN())), "WithRetry", "WithMultiplier"},
		{"retry: jitter above 1", WithRetry(backoff.WithJitter(5)), "WithRetry", "WithJitter"},
		{"retry: negative jitter", WithRetry(backoff.WithJitter(-0.5)), "WithRetry", "WithJitter"},
		{"retry: negative initial interval", WithRetry(backoff.WithInitialInterval(-time.Second)), "WithRetry", "WithInitialInterval"},
		{"retry: zero initial interval", WithRetry(backoff.WithInitialInterval(0)), "WithRetry", "WithInitialInterval"},
		{"retry: negative max interval", WithRetry(backoff.WithMaxInterval(-time.Second)), "WithRetry", "WithMaxInterval"},
		{"retry: negative attempts", WithRetry(backoff.WithMaxAttempts(-1)), "WithRetry", "WithMaxAttempts"},
		{"retry: negative elapsed time", WithRetry(backoff.WithMaxElapsedTime(-time.Second)), "WithRetry", "WithMaxElapsedTime"},
		{"retry: nil clock", WithRetry(backoff.WithClock(nil)), "WithRetry", "WithClock"},
		{"retry: nil classifier", WithRetry(backoff.WithRetryable(nil)), "WithRetry", "WithRetryable"},
		{"retry: bad after good", WithRetry(backoff.WithMaxAttempts(3), nil, backoff.WithJitter(2)), "WithRetry", "WithJitter"},
		{"retry: in range", WithRetry(backoff.WithMultiplier(1), backoff.WithJitter(0), backoff.WithMaxAttempts(0), backoff.WithMaxElapsedTime(0)), "", ""},
		{"requeue: negative multiplier", WithRequeue(backoff.WithMultiplier(-1)), "WithRequeue", "WithMultiplier"},
		{"requeue: jitter above 1", WithRequeue(backoff.WithJitter(5)), "WithRequeue", "WithJitter"},
		{"requeue: negative initial interval", WithRequeue(backoff.WithInitialInterval(-time.Second)), "WithRequeue", "WithInitialInterval"},
		{"requeue: negative max interval", WithRequeue(backoff.WithMaxInterval(-time.Second)), "WithRequeue", "WithMaxInterval"},
		{"requeue: negative refusal interval", WithRequeue(backoff.WithRefusalInterval(-time.Minute)), "WithRequeue", "WithRefusalInterval"},
		{"requeue: zero refusal interval", WithRequeue(backoff.WithRefusalInterval(0)), "WithRequeue", "WithRefusalInterval"},
		{"requeue: in range", WithRequeue(backoff.WithRefusalInterval(time.Minute), backoff.WithJitter(1)), "", ""},
		{"response bound zero", WithMaxResponseBytes(0), "WithMaxResponseBytes", ""},
		{"response bound negative", WithMaxResponseBytes(-1), "WithMaxResponseBytes", ""},
		{"response bound one byte", WithMaxResponseBytes(1), "", ""},
		{"dns addr: colons", WithDNSAddr("not an addr:::"), "WithDNSAddr", ""},
		{"dns addr: no port", WithDNSAddr("192.0.2.1"), "WithDNSAddr", ""},
		{"dns addr: no host", WithDNSAddr(":53"), "WithDNSAddr", ""},
		{"dns addr: port 0", WithDNSAddr("192.0.2.1:0"), "WithDNSAddr", ""},
		{"dns addr: port too large", WithDNSAddr("192.0.2.1:65536"), "WithDNSAddr", ""},
		{"dns addr: named port", WithDNSAddr("192.0.2.1:domain"), "WithDNSAddr", ""},
		{"dns addr: space in host", WithDNSAddr("not an addr:53"), "WithDNSAddr", ""},
		{"dns addr: IPv6 unbracketed", WithDNSAddr("2001:db8::1:53"), "WithDNSAddr", ""},
		{"dns addr: IPv4", WithDNSAddr("192.0.2.1:53"), "", ""},
		{"dns addr: IPv6", WithDNSAddr("[2001:db8::1]:5300"), "", ""},
		{"dns addr: hostname", WithDNSAddr("pdns.dns-system.svc:53"), "", ""},
		{"dns addr: empty keeps the default", WithDNSAddr(""), "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := New("http://127.0.0.1:8081", WithManagedBy("w"), tc.opt)
			if tc.option == "" {
				require.NoError(t, err)
				assert.NotNil(t, r)
				return
			}
			assert.Nil(t, r)
			var cfgErr *ConfigError
			require.ErrorAs(t, err, &cfgErr)
			assert.Equal(t, tc.option, cfgErr.Option)
			assert.NotEmpty(t, cfgErr.Reason)
			var optErr *backoff.OptionError
			if tc.backoff == "" {
				assert.False(t, errors.As(err, &optErr))
				return
			}
			require.ErrorAs(t, err, &optErr)
			assert.Equal(t, tc.backoff, optErr.Option)
			assert.Contains(t, err.Error(), "backoff."+tc.backoff)
		})
	}
	r, err := New("http://127.0.0.1:8081", WithManagedBy("w"))
	require.NoError(t, err)
	assert.EqualValues(t, 128<<20, r.cfg.maxResponse, "128 MiB, as WithMaxResponseBytes says")
}

// TestAdoptionReplacing: naming the accounts of a tool the writer replaces
// turns adoption on, as WithAdoption does, and names those accounts alone.
func TestAdoptionReplacing(t *testing.T) {
	r, err := New("http://127.0.0.1:8081", WithManagedBy("w"), WithAdoptionReplacing("powerdns-operator"), WithAdoptionReplacing("old tool", "ops/ä"))
	require.NoError(t, err)
	assert.True(t, r.cfg.adopt)
	assert.Equal(t, []string{"powerdns-operator", "old tool", "ops/ä"}, r.cfg.replaced)
	r, err = New("http://127.0.0.1:8081", WithManagedBy("w"), WithAdoptionReplacing())
	require.NoError(t, err)
	assert.True(t, r.cfg.adopt, "no account: WithAdoption")
	assert.Empty(t, r.cfg.replaced)
	r, err = New("http://127.0.0.1:8081", WithManagedBy("w"), WithAdoption())
	require.NoError(t, err)
	assert.Empty(t, r.cfg.replaced, "WithAdoption replaces no comment")
}

// TestCallOptions: each call's options are applied in order, nil ones
// skipped, and WithOwner serves every call that records an owner.
// TestOptionsReachTheConfig: each option sets what it names, and nothing
// is on unless asked.
func TestOptionsReachTheConfig(t *testing.T) {
	hc := &http.Client{}
	c := defaultConfig()
	assert.False(t, c.upsertOnly || c.takeover, "off by default")
	for _, o := range []Option{WithHTTPClient(hc), WithServerID("other"), WithFullRead(time.Minute), WithUpsertOnly(), WithTakeover()} {
		o(&c)
	}
	assert.Same(t, hc, c.httpClient)
	assert.Equal(t, "other", c.serverID)
	assert.Equal(t, time.Minute, c.fullRead)
	assert.True(t, c.upsertOnly)
	assert.True(t, c.takeover)
}

func TestCallOptions(t *testing.T) {
	sc := newSyncConfig([]SyncOption{nil, ForceDeletes(), WithOwner("a"), Teardown(), WithOwner("b")})
	assert.Equal(t, syncConfig{forceDeletes: true, teardown: true, owner: "b"}, sc)
	assert.Equal(t, objectConfig{owner: "a"}, newApplyConfig([]ApplyOption{nil, WithOwner("a")}))
	assert.Equal(t, objectConfig{owner: "a"}, newRemoveConfig([]RemoveOption{WithOwner("a"), nil}))
	assert.Equal(t, objectConfig{owner: "a"}, newEnsureZoneConfig([]EnsureZoneOption{WithOwner("a")}))
	assert.Equal(t, objectConfig{}, newApplyConfig(nil))
}
