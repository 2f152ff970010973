package bench

import (
	"fmt"
	"image/color"
	"os"
	"path/filepath"
)

// legendName names a writer in the chart's legend.
func legendName(w WriterID) string {
	switch w {
	case PerRRset:
		return "per-object controller: per RRset one GET, then one PATCH if needed"
	case PerRRsetWrites:
		return "one PATCH per RRset, no GETs: a lower bound of (b)"
	case Floor:
		return "floor: one raw GET of the zone + one prebuilt PATCH"
	}
	return w.String()
}

// Writer colours in the chart.
var writerColor = map[WriterID]color.RGBA{
	Sync:           {31, 119, 180, 255},
	PerRRset:       {214, 39, 40, 255},
	PerRRsetWrites: {214, 39, 40, 255},
	Floor:          {90, 90, 90, 255},
}

var versionMarkers = []Marker{Circle, Square, Triangle, Cross}

func writeChart(res *Results, path string) error {
	ch := Chart{
		Title:   "Time per sync against N: medians, min-max whiskers, log-log (PowerDNS, gsqlite3)",
		XLabel:  "N (RRsets in the zone)",
		YLabel:  "time per sync",
		Columns: 2,
	}
	for _, sc := range res.Plan.Scenarios {
		p := Panel{Title: sc.Title()}
		for vi, s := range res.Servers {
			for _, w := range Writers() {
				if w == PerRRsetWrites && ranEverywhere(res, s.Version, sc, PerRRset) {
					continue // b′ only where b is missing
				}
				se := Series{Color: writerColor[w], Dashed: w == PerRRsetWrites, Marker: versionMarkers[vi%len(versionMarkers)]}
				for _, n := range res.Plan.Sizes {
					c, ok := res.Cell(s.Version, n, sc, w)
					if !ok || len(c.Samples) == 0 {
						continue
					}
					st := c.Stats()
					se.Points = append(se.Points, Point{X: float64(n), Y: st.Median.Seconds(), Lo: st.Min.Seconds(), Hi: st.Max.Seconds()})
				}
				if len(se.Points) > 0 {
					p.Series = append(p.Series, se)
				}
			}
		}
		ch.Panels = append(ch.Panels, p)
	}
	for _, w := range Writers() {
		ch.Legend = append(ch.Legend, LegendEntry{Label: "(" + w.Letter() + ") " + legendName(w), Color: writerColor[w], Dashed: w == PerRRsetWrites, Line: true})
	}
	for vi, s := range res.Servers {
		ch.Legend = append(ch.Legend, LegendEntry{Label: "PowerDNS " + s.Version, Color: black, Marker: versionMarkers[vi%len(versionMarkers)]})
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("write chart: %w", err)
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("write chart: %w", err)
	}
	if err := ch.WritePNG(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// ranEverywhere reports whether w ran scenario sc on version at every
// size.
func ranEverywhere(res *Results, version string, sc Scenario, w WriterID) bool {
	for _, n := range res.Plan.Sizes {
		if _, ok := res.Cell(version, n, sc, w); !ok {
			return false
		}
	}
	return true
}
