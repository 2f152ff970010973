// Package machine describes the machine figures were measured on (the
// benchmarks and the reliability report), from Linux's /proc where there
// is one.
package machine

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strings"
)

// Machine describes where figures were measured.
type Machine struct {
	CPU    string
	Cores  int
	Memory string
	Kernel string
	Go     string
}

// This reads what Linux says about this machine; a field it cannot learn
// says "unknown" (or the operating system, for Kernel).
func This() Machine {
	m := Machine{CPU: "unknown", Cores: runtime.NumCPU(), Memory: "unknown", Kernel: runtime.GOOS, Go: runtime.Version()}
	if v := procField("/proc/cpuinfo", "model name"); v != "" {
		m.CPU = v
	}
	if v := procField("/proc/meminfo", "MemTotal"); v != "" {
		var kb uint64
		if _, err := fmt.Sscanf(v, "%d kB", &kb); err == nil {
			m.Memory = fmt.Sprintf("%.2f GiB", float64(kb)/(1<<20))
		}
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = "Linux " + strings.TrimSpace(string(b))
	}
	return m
}

func (m Machine) String() string {
	return fmt.Sprintf("%s, %d logical CPUs, %s RAM, %s, %s", m.CPU, m.Cores, m.Memory, m.Kernel, m.Go)
}

// LoadAverage returns Linux's 1, 5 and 15 minute load averages, e.g.
// "1.52 2.10 2.31", or "" where there are none: other work on the machine
// shows in the timings.
func LoadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}

// procField returns the value of the first "name: value" line of a /proc
// file, "" where there is none.
func procField(path, name string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == name {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
