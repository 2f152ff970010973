package depth_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/pdnskit/reconcile/internal/testing/depth"
)

func TestPickDealsEveryCaseOnce(t *testing.T) {
	t.Setenv(depth.EnvFull, "")
	const cases, servers = 11, 4
	perServer := make([]int, servers)
	for i := range cases {
		ran := 0
		for j := range servers {
			if depth.Pick(i, j, servers) {
				ran++
				perServer[j]++
			}
		}
		assert.Equal(t, 1, ran, "case %d runs on one server", i)
	}
	assert.Equal(t, []int{3, 3, 3, 2}, perServer, "each server gets its share")
	assert.Equal(t, 5, depth.Of(5, 30))
}

func TestFullRunsEverything(t *testing.T) {
	for _, v := range []string{"1", "yes"} {
		t.Setenv(depth.EnvFull, v)
		for i := range 3 {
			for j := range 3 {
				assert.True(t, depth.Pick(i, j, 3))
			}
		}
		assert.Equal(t, 30, depth.Of(5, 30))
	}
	t.Setenv(depth.EnvFull, "0")
	assert.False(t, depth.Full(), `"0" asks for the share`)
}
