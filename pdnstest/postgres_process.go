package pdnstest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
)

// postgresRoot is where the process provider finds PostgreSQL: the root
// EnvPostgresRoot names, else the root images/build.sh makes, else the
// host's; "" when there is none.
func postgresRoot() string {
	if r := strings.TrimSpace(os.Getenv(EnvPostgresRoot)); r != "" {
		return r
	}
	if dir := defaultRootsDir(); dir != "" {
		root := filepath.Join(dir, "postgres")
		if _, err := postgresBin(root); err == nil {
			return root
		}
	}
	if _, err := postgresBin(HostRoot); err == nil {
		return HostRoot
	}
	return ""
}

// postgresBin returns the directory of PostgreSQL's programs in root, as
// seen from inside it: the newest /usr/lib/postgresql/*/bin.
func postgresBin(root string) (string, error) {
	prefix := root
	if root == HostRoot {
		prefix = "/"
	}
	found, _ := filepath.Glob(filepath.Join(prefix, "usr/lib/postgresql/*/bin/postgres"))
	if len(found) == 0 {
		return "", fmt.Errorf("no PostgreSQL in %s (/usr/lib/postgresql/*/bin/postgres)", prefix)
	}
	sort.Slice(found, func(i, j int) bool { return pgMajor(found[i]) < pgMajor(found[j]) })
	rel, err := filepath.Rel(prefix, filepath.Dir(found[len(found)-1]))
	if err != nil {
		return "", err
	}
	return "/" + rel, nil
}

// pgMajor reads N from .../postgresql/N/bin/postgres.
func pgMajor(p string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(p))))
	return n
}

// startPostgresProcess makes a fresh cluster and runs PostgreSQL on a free
// loopback port: inside a Debian root with chroot, or the host's programs,
// as the postgres user (PostgreSQL refuses to run as root).
func startPostgresProcess(ctx context.Context, root string) (*postgres, error) {
	bin, err := postgresBin(root)
	if err != nil {
		return nil, err
	}
	tmpParent, passwd := filepath.Join(root, "tmp"), filepath.Join(root, "etc/passwd")
	if root == HostRoot {
		tmpParent, passwd = os.TempDir(), "/etc/passwd"
	}
	user, err := pgUser(passwd)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp(tmpParent, "pdnstest-postgres-")
	if err != nil {
		return nil, fmt.Errorf("make PostgreSQL dir: %w", err)
	}
	inside := dir
	if root != HostRoot {
		inside = "/tmp/" + filepath.Base(dir)
	}
	pg := &postgres{host: "127.0.0.1", logs: func() string { return "" }}
	pg.stop = func(context.Context) error { return os.RemoveAll(dir) }
	if user != nil {
		if err := os.Chown(dir, int(user.uid), int(user.gid)); err != nil {
			return pg, fmt.Errorf("give %s to PostgreSQL's user: %w", dir, err)
		}
	}
	if pg.port, err = freePort("127.0.0.1"); err != nil {
		return pg, err
	}

	initdb := exec.CommandContext(ctx, bin+"/initdb", "--auth=trust", "--username=postgres",
		"--encoding=UTF8", "--locale=C", "--no-sync", "-D", inside+"/data")
	initdb.Dir = "/"
	initdb.SysProcAttr = processAttr(root, user)
	if out, err := initdb.CombinedOutput(); err != nil {
		return pg, fmt.Errorf("initdb: %w: %s", err, tail(string(out), 20))
	}

	out := &lockedBuffer{limit: 1 << 20}
	args := append([]string{"-D", inside + "/data", "-p", strconv.Itoa(pg.port),
		"-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=" + inside}, pgServerArgs()...)
	proc := &process{bin: bin + "/postgres", args: args, root: root, user: user, out: out}
	if err := proc.start(); err != nil {
		return pg, err
	}
	pg.logs = out.String
	// pooler is PgBouncer's process, once pool has started it.
	var pooler *process
	pg.stop = func(ctx context.Context) error {
		defer os.RemoveAll(dir)
		var errs []error
		if pooler != nil {
			errs = append(errs, pooler.stop(ctx))
		}
		return errors.Join(append(errs, proc.stop(ctx))...)
	}
	// SIGINT, which proc.stop sends, is PostgreSQL's fast shutdown; SIGTERM
	// is PgBouncer's immediate one (its SIGINT waits for every client to
	// leave).
	pg.bounce = func(ctx context.Context) error {
		var errs []error
		if pooler != nil {
			errs = append(errs, pooler.stop(ctx))
		}
		if err := errors.Join(append(errs, proc.stop(ctx))...); err != nil {
			return err
		}
		if err := proc.start(); err != nil {
			return err
		}
		if pooler != nil {
			return pooler.start()
		}
		return nil
	}
	pgPort := pg.port
	pg.psql = func(ctx context.Context, db string, script []byte, pooled bool) error {
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
		port := pgPort
		if pooled {
			port = pg.port
		}
		psql := exec.CommandContext(ctx, bin+"/psql", psqlArgs(port, db, inside+"/"+filepath.Base(f.Name()))...)
		psql.Dir = "/"
		psql.SysProcAttr = processAttr(root, user)
		if out, err := psql.CombinedOutput(); err != nil {
			return fmt.Errorf("psql: %w: %s", err, strings.TrimSpace(string(out)))
		}
		return nil
	}
	pg.pool = func(context.Context) (bool, error) {
		bouncer := pgbouncerPath
		if root != HostRoot {
			bouncer = filepath.Join(root, pgbouncerPath)
		}
		if !isFile(bouncer) { // a root without PgBouncer: frontends connect straight
			return false, nil
		}
		port, err := freePort("127.0.0.1")
		if err != nil {
			return true, err
		}
		ini := filepath.Join(dir, "pgbouncer.ini")
		if err := os.WriteFile(ini, pgbouncerConfig("127.0.0.1", port, pgPort, "", ""), 0o644); err != nil {
			return true, fmt.Errorf("write PgBouncer's configuration: %w", err)
		}
		pool := &process{bin: pgbouncerPath, args: []string{inside + "/pgbouncer.ini"}, root: root, user: user,
			signal: syscall.SIGTERM, out: out}
		if err := pool.start(); err != nil {
			return true, err
		}
		pooler = pool
		pg.port = port
		return true, nil
	}
	select {
	case <-proc.exited:
		return pg, fmt.Errorf("postgres exited at start: %v", proc.cmd.ProcessState)
	default:
	}
	return pg, nil
}

// runAs is a user a process runs as.
type runAs struct{ uid, gid uint32 }

// pgUser is the user PostgreSQL runs as, from the passwd file of its root:
// postgres, else nobody; nil when the harness does not run as root (it
// cannot switch users then, and PostgreSQL runs as the harness's user).
func pgUser(passwd string) (*runAs, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	for _, name := range []string{"postgres", "nobody"} {
		if u, err := lookupUser(passwd, name); err == nil {
			return u, nil
		}
	}
	return nil, fmt.Errorf("no postgres or nobody user in %s to run PostgreSQL as", passwd)
}

// lookupUser reads name's uid and gid from a passwd file.
func lookupUser(passwd, name string) (*runAs, error) {
	f, err := os.Open(passwd)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Split(sc.Text(), ":")
		if len(fields) < 4 || fields[0] != name {
			continue
		}
		uid, err1 := strconv.ParseUint(fields[2], 10, 32)
		gid, err2 := strconv.ParseUint(fields[3], 10, 32)
		if err := errors.Join(err1, err2); err != nil {
			return nil, fmt.Errorf("%s in %s: %w", name, passwd, err)
		}
		return &runAs{uid: uint32(uid), gid: uint32(gid)}, nil
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return nil, fmt.Errorf("no user %s in %s", name, passwd)
}

// isFile reports whether path names a file that can be stat'ed.
func isFile(path string) bool {
	info, err := os.Stat(path)
	return err == nil && !info.IsDir()
}
