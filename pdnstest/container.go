package pdnstest

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/api/types/network"
	"github.com/docker/go-connections/nat"
	"github.com/testcontainers/testcontainers-go"
	tclog "github.com/testcontainers/testcontainers-go/log"
)

// Labels on every container the harness starts, so that containers left by a
// test binary that was killed can be found and removed by the next run.
const (
	labelHarness = "org.pdnskit.pdnstest"
	labelPID     = "org.pdnskit.pdnstest.pid"
	labelHost    = "org.pdnskit.pdnstest.host"
)

// configureDocker sets up testcontainers-go the first time the harness
// talks to the Docker engine, rather than when pdnstest is imported: a test
// binary that imports pdnstest and never asks for a server keeps its
// environment and its testcontainers logger.
//
// The harness removes its own containers (test cleanup, Main, and a sweep of
// containers left by dead test binaries), so the Ryuk reaper is not needed;
// it also cannot be pulled where no registry answers. An explicit
// TESTCONTAINERS_RYUK_DISABLED=false turns it back on. testcontainers-go's
// own logging is silenced unless PDNS_TEST_VERBOSE is set.
var configureDocker = sync.OnceFunc(func() {
	if _, set := os.LookupEnv("TESTCONTAINERS_RYUK_DISABLED"); !set {
		_ = os.Setenv("TESTCONTAINERS_RYUK_DISABLED", "true")
	}
	if os.Getenv("PDNS_TEST_VERBOSE") == "" {
		tclog.SetDefault(quietLogger{})
	}
})

type quietLogger struct{}

func (quietLogger) Printf(string, ...any) {}

func dockerAnswers(ctx context.Context) bool {
	configureDocker()
	cli, err := testcontainers.NewDockerClientWithOpts(ctx)
	if err != nil {
		return false
	}
	defer cli.Close()
	_, err = cli.Ping(ctx)
	return err == nil
}

func imagePresent(ctx context.Context, image string) bool {
	configureDocker()
	cli, err := testcontainers.NewDockerClientWithOpts(ctx)
	if err != nil {
		return false
	}
	defer cli.Close()
	_, err = cli.ImageInspect(ctx, image)
	return err == nil
}

func startContainer(ctx context.Context, srv *Server, extra []string) error {
	configureDocker()
	sweepOnce.Do(func() { sweepStale(ctx) })
	// gsqlite3 is what the images are configured for; LMDB is asked for.
	args := apiArgs(srv.APIKey, "0.0.0.0", 8081)
	args = append(args, backendArgs(srv, "/var/lib/powerdns")...)
	args = append(args, extra...)
	var err error
	// The DNS port is bound to one host port for UDP and TCP alike; another
	// process may take it between choosing and binding, so try again then.
	for attempt := 1; ; attempt++ {
		err = runContainer(ctx, srv, args)
		if err == nil || attempt == 3 || !strings.Contains(err.Error(), "already allocated") && !strings.Contains(err.Error(), "address already in use") {
			return err
		}
		_ = srv.Stop(ctx)
	}
}

func runContainer(ctx context.Context, srv *Server, args []string) error {
	dnsPort, err := freePort("0.0.0.0")
	if err != nil {
		return err
	}
	// The API port is chosen here too, not by Docker: a container that is
	// stopped and started again (Restart) keeps its address.
	apiPort, err := freePort("0.0.0.0")
	if err != nil {
		return err
	}
	hostPort := strconv.Itoa(dnsPort)
	c, err := testcontainers.Run(ctx, srv.Target.Image,
		testcontainers.WithCmd(args...),
		testcontainers.WithExposedPorts("8081/tcp", "53/tcp", "53/udp"),
		testcontainers.WithHostConfigModifier(func(hc *container.HostConfig) {
			hc.PortBindings = nat.PortMap{
				"53/tcp":   {{HostPort: hostPort}},
				"53/udp":   {{HostPort: hostPort}},
				"8081/tcp": {{HostPort: strconv.Itoa(apiPort)}},
			}
		}),
		testcontainers.WithLabels(harnessLabels()),
		withNetwork(srv.db),
	)
	if c != nil {
		srv.stop = func(ctx context.Context) error {
			return oneExitAtATime(ctx, func() error {
				return testcontainers.TerminateContainer(c, testcontainers.StopContext(ctx))
			})
		}
		srv.logs = func() string { return containerLogs(c) }
		srv.kill = func(ctx context.Context) error {
			timeout := time.Duration(0)
			return oneExitAtATime(ctx, func() error { return c.Stop(ctx, &timeout) })
		}
		srv.revive = c.Start
	}
	if err != nil {
		return fmt.Errorf("run %s: %w", srv.Target.Image, err)
	}
	host, err := c.Host(ctx)
	if err != nil {
		return fmt.Errorf("container host: %w", err)
	}
	api, err := c.MappedPort(ctx, "8081/tcp")
	if err != nil {
		return fmt.Errorf("container API port: %w", err)
	}
	hosts := []string{host}
	switch {
	case host == "localhost":
		// Avoid resolving localhost to ::1 where Docker only bound IPv4.
		hosts = []string{"127.0.0.1"}
	case host != "127.0.0.1" && localDaemon():
		// testcontainers reports the default gateway when it believes it
		// runs inside a container; with a local daemon the ports may as
		// well be on loopback. waitReady keeps whichever answers; loopback
		// first, as it refuses at once where nothing listens.
		hosts = []string{"127.0.0.1", host}
	}
	for _, h := range hosts {
		srv.endpoints = append(srv.endpoints, endpoint{
			url:     "http://" + net.JoinHostPort(h, api.Port()),
			dnsAddr: net.JoinHostPort(h, hostPort),
		})
	}
	return nil
}

// restartStopTimeout bounds how long restartContainer waits for a database
// container to stop on its signal before it kills it.
const restartStopTimeout = 30 * time.Second

// restartContainer sends signal to c's main process, waits until the
// container has stopped (killing it after restartStopTimeout), and starts
// it again: with its own filesystem, network and aliases, perhaps on
// another IP address.
func restartContainer(ctx context.Context, c *testcontainers.DockerContainer, signal string) error {
	cli, err := testcontainers.NewDockerClientWithOpts(ctx)
	if err != nil {
		return err
	}
	defer cli.Close()
	err = oneExitAtATime(ctx, func() error {
		wait, cancel := context.WithTimeout(ctx, restartStopTimeout)
		defer cancel()
		stopped, failed := cli.ContainerWait(wait, c.GetContainerID(), container.WaitConditionNotRunning)
		if err := cli.ContainerKill(ctx, c.GetContainerID(), signal); err != nil {
			return fmt.Errorf("send %s: %w", signal, err)
		}
		select {
		case <-stopped:
			return nil
		case err := <-failed:
			if wait.Err() == nil {
				return fmt.Errorf("wait for the container to stop: %w", err)
			}
		}
		now := time.Duration(0)
		return c.Stop(ctx, &now)
	})
	if err != nil {
		return err
	}
	return c.Start(ctx)
}

// harnessLabels label what the harness creates in the Docker engine:
// containers and networks.
func harnessLabels() map[string]string {
	return map[string]string{
		labelHarness: "1",
		labelPID:     strconv.Itoa(os.Getpid()),
		labelHost:    hostname(),
	}
}

// withNetwork joins a frontend container to the network of its database's
// server.
func withNetwork(db *database) testcontainers.CustomizeRequestOption {
	return func(req *testcontainers.GenericContainerRequest) error {
		if db != nil && db.network != "" {
			req.Networks = append(req.Networks, db.network)
		}
		return nil
	}
}

func containerLogs(c *testcontainers.DockerContainer) string {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	r, err := c.Logs(ctx)
	if err != nil {
		return ""
	}
	defer r.Close()
	b, _ := io.ReadAll(io.LimitReader(r, 1<<20))
	return string(b)
}

var sweepOnce sync.Once

// sweepStale removes the containers, then the networks, this harness made
// from test binaries on this host that no longer run (killed before their
// cleanup could run).
func sweepStale(ctx context.Context) {
	cli, err := testcontainers.NewDockerClientWithOpts(ctx)
	if err != nil {
		return
	}
	defer cli.Close()
	ours := filters.NewArgs(filters.Arg("label", labelHarness+"=1"), filters.Arg("label", labelHost+"="+hostname()))
	stale := func(labels map[string]string) bool {
		pid, err := strconv.Atoi(labels[labelPID])
		return err == nil && !processAlive(pid)
	}
	list, err := cli.ContainerList(ctx, container.ListOptions{All: true, Filters: ours})
	if err != nil {
		return
	}
	for _, c := range list {
		if stale(c.Labels) {
			_ = oneExitAtATime(ctx, func() error {
				return cli.ContainerRemove(ctx, c.ID, container.RemoveOptions{Force: true, RemoveVolumes: true})
			})
		}
	}
	networks, err := cli.NetworkList(ctx, network.ListOptions{Filters: ours})
	if err != nil {
		return
	}
	for _, n := range networks {
		if stale(n.Labels) {
			_ = oneExitAtATime(ctx, func() error { return cli.NetworkRemove(ctx, n.ID) })
		}
	}
}

// localDaemon reports whether the Docker engine is reached through a local
// socket rather than over the network.
func localDaemon() bool {
	h := os.Getenv("DOCKER_HOST")
	return h == "" || strings.HasPrefix(h, "unix://")
}

func hostname() string {
	h, _ := os.Hostname()
	return h
}
