package bench

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
)

// Machine describes where the benchmarks ran, from /proc where there is
// one.
type Machine struct {
	CPU    string
	Cores  int
	Memory string
	Kernel string
	Go     string
}

// ThisMachine reads the machine's description.
func ThisMachine() Machine {
	m := Machine{CPU: "unknown", Cores: runtime.NumCPU(), Memory: "unknown", Kernel: runtime.GOOS, Go: runtime.Version()}
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		defer f.Close()
		cores := 0
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			k, v, ok := strings.Cut(sc.Text(), ":")
			if !ok {
				continue
			}
			switch strings.TrimSpace(k) {
			case "model name":
				m.CPU = strings.TrimSpace(v)
			case "processor":
				cores++
			}
		}
		if cores > 0 {
			m.Cores = cores
		}
	}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if rest, ok := strings.CutPrefix(line, "MemTotal:"); ok {
				if kb, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB"))); err == nil {
					m.Memory = fmt.Sprintf("%.1f GiB", float64(kb)/(1<<20))
				}
			}
		}
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = "Linux " + strings.TrimSpace(string(b))
	}
	return m
}

// LoadAverage is /proc/loadavg's first three fields, or "" where there is
// none: other work on the machine shows in the timings.
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
