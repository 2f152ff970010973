package reconcile

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestStoreFor(t *testing.T) {
	cases := []struct {
		version, launch string
		want            OwnershipStore
	}{
		{"4.7.3", "gsqlite3", OwnershipComments},
		{"4.9.18", "lmdb", OwnershipMetadata},
		{"4.9.18", "gsqlite3,lmdb:second", OwnershipMetadata},
		{"5.0.1", "lmdb", OwnershipMetadata},
		{"5.1.5", "lmdb", OwnershipComments},
		{"5.2.0-alpha1", "lmdb", OwnershipComments},
		{"6.0.0", "lmdb", OwnershipComments},
		{"", "lmdb", OwnershipMetadata},
		{"garbage", "gpgsql", OwnershipComments},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, storeFor(c.version, c.launch), "%s %s", c.version, c.launch)
	}
}
