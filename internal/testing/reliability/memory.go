package reliability

import (
	"bufio"
	"os"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"time"
)

// heapMetric is the memory held by live and not yet swept heap objects:
// what a workload makes the Go heap hold, without the runtime's spare room.
const heapMetric = "/memory/classes/heap/objects:bytes"

// MemorySampler records the peak of the Go heap while it runs, by sampling
// runtime/metrics, and reads the process's peak resident set from Linux.
type MemorySampler struct {
	stop chan struct{}
	done chan struct{}

	mu   sync.Mutex
	peak uint64
}

// StartMemorySampler samples the heap every interval until Stop.
func StartMemorySampler(interval time.Duration) *MemorySampler {
	m := &MemorySampler{stop: make(chan struct{}), done: make(chan struct{})}
	sample := []metrics.Sample{{Name: heapMetric}}
	read := func() {
		metrics.Read(sample)
		if sample[0].Value.Kind() != metrics.KindUint64 {
			return
		}
		v := sample[0].Value.Uint64()
		m.mu.Lock()
		m.peak = max(m.peak, v)
		m.mu.Unlock()
	}
	go func() {
		defer close(m.done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			read()
			select {
			case <-m.stop:
				read()
				return
			case <-t.C:
			}
		}
	}()
	return m
}

// Stop ends sampling and returns the peak heap seen.
func (m *MemorySampler) Stop() uint64 {
	close(m.stop)
	<-m.done
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.peak
}

// ProcStatus reads a size field of /proc/self/status (VmHWM, the peak
// resident set; VmRSS, the current one) in bytes; 0 where there is none.
func ProcStatus(field string) uint64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), ":")
		if !ok || name != field {
			continue
		}
		fields := strings.Fields(value) // "123456 kB"
		if len(fields) == 0 {
			return 0
		}
		kb, err := strconv.ParseUint(fields[0], 10, 64)
		if err != nil {
			return 0
		}
		return kb << 10
	}
	return 0
}
