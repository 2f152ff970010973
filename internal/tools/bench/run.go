package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pdnskit/reconcile/internal/tools/machine"
	"github.com/pdnskit/reconcile/pdnstest"
)

// Run measures plan on every target it selects, one server at a time, and
// logs its progress to log. Whether a target is the newest of its backend
// is known before it starts (it is the last configured); its version only
// once it answers, so a target the plan does not select by version is
// started and stopped again.
func Run(ctx context.Context, plan Plan, targets []pdnstest.Target, log io.Writer) (*Results, error) {
	if len(targets) == 0 {
		return nil, errors.New("no PowerDNS server configured")
	}
	m := machine.This()
	res := &Results{Plan: plan, Started: time.Now(), Machine: &m}
	for i, t := range targets {
		newest := true
		for _, later := range targets[i+1:] {
			if later.Backend == t.Backend {
				newest = false
			}
		}
		if err := runServer(ctx, plan, t, newest, res, log); err != nil {
			return res, err
		}
	}
	res.Finished = time.Now()
	return res, nil
}

// server is one running server and everything the benchmark writes with.
type server struct {
	info    ServerInfo
	admin   *Admin
	writers map[WriterID]Writer
	// owns is what each writer records besides the records.
	owns     map[WriterID]Ownership
	checkers map[Store]*Checker
	limit    int
	seeds    map[seedKey]*Seed
}

type seedKey struct {
	n     int
	store Store
}

func runServer(ctx context.Context, plan Plan, t pdnstest.Target, newest bool, res *Results, log io.Writer) (err error) {
	if len(plan.Backends) > 0 && !slices.Contains(plan.Backends, string(t.Backend)) {
		return nil
	}
	srv, err := pdnstest.Launch(ctx, pdnstest.WithTarget(t),
		pdnstest.WithArgs("--webserver-max-bodysize="+strconv.Itoa(plan.MaxBodyMB)))
	if srv != nil {
		defer func() {
			stopCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
			defer cancel()
			if stopErr := srv.Stop(stopCtx); stopErr != nil && err == nil {
				err = fmt.Errorf("stop %s: %w", t, stopErr)
			}
		}()
	}
	if err != nil {
		return err
	}
	key := ServerKey{Backend: string(srv.Backend), Version: srv.Version}
	if !plan.Selects(key, newest) {
		fmt.Fprintf(log, "skip PowerDNS %s (%s): the plan measures nothing there\n", key, t)
		return nil
	}
	s, err := setUp(ctx, plan, srv)
	if err != nil {
		return fmt.Errorf("PowerDNS %s: %w", key, err)
	}
	s.info.Target, s.info.Newest = t.String(), newest
	s.info.LoadBefore = machine.LoadAverage()
	began := time.Now()
	defer func() {
		s.info.LoadAfter, s.info.Took = machine.LoadAverage(), time.Since(began)
		res.Servers = append(res.Servers, s.info)
	}()
	fmt.Fprintf(log, "PowerDNS %s at %s, load average %s\n", s.info.Label(), srv.URL, s.info.LoadBefore)
	for _, n := range plan.SizesOn(key, newest) {
		for _, sc := range Scenarios() {
			cells := plan.Cells(key, newest, n, sc)
			if len(cells) == 0 {
				continue
			}
			c, err := NewCase(sc, n)
			if err != nil {
				return err
			}
			measured, err := s.runCase(ctx, c, cells, log)
			if err != nil {
				return fmt.Errorf("PowerDNS %s, %d RRsets, %s: %w", key, n, sc.Title(), err)
			}
			for _, cell := range measured {
				cell.Version, cell.Backend = key.Version, key.Backend
				res.Cells = append(res.Cells, cell)
			}
		}
	}
	return s.admin.Delete(ctx, Zone)
}

// setUp makes the writers for srv and learns what the library records
// there besides the records.
func setUp(ctx context.Context, plan Plan, srv *pdnstest.Server) (*server, error) {
	limit := plan.MaxBodyMB << 20
	admin := NewAdmin(srv.URL, srv.APIKey)
	// Every writer talks through the same kind of transport; PowerDNS
	// closes the connection after each answer, so none of them reuses one.
	base := http.DefaultTransport.(*http.Transport).Clone()
	syncW, err := NewSyncWriter(srv.URL, srv.APIKey, base, limit)
	if err != nil {
		return nil, err
	}
	own, err := syncW.Ownership(ctx, admin)
	if err != nil {
		return nil, err
	}
	applyW, err := NewApplyWriter(srv.URL, srv.APIKey, base, limit)
	if err != nil {
		return nil, err
	}
	// The per-object writers without the library record ownership as the
	// library does on this server, so that (d)/(b) compares the library
	// with what its ownership costs at least.
	perObject := own
	s := &server{
		info:  ServerInfo{Version: srv.Version, Backend: string(srv.Backend), Store: string(own.Store)},
		admin: admin,
		owns: map[WriterID]Ownership{
			Sync: own, Apply: own, Floor: own,
			PerRRset: perObject, PerRRsetWrites: perObject,
			FloorBare:     {Store: StoreNone},
			FloorMetadata: {Store: StoreMetadata},
		},
		checkers: make(map[Store]*Checker),
		limit:    limit,
		seeds:    make(map[seedKey]*Seed),
	}
	s.writers = map[WriterID]Writer{
		Sync:           syncW,
		Apply:          applyW,
		PerRRset:       NewPerRRsetWriter(PerRRset, srv.URL, srv.APIKey, base, perObject),
		PerRRsetWrites: NewPerRRsetWriter(PerRRsetWrites, srv.URL, srv.APIKey, base, perObject),
		Floor:          NewFloorWriter(Floor, srv.URL, srv.APIKey, base, own, limit),
		FloorBare:      NewFloorWriter(FloorBare, srv.URL, srv.APIKey, base, s.owns[FloorBare], limit),
		FloorMetadata:  NewFloorWriter(FloorMetadata, srv.URL, srv.APIKey, base, s.owns[FloorMetadata], limit),
	}
	for _, st := range []Store{StoreComments, StoreMetadata} {
		if st == StoreComments && own.Store != StoreComments {
			continue // the backend refuses comments
		}
		if s.checkers[st], err = NewChecker(srv.URL, srv.APIKey, st); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// seed is the start state of size n written with ownership o, built once.
func (s *server) seed(n int, o Ownership) (*Seed, error) {
	k := seedKey{n, o.Store}
	if sd, ok := s.seeds[k]; ok {
		return sd, nil
	}
	sd, err := NewSeed(Workload(n), o, s.limit, time.Now().UnixNano())
	if err != nil {
		return nil, err
	}
	s.seeds[k] = sd
	return sd, nil
}

// runCase runs every planned writer on c, round by round; each round takes
// the writers in another order, so that none is always first after a
// reset.
func (s *server) runCase(ctx context.Context, c Case, planned []Planned, log io.Writer) ([]Cell, error) {
	cells := make([]Cell, len(planned))
	rounds := 0
	for i, p := range planned {
		cells[i] = Cell{N: c.N, Scenario: c.Scenario, Writer: p.Writer, Warmups: p.Warmups}
		rounds = max(rounds, p.Warmups+p.Runs)
	}
	began := time.Now()
	for round := range rounds {
		for k := range planned {
			i := (k + round) % len(planned)
			p, cell := planned[i], &cells[i]
			first := rounds - p.Runs - p.Warmups
			if round < first {
				continue // this writer has fewer runs than another
			}
			// The first run of each writer is checked; the others must
			// answer as it did (status codes, the library's Results).
			sample, err := s.runOnce(ctx, c, p.Writer, round == first)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", p.Writer.Letter(), err)
			}
			if round >= rounds-p.Runs {
				cell.Samples = append(cell.Samples, sample)
			}
		}
	}
	var parts []string
	for _, cell := range cells {
		parts = append(parts, fmt.Sprintf("(%s) %s", cell.Writer.Letter(), fmtDuration(cell.Stats().Median)))
	}
	fmt.Fprintf(log, "  %7d RRsets  %-12s  %s   [%s]\n", c.N, c.Scenario.Title(), strings.Join(parts, "  "), time.Since(began).Round(time.Second))
	return cells, nil
}

// runOnce resets the zone to the case's start, written with the writer's
// ownership, then times one run of the writer and, when verify is true,
// checks that the zone holds what is desired, owned as the writer owns
// it.
func (s *server) runOnce(ctx context.Context, c Case, id WriterID, verify bool) (Sample, error) {
	w, own := s.writers[id], s.owns[id]
	var start *Seed
	if c.Start != nil {
		var err error
		if start, err = s.seed(c.N, own); err != nil {
			return Sample{}, err
		}
	}
	if err := s.admin.Reset(ctx, Zone, start); err != nil {
		return Sample{}, err
	}
	run, err := w.Prepare(ctx, c)
	if err != nil {
		return Sample{}, err
	}
	runtime.GC()
	w.Counter().Reset()
	cpu := processCPU()
	began := time.Now()
	err = run(ctx)
	took := time.Since(began)
	cpu = processCPU() - cpu
	if err != nil {
		return Sample{}, err
	}
	sample := Sample{Duration: took, CPU: cpu, Counts: w.Counter().Counts()}
	if verify {
		if err := s.admin.Verify(ctx, Zone, c.Desired, own); err != nil {
			return Sample{}, err
		}
		if ch := s.checkers[own.Store]; ch != nil {
			if err := ch.Check(ctx, c.Desired); err != nil {
				return Sample{}, err
			}
		}
	}
	return sample, nil
}
