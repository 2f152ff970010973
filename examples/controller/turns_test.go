package main

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRRsetTurns: reconciles of one RRset never overlap, those of
// different RRsets do, a wait ends with its context, and nothing is kept
// once every turn is done.
func TestRRsetTurns(t *testing.T) {
	var turns rrsetTurns
	ctx := context.Background()

	var mu sync.Mutex
	inside, most := 0, 0
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				release, err := turns.take(ctx, "zone. www.zone. A")
				if !assert.NoError(t, err) {
					return
				}
				mu.Lock()
				inside++
				most = max(most, inside)
				mu.Unlock()
				time.Sleep(50 * time.Microsecond) // the reconcile's work
				mu.Lock()
				inside--
				mu.Unlock()
				release()
			}
		}()
	}
	wg.Wait()
	assert.Equal(t, 1, most, "two reconciles of one RRset at once")
	assert.Zero(t, turns.len())

	release, err := turns.take(ctx, "zone. www.zone. A")
	require.NoError(t, err)
	other, err := turns.take(ctx, "zone. api.zone. A")
	require.NoError(t, err, "another RRset does not wait")
	other()

	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	_, err = turns.take(short, "zone. www.zone. A")
	require.ErrorIs(t, err, context.DeadlineExceeded)
	release()
	assert.Zero(t, turns.len(), "a wait that gave up leaves nothing behind")
}
