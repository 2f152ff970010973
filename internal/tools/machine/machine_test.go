package machine

import (
	"os"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestThis(t *testing.T) {
	m := This()
	assert.Positive(t, m.Cores)
	assert.NotEmpty(t, m.Go)
	if _, err := os.Stat("/proc/meminfo"); err == nil {
		assert.Regexp(t, `^\d+\.\d\d GiB$`, m.Memory)
		assert.Regexp(t, `^Linux `, m.Kernel)
	}
	assert.Contains(t, m.String(), m.Go)
}

func TestLoadAverage(t *testing.T) {
	if _, err := os.Stat("/proc/loadavg"); err != nil {
		t.Skip("no /proc/loadavg")
	}
	assert.Regexp(t, regexp.MustCompile(`^\d+\.\d+ \d+\.\d+ \d+\.\d+$`), LoadAverage())
}

func TestProcField(t *testing.T) {
	path := t.TempDir() + "/cpuinfo"
	if err := os.WriteFile(path, []byte("processor\t: 0\nmodel name\t: Some CPU\nmodel name\t: Other\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	assert.Equal(t, "Some CPU", procField(path, "model name"))
	assert.Equal(t, "", procField(path, "flags"))
	assert.Equal(t, "", procField(path+".missing", "model name"))
}
