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
	case Floor:
		return "floor: one raw GET of the zone (+ its metadata) + prebuilt writes, ownership included"
	case FloorBare:
		return "floor without ownership"
	}
	return w.String()
}

// Writer colours in the chart.
var writerColor = map[WriterID]color.RGBA{
	Sync:           {31, 119, 180, 255},
	Apply:          {44, 160, 44, 255},
	PerRRset:       {214, 39, 40, 255},
	PerRRsetWrites: {214, 39, 40, 255},
	Floor:          {90, 90, 90, 255},
	FloorBare:      {190, 190, 190, 255},
	FloorMetadata:  {140, 86, 75, 255},
}

// chartWriters are the writers the chart draws: those that write the whole
// zone at every size.
var chartWriters = []WriterID{Sync, Floor}

var serverMarkers = []Marker{Circle, Square, Triangle, Cross, Ring, Plus, OpenTriangle, OpenSquare}

func writeChart(res *Results, path string) error {
	ch := Chart{
		Title:   "Time per sync against N: medians, min-max whiskers, log-log, every server",
		XLabel:  "N (RRsets in the zone)",
		YLabel:  "time per sync",
		Columns: 2,
	}
	for _, sc := range Scenarios() {
		p := Panel{Title: sc.Title()}
		for si, s := range res.Servers {
			for _, w := range chartWriters {
				se := Series{Color: writerColor[w], Marker: serverMarkers[si%len(serverMarkers)]}
				for _, n := range res.Plan.Sizes() {
					c, ok := res.Cell(s.Key(), n, sc, w)
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
		if len(p.Series) > 0 {
			ch.Panels = append(ch.Panels, p)
		}
	}
	for _, w := range chartWriters {
		ch.Legend = append(ch.Legend, LegendEntry{Label: "(" + w.Letter() + ") " + legendName(w), Color: writerColor[w], Line: true})
	}
	for si, s := range res.Servers {
		ch.Legend = append(ch.Legend, LegendEntry{Label: s.Label(), Color: black, Marker: serverMarkers[si%len(serverMarkers)]})
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
