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

	"github.com/joeig/go-powerdns/v3"

	"github.com/pdnskit/reconcile/internal/machine"
	"github.com/pdnskit/reconcile/pdnstest"
)

// Run measures plan on every gsqlite3 target, one server at a time, and
// logs its progress to log.
func Run(ctx context.Context, plan Plan, targets []pdnstest.Target, log io.Writer) (*Results, error) {
	var sqlite []pdnstest.Target
	for _, t := range targets {
		if t.Backend == pdnstest.GSQLite3 {
			sqlite = append(sqlite, t)
		}
	}
	if len(sqlite) == 0 {
		return nil, errors.New("no gsqlite3 server configured")
	}
	m := machine.This()
	res := &Results{Plan: plan, Started: time.Now(), Machine: &m}
	for i, t := range sqlite {
		if err := runServer(ctx, plan, t, i == len(sqlite)-1, res, log); err != nil {
			return res, err
		}
	}
	res.Finished = time.Now()
	return res, nil
}

func runServer(ctx context.Context, plan Plan, t pdnstest.Target, last bool, res *Results, log io.Writer) (err error) {
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
	if len(plan.Versions) > 0 && !slices.ContainsFunc(plan.Versions, func(v string) bool { return strings.HasPrefix(srv.Version, v) }) {
		fmt.Fprintf(log, "skip PowerDNS %s (%s): not in -versions\n", srv.Version, t)
		return nil
	}
	info := ServerInfo{Version: srv.Version, Backend: string(srv.Backend), Target: t.String(), LoadBefore: machine.LoadAverage()}
	began := time.Now()
	defer func() {
		info.LoadAfter, info.Took = machine.LoadAverage(), time.Since(began)
		res.Servers = append(res.Servers, info)
	}()
	fmt.Fprintf(log, "PowerDNS %s (%s) at %s, load average %s\n", srv.Version, t, srv.URL, info.LoadBefore)

	admin := NewAdmin(srv.URL, srv.APIKey)
	// Every writer talks through the same kind of transport; PowerDNS
	// closes the connection after each answer, so none of them reuses one.
	base := http.DefaultTransport.(*http.Transport).Clone()
	syncW, err := NewSyncWriter(srv.URL, srv.APIKey, base, plan.MaxBodyMB<<20)
	if err != nil {
		return err
	}
	owner, err := syncW.Ownership(ctx, admin)
	if err != nil {
		return err
	}
	writers := map[WriterID]Writer{
		Sync:           syncW,
		PerRRset:       NewPerRRsetWriter(PerRRset, srv.URL, srv.APIKey, base, owner),
		PerRRsetWrites: NewPerRRsetWriter(PerRRsetWrites, srv.URL, srv.APIKey, base, owner),
		Floor:          NewFloorWriter(srv.URL, srv.APIKey, base, owner),
	}
	for _, n := range plan.Sizes {
		seed, err := Body(replaces(Workload(n)), owner)
		if err != nil {
			return err
		}
		for _, s := range plan.Scenarios {
			c, err := NewCase(s, n)
			if err != nil {
				return err
			}
			start := seed
			if c.Start == nil {
				start = nil
			}
			var ws []Writer
			for _, id := range plan.writers(n, s, srv.Version, last) {
				ws = append(ws, writers[id])
			}
			if len(ws) == 0 {
				continue
			}
			cells, err := runCase(ctx, plan, c, ws, start, admin, owner, log)
			if err != nil {
				return fmt.Errorf("PowerDNS %s, %d RRsets, %s: %w", srv.Version, n, s.Title(), err)
			}
			for _, cell := range cells {
				cell.Version = srv.Version
				res.Cells = append(res.Cells, cell)
			}
		}
	}
	return admin.Delete(ctx, Zone)
}

// runCase runs every writer on c, round by round; each round takes the
// writers in another order, so that none is always first after a reset.
func runCase(ctx context.Context, plan Plan, c Case, ws []Writer, start []byte, admin *Admin, owner []powerdns.Comment, log io.Writer) ([]Cell, error) {
	cells := make([]Cell, len(ws))
	rounds := 0
	for i, w := range ws {
		cells[i] = Cell{N: c.N, Scenario: c.Scenario, Writer: w.ID(), Warmups: plan.warmups(w.ID(), c.Scenario)}
		rounds = max(rounds, cells[i].Warmups+plan.runs(w.ID()))
	}
	began := time.Now()
	for round := range rounds {
		for k := range ws {
			i := (k + round) % len(ws)
			w, cell := ws[i], &cells[i]
			runs := plan.runs(w.ID())
			if round < rounds-runs-cell.Warmups {
				continue // this writer has fewer runs than another
			}
			// The first run of each writer is checked; the others must
			// answer as it did (status codes, Sync's Result).
			first := round == rounds-runs-cell.Warmups
			sample, err := runOnce(ctx, c, w, start, admin, owner, first)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", w.ID(), err)
			}
			if round >= rounds-runs {
				cell.Samples = append(cell.Samples, sample)
			}
		}
	}
	var parts []string
	for _, cell := range cells {
		st := cell.Stats()
		parts = append(parts, fmt.Sprintf("(%s) %s", cell.Writer.Letter(), fmtDuration(st.Median)))
	}
	fmt.Fprintf(log, "  %6d RRsets  %-12s  %s   [%s]\n", c.N, c.Scenario.Title(), strings.Join(parts, "  "), time.Since(began).Round(time.Second))
	return cells, nil
}

// runOnce resets the zone to the case's start, then times one run of w and,
// when verify is true, checks that the zone holds what is desired.
func runOnce(ctx context.Context, c Case, w Writer, start []byte, admin *Admin, owner []powerdns.Comment, verify bool) (Sample, error) {
	if err := admin.Reset(ctx, Zone, start); err != nil {
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
		if err := admin.Verify(ctx, Zone, c.Desired, owner); err != nil {
			return Sample{}, err
		}
	}
	return sample, nil
}
