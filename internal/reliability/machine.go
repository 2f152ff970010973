package reliability

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

// ThisMachine reads what Linux says about the machine.
func ThisMachine() Machine {
	m := Machine{Cores: runtime.NumCPU(), Go: runtime.Version(), CPU: "unknown", Memory: "unknown", Kernel: runtime.GOOS}
	if v := procField("/proc/cpuinfo", "model name"); v != "" {
		m.CPU = v
	}
	if v := procField("/proc/meminfo", "MemTotal"); v != "" {
		var kb uint64
		if _, err := fmt.Sscanf(v, "%d kB", &kb); err == nil {
			m.Memory = Bytes(kb << 10)
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
// "1.52 2.10 2.31"; "" where there are none.
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
// file.
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

// Bytes renders a size in binary units, e.g. "12.3 MiB".
func Bytes(n uint64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	default:
		return fmt.Sprintf("%d B", n)
	}
}
