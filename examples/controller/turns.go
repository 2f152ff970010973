package main

import (
	"context"
	"sync"
)

// rrsetTurns lets one reconcile at a time act for each RRset. Several
// workers reconcile at once (MaxConcurrentReconciles), and controller-runtime
// never runs two reconciles of one object together, but two objects asking
// for one RRset are two objects: choosing the oldest of them and writing as
// it must not interleave with the other's reconcile, or a younger object
// could write between the older one's choice and its Apply. Objects asking
// for different RRsets do not wait for each other.
type rrsetTurns struct {
	mu    sync.Mutex
	turns map[string]*rrsetTurn
}

// rrsetTurn is one RRset's turn and how many reconciles hold it or wait
// for it: the entry goes when the last one is done, so the map holds only
// RRsets being reconciled.
type rrsetTurn struct {
	held  chan struct{}
	users int
}

// take waits for key's turn, or for ctx to end.
func (t *rrsetTurns) take(ctx context.Context, key string) (release func(), err error) {
	t.mu.Lock()
	if t.turns == nil {
		t.turns = make(map[string]*rrsetTurn)
	}
	turn := t.turns[key]
	if turn == nil {
		turn = &rrsetTurn{held: make(chan struct{}, 1)}
		t.turns[key] = turn
	}
	turn.users++
	t.mu.Unlock()
	select {
	case turn.held <- struct{}{}:
		return func() {
			<-turn.held
			t.leave(key, turn)
		}, nil
	case <-ctx.Done():
		t.leave(key, turn)
		return nil, ctx.Err()
	}
}

func (t *rrsetTurns) leave(key string, turn *rrsetTurn) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if turn.users--; turn.users == 0 {
		delete(t.turns, key)
	}
}

// len is how many RRsets are being reconciled.
func (t *rrsetTurns) len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.turns)
}
