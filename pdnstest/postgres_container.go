package pdnstest

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path"

	"github.com/docker/docker/api/types/container"
	"github.com/testcontainers/testcontainers-go"
	tcexec "github.com/testcontainers/testcontainers-go/exec"
	"github.com/testcontainers/testcontainers-go/network"
)

// pgAlias is the PostgreSQL container's name on the network its frontends
// share with it.
const pgAlias = "pdnstest-postgres"

// psqlPath is psql in a Debian PostgreSQL 15 image, ours and the official
// one alike.
const psqlPath = "/usr/lib/postgresql/15/bin/psql"

// pgDataDir is where the PostgreSQL container keeps its cluster: on a
// tmpfs, as PowerDNS's gpgsql backend connects anew for every API request
// and a connection to a cluster on the image's overlay filesystem took
// three times as long here (160 ms against 55).
const pgDataDir = "/pdnstest-pgdata"

// startPostgresContainer runs image on a network of its own, which the
// frontend containers join. The image is pdnskit/postgres:15 or one that
// behaves like it: arguments go to postgres, the cluster goes where PGDATA
// says, trust authentication (the official postgres image does all that
// with POSTGRES_HOST_AUTH_METHOD=trust).
//
// With restartable, the cluster stays where the image keeps it, not on a
// tmpfs, whose content goes when the container stops: a restart (bounce)
// is then a stop and a start of the container, with its data.
func startPostgresContainer(ctx context.Context, image string, restartable bool) (*postgres, error) {
	configureDocker()
	sweepOnce.Do(func() { sweepStale(ctx) })
	nw, err := network.New(ctx, network.WithLabels(harnessLabels()))
	if err != nil {
		return nil, fmt.Errorf("create a network for PostgreSQL: %w", err)
	}
	pg := &postgres{host: pgAlias, port: 5432, network: nw.Name, logs: func() string { return "" }}
	var c *testcontainers.DockerContainer
	pg.stop = func(ctx context.Context) error {
		return oneExitAtATime(ctx, func() error {
			var errs []error
			if c != nil {
				errs = append(errs, testcontainers.TerminateContainer(c, testcontainers.StopContext(ctx)))
			}
			errs = append(errs, nw.Remove(ctx))
			return errors.Join(errs...)
		})
	}
	env := map[string]string{"POSTGRES_HOST_AUTH_METHOD": "trust"}
	opts := []testcontainers.ContainerCustomizer{
		testcontainers.WithCmd(pgServerArgs()...),
		network.WithNetwork([]string{pgAlias}, nw),
		testcontainers.WithLabels(harnessLabels()),
	}
	if !restartable {
		env["PGDATA"] = pgDataDir + "/data"
		opts = append(opts, testcontainers.WithTmpfs(map[string]string{pgDataDir: "rw,mode=1777"}))
	}
	c, err = testcontainers.Run(ctx, image, append(opts, testcontainers.WithEnv(env))...)
	if c != nil {
		pg.logs = func() string { return containerLogs(c) }
	}
	if err != nil {
		return pg, fmt.Errorf("run %s: %w", image, err)
	}
	run := func(ctx context.Context, cmd ...string) error {
		code, out, err := c.Exec(ctx, cmd, tcexec.Multiplexed())
		if err != nil {
			return fmt.Errorf("%s: %w", path.Base(cmd[0]), err)
		}
		if code != 0 {
			b, _ := io.ReadAll(io.LimitReader(out, 4<<10))
			return fmt.Errorf("%s exited %d: %s", path.Base(cmd[0]), code, bytes.TrimSpace(b))
		}
		return nil
	}
	pg.psql = func(ctx context.Context, db string, script []byte, pooled bool) error {
		suffix, err := randomHex(8)
		if err != nil {
			return err
		}
		file := "/tmp/pdnstest-" + suffix + ".sql"
		if err := c.CopyToContainer(ctx, script, file, 0o644); err != nil {
			return fmt.Errorf("copy SQL into the container: %w", err)
		}
		port := 5432
		if pooled {
			port = pgbouncerPort
		}
		return run(ctx, append([]string{psqlPath}, psqlArgs(port, db, file)...)...)
	}
	const ini, pidfile = "/tmp/pdnstest-pgbouncer.ini", "/tmp/pgbouncer.pid"
	pg.pool = func(ctx context.Context) (bool, error) {
		// A failed test -x means the image has no PgBouncer, not an error.
		if installed := run(ctx, "test", "-x", pgbouncerPath) == nil; !installed {
			return false, nil
		}
		conf := pgbouncerConfig("0.0.0.0", pgbouncerPort, 5432, "/tmp/pgbouncer.log", pidfile)
		if err := c.CopyToContainer(ctx, conf, ini, 0o644); err != nil {
			return true, fmt.Errorf("copy PgBouncer's configuration into the container: %w", err)
		}
		if err := run(ctx, pgbouncerPath, "-d", "-q", ini); err != nil {
			return true, err
		}
		pg.port = pgbouncerPort
		return true, nil
	}
	if restartable {
		pg.bounce = func(ctx context.Context) error {
			// SIGINT is PostgreSQL's fast shutdown (docker stop's SIGTERM
			// is its smart one, which waits for PgBouncer's sessions to
			// end).
			if err := restartContainer(ctx, c, "SIGINT"); err != nil {
				return err
			}
			if !pg.pooled {
				return nil
			}
			// PgBouncer went with the container; its pid file stayed.
			if err := run(ctx, "rm", "-f", pidfile); err != nil {
				return err
			}
			return run(ctx, pgbouncerPath, "-d", "-q", ini)
		}
	}
	return pg, nil
}

// pgbouncerPort is where PgBouncer listens in the PostgreSQL container.
const pgbouncerPort = 6432

// imageFile reads one file of an image from a container created, never
// started, for the purpose.
func imageFile(ctx context.Context, image string, paths []string) ([]byte, error) {
	configureDocker()
	cli, err := testcontainers.NewDockerClientWithOpts(ctx)
	if err != nil {
		return nil, err
	}
	defer cli.Close()
	created, err := cli.ContainerCreate(ctx, &container.Config{Image: image, Labels: harnessLabels()}, nil, nil, nil, "")
	if err != nil {
		return nil, fmt.Errorf("create a container of %s: %w", image, err)
	}
	defer func() {
		_ = cli.ContainerRemove(context.WithoutCancel(ctx), created.ID, container.RemoveOptions{Force: true})
	}()
	for _, p := range paths {
		rc, _, err := cli.CopyFromContainer(ctx, created.ID, "/"+p)
		if err != nil {
			continue
		}
		b, err := firstTarFile(rc)
		rc.Close()
		if err != nil {
			return nil, fmt.Errorf("read %s from %s: %w", p, image, err)
		}
		return b, nil
	}
	return nil, fmt.Errorf("none of %v in %s", paths, image)
}

// firstTarFile returns the content of the first regular file of a tar
// stream, as Docker's copy API sends one file.
func firstTarFile(r io.Reader) ([]byte, error) {
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if err != nil {
			return nil, err
		}
		if h.Typeflag == tar.TypeReg {
			return io.ReadAll(io.LimitReader(tr, 16<<20))
		}
	}
}
