package pdnstest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"time"
)

// sqliteSchema is where Debian's pdns-backend-sqlite3 keeps its schema.
const sqliteSchema = "/usr/share/pdns-backend-sqlite3/schema/schema.sqlite3.sql"

// emptyDatabase is the sqlite database with the schema loaded that
// images/build.sh leaves in every Debian root.
const emptyDatabase = "/usr/share/pdnskit/empty.sqlite3"

// startProcess runs pdns_server on free loopback ports with its own config
// dir and fresh database: inside a Debian root with chroot, or from PATH.
func startProcess(ctx context.Context, srv *Server, extra []string) error {
	root := srv.Target.Root
	bin := "/usr/sbin/pdns_server"
	tmpParent := filepath.Join(root, "tmp")
	if root == HostRoot {
		if bin = hostPDNS(); bin == "" {
			return ErrNoServer
		}
		tmpParent = os.TempDir()
	} else if _, err := os.Stat(filepath.Join(root, bin)); err != nil {
		return fmt.Errorf("no pdns_server in Debian root %s: %w", root, err)
	}
	dir, err := os.MkdirTemp(tmpParent, "pdnstest-")
	if err != nil {
		return fmt.Errorf("make server dir: %w", err)
	}
	// inside is dir as the server sees it, from within its root.
	inside := dir
	if root != HostRoot {
		inside = "/tmp/" + filepath.Base(dir)
	}
	srv.stop = func(context.Context) error { return os.RemoveAll(dir) }

	apiPort, err := freePort("127.0.0.1")
	if err != nil {
		return err
	}
	dnsPort, err := freePort("127.0.0.1")
	if err != nil {
		return err
	}
	args := apiArgs(srv.APIKey, "127.0.0.1", apiPort)
	args = append(args,
		"--guardian=no", "--daemon=no", "--disable-syslog", "--write-pid=no",
		"--socket-dir="+inside,
		"--local-address=127.0.0.1",
		"--local-port="+strconv.Itoa(dnsPort),
	)
	switch srv.Backend {
	case LMDB, GPGSQL, GMySQL:
		args = append(args, backendArgs(srv, inside)...)
	default:
		if err := freshSQLite(root, filepath.Join(dir, "pdns.sqlite3")); err != nil {
			return err
		}
		args = append(args,
			"--config-dir="+inside,
			"--launch=gsqlite3",
			"--gsqlite3-database="+inside+"/pdns.sqlite3",
			"--gsqlite3-dnssec",
		)
	}
	args = append(args, extra...)

	out := &lockedBuffer{limit: 1 << 20}
	proc := &process{bin: bin, args: args, root: root, out: out}
	if err := proc.start(); err != nil {
		return err
	}
	srv.logs = out.String
	srv.stop = func(ctx context.Context) error {
		defer os.RemoveAll(dir)
		return proc.stop(ctx)
	}
	srv.kill = func(context.Context) error { return proc.kill() }
	srv.revive = func(context.Context) error { return proc.start() }
	srv.endpoints = []endpoint{{
		url:     "http://127.0.0.1:" + strconv.Itoa(apiPort),
		dnsAddr: "127.0.0.1:" + strconv.Itoa(dnsPort),
	}}
	// A server that exits at once (bad argument, port taken) should say so
	// rather than leave waitReady polling until its deadline.
	select {
	case <-proc.exited:
		return fmt.Errorf("pdns_server exited at start: %v", proc.cmd.ProcessState)
	case <-time.After(200 * time.Millisecond):
	case <-ctx.Done():
		return ctx.Err()
	}
	return nil
}

// process is one pdns_server (or PostgreSQL), which may be killed and
// started again with the same arguments.
type process struct {
	bin  string
	args []string
	root string
	// user is who the process runs as; nil for the harness's own user.
	user *runAs
	// signal asks the process to stop; os.Interrupt when nil.
	signal os.Signal
	out    *lockedBuffer

	cmd    *exec.Cmd
	exited chan struct{}
}

func (p *process) start() error {
	cmd := exec.Command(p.bin, p.args...)
	cmd.Stdout, cmd.Stderr = p.out, p.out
	cmd.Dir = "/"
	cmd.SysProcAttr = processAttr(p.root, p.user)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", p.bin, err)
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	p.cmd, p.exited = cmd, exited
	return nil
}

// kill ends the process at once and waits for it.
func (p *process) kill() error {
	if err := p.cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("kill %s: %w", filepath.Base(p.bin), err)
	}
	<-p.exited
	return nil
}

// stop asks the process to stop, and kills it if it has not within ten
// seconds.
func (p *process) stop(ctx context.Context) error {
	select {
	case <-p.exited:
		return nil
	default:
	}
	sig := p.signal
	if sig == nil {
		sig = os.Interrupt
	}
	_ = p.cmd.Process.Signal(sig)
	t := time.NewTimer(10 * time.Second)
	defer t.Stop()
	select {
	case <-p.exited:
		return nil
	case <-t.C:
	case <-ctx.Done():
	}
	return p.kill()
}

// freshSQLite creates an empty PowerDNS sqlite database at path: a copy of
// the root's prepared database, or, for the host's pdns_server, one made
// from Debian's schema with the sqlite3 command.
func freshSQLite(root, path string) error {
	if root != HostRoot {
		b, err := os.ReadFile(filepath.Join(root, emptyDatabase))
		if err != nil {
			return fmt.Errorf("read prepared database (rebuild the root with `make images`): %w", err)
		}
		return os.WriteFile(path, b, 0o600)
	}
	schema, err := os.ReadFile(sqliteSchema)
	if err != nil {
		return fmt.Errorf("read sqlite schema (install pdns-backend-sqlite3): %w", err)
	}
	sqlite, err := exec.LookPath("sqlite3")
	if err != nil {
		return errors.New("the sqlite3 command is needed to create a test database: install sqlite3")
	}
	cmd := exec.Command(sqlite, path)
	cmd.Stdin = bytes.NewReader(schema)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("load sqlite schema: %w: %s", err, out)
	}
	return nil
}

// lockedBuffer collects a process's output, up to limit bytes.
type lockedBuffer struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	limit int
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if room := b.limit - b.buf.Len(); room > 0 {
		b.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
