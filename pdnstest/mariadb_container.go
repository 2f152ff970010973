package pdnstest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/testcontainers/testcontainers-go"
	tcexec "github.com/testcontainers/testcontainers-go/exec"
	"github.com/testcontainers/testcontainers-go/network"
)

// myAlias is the MariaDB container's name on the network its frontends
// share with it.
const myAlias = "pdnstest-mariadb"

// myDataDir is where the MariaDB container keeps its data: on a tmpfs, as
// for PostgreSQL (pgDataDir).
const myDataDir = "/pdnstest-mydata"

// startMariaDBContainer runs image on a network of its own, which the
// frontend containers join. The image is pdnskit/mariadb:10.11 or one that
// behaves like it: arguments go to mariadbd, the data goes where
// MARIADB_DATADIR says, root gets in from anywhere without a password (the
// official mariadb image does the last with
// MARIADB_ALLOW_EMPTY_ROOT_PASSWORD=1, and keeps its data where it does).
//
// With restartable, the data stays where the image keeps it, not on a
// tmpfs, as for PostgreSQL (startPostgresContainer).
func startMariaDBContainer(ctx context.Context, image string, restartable bool) (*mariaDB, error) {
	configureDocker()
	sweepOnce.Do(func() { sweepStale(ctx) })
	nw, err := network.New(ctx, network.WithLabels(harnessLabels()))
	if err != nil {
		return nil, fmt.Errorf("create a network for MariaDB: %w", err)
	}
	my := &mariaDB{host: myAlias, port: 3306, network: nw.Name, logs: func() string { return "" }}
	var c *testcontainers.DockerContainer
	my.stop = func(ctx context.Context) error {
		return oneExitAtATime(ctx, func() error {
			var errs []error
			if c != nil {
				errs = append(errs, testcontainers.TerminateContainer(c, testcontainers.StopContext(ctx)))
			}
			errs = append(errs, nw.Remove(ctx))
			return errors.Join(errs...)
		})
	}
	env := map[string]string{"MARIADB_ALLOW_EMPTY_ROOT_PASSWORD": "1"}
	opts := []testcontainers.ContainerCustomizer{
		testcontainers.WithCmd(mariaDBServerArgs()...),
		network.WithNetwork([]string{myAlias}, nw),
		testcontainers.WithLabels(harnessLabels()),
	}
	if !restartable {
		env["MARIADB_DATADIR"] = myDataDir + "/data"
		opts = append(opts, testcontainers.WithTmpfs(map[string]string{myDataDir: "rw,mode=1777"}))
	}
	c, err = testcontainers.Run(ctx, image, append(opts, testcontainers.WithEnv(env))...)
	if c != nil {
		my.logs = func() string { return containerLogs(c) }
	}
	if err != nil {
		return my, fmt.Errorf("run %s: %w", image, err)
	}
	my.sql = func(ctx context.Context, script []byte) error {
		suffix, err := randomHex(8)
		if err != nil {
			return err
		}
		file := "/tmp/pdnstest-" + suffix + ".sql"
		if err := c.CopyToContainer(ctx, script, file, 0o644); err != nil {
			return fmt.Errorf("copy SQL into the container: %w", err)
		}
		code, out, err := c.Exec(ctx, append(mariaDBClient(3306), file), tcexec.Multiplexed())
		if err != nil {
			return fmt.Errorf("mariadb: %w", err)
		}
		if code != 0 {
			b, _ := io.ReadAll(io.LimitReader(out, 4<<10))
			return fmt.Errorf("mariadb exited %d: %s", code, bytes.TrimSpace(b))
		}
		return nil
	}
	if restartable {
		my.bounce = func(ctx context.Context) error { return restartContainer(ctx, c, "SIGTERM") }
	}
	return my, nil
}
