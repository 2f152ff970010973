package reconcile

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
		"allow unknown":              {WithManagedBy("w"), WithAllowed(conflict.Kind("Whatever"))},
		"negative resync":            {WithManagedBy("w"), WithResync(-time.Second)},
		"negative wait":              {WithManagedBy("w"), WithLockWait(-time.Second)},
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

// TestCallOptions: each call's options are applied in order, nil ones
// skipped, and WithOwner serves every call that records an owner.
func TestCallOptions(t *testing.T) {
	sc := newSyncConfig([]SyncOption{nil, ForceDeletes(), WithOwner("a"), Teardown(), WithOwner("b")})
	assert.Equal(t, syncConfig{forceDeletes: true, teardown: true, owner: "b"}, sc)
	assert.Equal(t, objectConfig{owner: "a"}, newApplyConfig([]ApplyOption{nil, WithOwner("a")}))
	assert.Equal(t, objectConfig{owner: "a"}, newRemoveConfig([]RemoveOption{WithOwner("a"), nil}))
	assert.Equal(t, objectConfig{owner: "a"}, newEnsureZoneConfig([]EnsureZoneOption{WithOwner("a")}))
	assert.Equal(t, objectConfig{}, newApplyConfig(nil))
}
