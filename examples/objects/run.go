package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
	"time"
)

// Exit codes.
const (
	exitOK     = 0
	exitFailed = 1
	exitUsage  = 2
)

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("objects", flag.ContinueOnError)
	fs.SetOutput(stderr)
	naive := fs.Bool("naive", false, "replay with the controller as it was before, without the library")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "objects: unexpected arguments %q\n", fs.Args())
		return exitUsage
	}
	out := replay(*naive)
	report(stdout, *naive, out)
	if len(out.Failed()) > 0 {
		return exitFailed
	}
	return exitOK
}

// report prints the story and its checks.
func report(w io.Writer, naive bool, out Outcome) {
	who := "built on rrset, conflict.Against and backoff.Gate"
	if naive {
		who = "as it was before (naive)"
	}
	fmt.Fprintf(w, "Controller %s, writing DNSRecordSet objects in zone %s\n", who, zone)
	for i, st := range out.Steps {
		fmt.Fprintf(w, "\n%d. %s (%s)\n", i+1, st.Title, st.At.Format(time.TimeOnly))
		for _, s := range st.Statuses {
			fmt.Fprintf(w, "   %-22s %-12s %s\n", s.Hostname, s.Reason, s.Message)
		}
		if len(st.Events) == 0 {
			fmt.Fprintf(w, "   no object written\n")
		}
		for _, e := range st.Events {
			line := fmt.Sprintf("   %s %s", e.Verb, e.Ref)
			if o, ok := find(st.Objects, e.Ref); ok {
				line += fmt.Sprintf(" (%s %s%s)", o.Owner, o.Type, annotations(o))
			}
			fmt.Fprintln(w, line)
		}
		if st.RequeueAfter > 0 {
			fmt.Fprintf(w, "   requeue after %s (the next check that counts)\n", st.RequeueAfter)
		}
	}
	fmt.Fprintf(w, "\nChecks:\n")
	for _, c := range out.Checks {
		mark := "ok  "
		if !c.OK {
			mark = "FAIL"
		}
		fmt.Fprintf(w, "  %s %s\n       %s\n", mark, c.Name, c.Detail)
	}
	if failed := out.Failed(); len(failed) > 0 {
		fmt.Fprintf(w, "\n%d of %d checks failed: %s\n", len(failed), len(out.Checks), strings.Join(failed, ", "))
	} else {
		fmt.Fprintf(w, "\nAll %d checks passed.\n", len(out.Checks))
	}
}

func find(objects []RecordSet, ref string) (RecordSet, bool) {
	for _, o := range objects {
		if o.Ref() == ref {
			return o, true
		}
	}
	return RecordSet{}, false
}

func annotations(o RecordSet) string {
	s, ok := storedStreak(&o)
	if !ok {
		return ""
	}
	return fmt.Sprintf(", missing since %s, checks: %d", s.Since.Format(time.TimeOnly), s.Checks)
}
