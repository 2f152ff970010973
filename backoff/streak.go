package backoff

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Streak is a run of checks that observed a condition, as a Gate counts
// them. It holds how many counted, and when the first and the latest
// counted one were. The zero Streak is no streak.
//
// Its text form, one line such as
//
//	2 checks from 2025-01-01T00:00:00Z to 2025-01-01T00:01:00Z
//
// is what a controller keeps in an annotation or a status field to carry a
// streak across restarts: get it with Gate.Current after a check, put it
// back with Gate.Resume. The zero Streak's text form is empty.
type Streak struct {
	// Checks is how many checks counted; below 1 there is no streak.
	Checks int
	// Since is when the first counted check was.
	Since time.Time
	// Last is when the latest counted check was.
	Last time.Time
}

// maxStreakText bounds the text UnmarshalText reads: a streak's text form
// is under 100 bytes, and anything much longer is not one.
const maxStreakText = 256

// IsZero reports whether s is no streak (fewer than 1 check).
func (s Streak) IsZero() bool { return s.Checks < 1 }

// String returns the text form, or "no streak" for the zero Streak.
func (s Streak) String() string {
	if s.IsZero() {
		return "no streak"
	}
	return s.text()
}

func (s Streak) text() string {
	unit := "checks"
	if s.Checks == 1 {
		unit = "check"
	}
	return strconv.Itoa(s.Checks) + " " + unit +
		" from " + s.Since.UTC().Format(time.RFC3339Nano) +
		" to " + s.Last.UTC().Format(time.RFC3339Nano)
}

// MarshalText returns the streak's text form, in UTC; empty for a Streak
// with fewer than 1 check. It fails only for a time that RFC 3339 cannot
// write: outside the years 0 to 9999 in UTC.
func (s Streak) MarshalText() ([]byte, error) {
	if s.IsZero() {
		return []byte{}, nil
	}
	if !writable(s.Since) || !writable(s.Last) {
		return nil, errors.New("backoff: write streak: a time outside the years 0 to 9999")
	}
	return []byte(s.text()), nil
}

// writable reports whether t has an RFC 3339 form in UTC.
func writable(t time.Time) bool {
	y := t.UTC().Year()
	return y >= 0 && y <= 9999
}

// UnmarshalText reads a streak's text form, as MarshalText writes it; empty
// text (or only spaces) is the zero Streak. Text that is not a streak's
// text form is a *StreakTextError, and s is left as it was. A streak read
// from outside may still be odd (a start in the future): Gate.Resume makes
// sense of it.
func (s *Streak) UnmarshalText(text []byte) error {
	parsed, err := parseStreak(text)
	if err != nil {
		return &StreakTextError{Text: cut(text), Err: err}
	}
	*s = parsed
	return nil
}

// Errors a StreakTextError may wrap.
var (
	// ErrStreakForm: the text does not read "N checks from T1 to T2".
	ErrStreakForm = errors.New(`not of the form "N checks from TIME to TIME"`)
	// ErrStreakChecks: the number of checks is not a whole number from 1.
	ErrStreakChecks = errors.New("the number of checks is not a whole number of at least 1")
	// ErrStreakTime: a time is not RFC 3339 (or falls outside the years 0
	// to 9999 in UTC), or the last check comes before the first.
	ErrStreakTime = errors.New("a time is not RFC 3339 in the years 0 to 9999, or the last check comes before the first")
)

func parseStreak(text []byte) (Streak, error) {
	if len(text) > maxStreakText {
		return Streak{}, fmt.Errorf("%w: longer than %d bytes", ErrStreakForm, maxStreakText)
	}
	f := strings.Fields(string(text))
	if len(f) == 0 {
		return Streak{}, nil
	}
	if len(f) != 6 || (f[1] != "checks" && f[1] != "check") || f[2] != "from" || f[4] != "to" {
		return Streak{}, ErrStreakForm
	}
	checks, err := strconv.Atoi(f[0])
	if err != nil || checks < 1 || f[0][0] == '+' {
		return Streak{}, ErrStreakChecks
	}
	since, err := time.Parse(time.RFC3339Nano, f[3])
	if err != nil {
		return Streak{}, fmt.Errorf("%w: %w", ErrStreakTime, err)
	}
	last, err := time.Parse(time.RFC3339Nano, f[5])
	if err != nil {
		return Streak{}, fmt.Errorf("%w: %w", ErrStreakTime, err)
	}
	if last.Before(since) || !writable(since) || !writable(last) {
		return Streak{}, ErrStreakTime
	}
	return Streak{Checks: checks, Since: since, Last: last}, nil
}

// cut keeps the start of text for an error message.
func cut(text []byte) string {
	const keep = 64
	if len(text) > keep {
		return string(text[:keep]) + "…"
	}
	return string(text)
}

// StreakTextError reports text that is not a Streak's text form. Err is one
// of ErrStreakForm, ErrStreakChecks and ErrStreakTime, possibly wrapping
// the error of the time parser.
type StreakTextError struct {
	// Text is the text read, cut to its first 64 bytes.
	Text string
	// Err says what is wrong with it.
	Err error
}

// Error names the text and what is wrong with it.
func (e *StreakTextError) Error() string {
	return fmt.Sprintf("backoff: read streak %q: %v", e.Text, e.Err)
}

// Unwrap returns Err.
func (e *StreakTextError) Unwrap() error { return e.Err }
