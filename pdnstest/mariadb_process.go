package pdnstest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// mariadbdPath is MariaDB's server in a Debian root or on the host.
const mariadbdPath = "/usr/sbin/mariadbd"

// builtMariaDBData is the data directory images/build.sh leaves in its
// MariaDB root (see images/mariadb-start).
const builtMariaDBData = "/var/lib/pdnskit-mariadb/data"

// mariaDBRoot is where the process provider finds MariaDB: the root
// EnvMariaDBRoot names, else the root images/build.sh makes, else the
// host's; "" when there is none.
func mariaDBRoot() string {
	if r := strings.TrimSpace(os.Getenv(EnvMariaDBRoot)); r != "" {
		return r
	}
	if dir := defaultRootsDir(); dir != "" {
		root := filepath.Join(dir, "mariadb")
		if isFile(filepath.Join(root, mariadbdPath)) {
			return root
		}
	}
	if isFile(mariadbdPath) {
		return HostRoot
	}
	return ""
}

// startMariaDBProcess runs MariaDB on a free loopback port with a data
// directory of its own: inside a Debian root with chroot, or the host's, as
// the mysql user where the harness runs as root.
func startMariaDBProcess(ctx context.Context, root string) (*mariaDB, error) {
	prefix, tmpParent, passwd := root, filepath.Join(root, "tmp"), filepath.Join(root, "etc/passwd")
	if root == HostRoot {
		prefix, tmpParent, passwd = "/", os.TempDir(), "/etc/passwd"
	}
	if !isFile(filepath.Join(prefix, mariadbdPath)) {
		return nil, fmt.Errorf("no MariaDB in %s (%s)", prefix, mariadbdPath)
	}
	var user *runAs
	if os.Geteuid() == 0 {
		u, err := lookupUser(passwd, "mysql")
		if err != nil {
			return nil, fmt.Errorf("a user to run MariaDB as: %w", err)
		}
		user = u
	}
	dir, err := os.MkdirTemp(tmpParent, "pdnstest-mariadb-")
	if err != nil {
		return nil, fmt.Errorf("make MariaDB dir: %w", err)
	}
	inside := dir
	if root != HostRoot {
		inside = "/tmp/" + filepath.Base(dir)
	}
	my := &mariaDB{host: "127.0.0.1", logs: func() string { return "" }}
	my.stop = func(context.Context) error { return os.RemoveAll(dir) }
	if user != nil {
		if err := os.Chown(dir, int(user.uid), int(user.gid)); err != nil {
			return my, fmt.Errorf("give %s to MariaDB's user: %w", dir, err)
		}
	}
	if my.port, err = freePort("127.0.0.1"); err != nil {
		return my, err
	}

	// The data directory: a copy of the one the root was built with (cp
	// keeps its owner), else a new one.
	data := filepath.Join(dir, "data")
	if built := filepath.Join(prefix, builtMariaDBData); root != HostRoot && isFile(filepath.Join(built, "ibdata1")) {
		if out, err := exec.CommandContext(ctx, "cp", "-a", built, data).CombinedOutput(); err != nil {
			return my, fmt.Errorf("copy MariaDB's data directory: %w: %s", err, out)
		}
	} else {
		install := exec.CommandContext(ctx, "/usr/bin/mariadb-install-db", "--no-defaults", "--datadir="+inside+"/data",
			"--skip-test-db", "--force", "--skip-name-resolve", "--innodb-log-file-size=8M", "--innodb-buffer-pool-size=64M")
		install.Dir = "/"
		install.SysProcAttr = processAttr(root, user)
		if out, err := install.CombinedOutput(); err != nil {
			return my, fmt.Errorf("mariadb-install-db: %w: %s", err, tail(string(out), 20))
		}
	}

	out := &lockedBuffer{limit: 1 << 20}
	args := append([]string{"--no-defaults", "--datadir=" + inside + "/data", "--socket=" + inside + "/mysqld.sock",
		"--pid-file=" + inside + "/mysqld.pid", "--port=" + strconv.Itoa(my.port), "--bind-address=127.0.0.1"},
		mariaDBSettings()...)
	// SIGTERM shuts mariadbd down, rolling back what is in flight and
	// flushing what was committed.
	proc := &process{bin: mariadbdPath, args: append(args, mariaDBServerArgs()...), root: root, user: user,
		signal: syscall.SIGTERM, out: out}
	if err := proc.start(); err != nil {
		return my, err
	}
	my.logs = out.String
	my.stop = func(ctx context.Context) error {
		defer os.RemoveAll(dir)
		return proc.stop(ctx)
	}
	my.bounce = func(ctx context.Context) error {
		if err := proc.stop(ctx); err != nil {
			return err
		}
		return proc.start()
	}
	my.sql = func(ctx context.Context, script []byte) error {
		f, err := os.CreateTemp(dir, "script-*.sql")
		if err != nil {
			return err
		}
		defer os.Remove(f.Name())
		_, err = f.Write(script)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Chmod(f.Name(), 0o644)
		}
		if err != nil {
			return fmt.Errorf("write SQL script: %w", err)
		}
		argv := append(mariaDBClient(my.port), inside+"/"+filepath.Base(f.Name()))
		cmd := exec.CommandContext(ctx, "/bin/sh", argv[1:]...)
		cmd.Dir = "/"
		cmd.SysProcAttr = processAttr(root, user)
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("mariadb: %w: %s", err, strings.TrimSpace(string(out)))
		}
		return nil
	}
	select {
	case <-proc.exited:
		return my, fmt.Errorf("mariadbd exited at start: %v", proc.cmd.ProcessState)
	default:
	}
	return my, nil
}

// mariaDBSettings are those images/mariadb-start gives mariadbd, for a
// MariaDB the harness runs itself: no durability (a test database that a
// crash loses costs nothing), no password, small logs and buffers, and
// Debian's server character set (PowerDNS's schema names its own for each
// table).
func mariaDBSettings() []string {
	return []string{
		"--skip-grant-tables", "--skip-name-resolve", "--skip-log-bin",
		"--innodb-flush-log-at-trx-commit=0", "--innodb-doublewrite=0", "--sync-binlog=0",
		"--innodb-log-file-size=8M", "--innodb-buffer-pool-size=64M",
		"--character-set-server=utf8mb4", "--collation-server=utf8mb4_general_ci",
	}
}
