package backoff_test

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pdnskit/reconcile/backoff"
)

func TestStreakText(t *testing.T) {
	paris := time.FixedZone("CET", 3600)
	tests := []struct {
		name string
		in   backoff.Streak
		text string
		// back is what the text reads back as, when not in.
		back *backoff.Streak
	}{
		{"one check", backoff.Streak{Checks: 1, Since: epoch, Last: epoch},
			"1 check from 2025-01-01T00:00:00Z to 2025-01-01T00:00:00Z", nil},
		{"two checks", backoff.Streak{Checks: 2, Since: epoch, Last: epoch.Add(time.Minute)},
			"2 checks from 2025-01-01T00:00:00Z to 2025-01-01T00:01:00Z", nil},
		{"nanoseconds kept", backoff.Streak{Checks: 3, Since: epoch.Add(time.Nanosecond), Last: epoch.Add(2*time.Minute + 1500*time.Millisecond)},
			"3 checks from 2025-01-01T00:00:00.000000001Z to 2025-01-01T00:02:01.5Z", nil},
		{"written in UTC", backoff.Streak{Checks: 2, Since: epoch.In(paris), Last: epoch.Add(time.Minute).In(paris)},
			"2 checks from 2025-01-01T00:00:00Z to 2025-01-01T00:01:00Z",
			&backoff.Streak{Checks: 2, Since: epoch, Last: epoch.Add(time.Minute)}},
		{"many checks", backoff.Streak{Checks: math.MaxInt, Since: epoch, Last: epoch},
			"9223372036854775807 checks from 2025-01-01T00:00:00Z to 2025-01-01T00:00:00Z", nil},
		{"no streak is empty", backoff.Streak{}, "", nil},
		{"no checks is empty", backoff.Streak{Checks: 0, Since: epoch, Last: epoch}, "", &backoff.Streak{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			text, err := tc.in.MarshalText()
			require.NoError(t, err)
			assert.Equal(t, tc.text, string(text))

			var got backoff.Streak
			require.NoError(t, got.UnmarshalText(text))
			want := tc.in
			if tc.back != nil {
				want = *tc.back
			}
			assert.Equal(t, want.Checks, got.Checks)
			assert.True(t, want.Since.Equal(got.Since), "since %s, want %s", got.Since, want.Since)
			assert.True(t, want.Last.Equal(got.Last), "last %s, want %s", got.Last, want.Last)
		})
	}
}

func TestStreakTextInput(t *testing.T) {
	tests := []struct {
		name string
		text string
		err  error // nil: reads
		want backoff.Streak
	}{
		{"as written", "2 checks from 2025-01-01T00:00:00Z to 2025-01-01T00:01:00Z", nil,
			backoff.Streak{Checks: 2, Since: epoch, Last: epoch.Add(time.Minute)}},
		{"another offset", "1 check from 2025-01-01T01:00:00+01:00 to 2025-01-01T01:00:00+01:00", nil,
			backoff.Streak{Checks: 1, Since: epoch, Last: epoch}},
		{"spaces around", "  2 checks  from 2025-01-01T00:00:00Z to 2025-01-01T00:01:00Z\n", nil,
			backoff.Streak{Checks: 2, Since: epoch, Last: epoch.Add(time.Minute)}},
		{"empty", "", nil, backoff.Streak{}},
		{"blank", " \t\n", nil, backoff.Streak{}},

		{"words", "yesterday", backoff.ErrStreakForm, backoff.Streak{}},
		{"old two-value form", "2025-01-01T00:00:00Z", backoff.ErrStreakForm, backoff.Streak{}},
		{"missing last", "2 checks from 2025-01-01T00:00:00Z", backoff.ErrStreakForm, backoff.Streak{}},
		{"extra field", "2 checks from 2025-01-01T00:00:00Z to 2025-01-01T00:01:00Z ok", backoff.ErrStreakForm, backoff.Streak{}},
		{"wrong word", "2 tries from 2025-01-01T00:00:00Z to 2025-01-01T00:01:00Z", backoff.ErrStreakForm, backoff.Streak{}},
		{"too long", strings.Repeat("2 ", 200), backoff.ErrStreakForm, backoff.Streak{}},
		{"zero checks", "0 checks from 2025-01-01T00:00:00Z to 2025-01-01T00:01:00Z", backoff.ErrStreakChecks, backoff.Streak{}},
		{"negative checks", "-2 checks from 2025-01-01T00:00:00Z to 2025-01-01T00:01:00Z", backoff.ErrStreakChecks, backoff.Streak{}},
		{"signed checks", "+2 checks from 2025-01-01T00:00:00Z to 2025-01-01T00:01:00Z", backoff.ErrStreakChecks, backoff.Streak{}},
		{"checks overflow", "99999999999999999999 checks from 2025-01-01T00:00:00Z to 2025-01-01T00:01:00Z", backoff.ErrStreakChecks, backoff.Streak{}},
		{"many", "many checks from 2025-01-01T00:00:00Z to 2025-01-01T00:01:00Z", backoff.ErrStreakChecks, backoff.Streak{}},
		{"bad since", "2 checks from 2025-13-01T00:00:00Z to 2025-01-01T00:01:00Z", backoff.ErrStreakTime, backoff.Streak{}},
		{"bad last", "2 checks from 2025-01-01T00:00:00Z to soon", backoff.ErrStreakTime, backoff.Streak{}},
		{"no zone", "2 checks from 2025-01-01T00:00:00 to 2025-01-01T00:01:00", backoff.ErrStreakTime, backoff.Streak{}},
		{"last before since", "2 checks from 2025-01-01T00:01:00Z to 2025-01-01T00:00:00Z", backoff.ErrStreakTime, backoff.Streak{}},
		{"before year 0 in UTC", "1 check from 0000-01-01T00:00:00+01:00 to 0000-01-01T00:00:00+01:00", backoff.ErrStreakTime, backoff.Streak{}},
		{"after year 9999 in UTC", "1 check from 9999-12-31T23:59:59-01:00 to 9999-12-31T23:59:59-01:00", backoff.ErrStreakTime, backoff.Streak{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			kept := backoff.Streak{Checks: 7, Since: epoch, Last: epoch}
			got := kept
			err := got.UnmarshalText([]byte(tc.text))
			if tc.err == nil {
				require.NoError(t, err)
				assert.Equal(t, tc.want.Checks, got.Checks)
				assert.True(t, tc.want.Since.Equal(got.Since))
				assert.True(t, tc.want.Last.Equal(got.Last))
				return
			}
			var textErr *backoff.StreakTextError
			require.ErrorAs(t, err, &textErr)
			assert.ErrorIs(t, err, tc.err)
			assert.LessOrEqual(t, len(textErr.Text), 64+len("…"))
			assert.Contains(t, err.Error(), "backoff: read streak")
			assert.Equal(t, kept, got, "a failed read leaves the Streak as it was")
		})
	}
}

func TestStreakMarshalOutOfRange(t *testing.T) {
	for _, tm := range []time.Time{time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)} {
		_, err := backoff.Streak{Checks: 1, Since: tm, Last: tm}.MarshalText()
		assert.Error(t, err, "%s has no RFC 3339 form", tm)
	}
}

func TestStreakString(t *testing.T) {
	assert.Equal(t, "no streak", backoff.Streak{}.String())
	assert.Equal(t, "1 check from 2025-01-01T00:00:00Z to 2025-01-01T00:00:00Z",
		backoff.Streak{Checks: 1, Since: epoch, Last: epoch}.String())
	assert.True(t, backoff.Streak{}.IsZero())
	assert.False(t, backoff.Streak{Checks: 1}.IsZero())
}

// FuzzStreakUnmarshalText holds UnmarshalText to its contract on any
// input: no panic; either a *StreakTextError wrapping one of the three
// causes, or a streak whose text form reads back as the same streak.
func FuzzStreakUnmarshalText(f *testing.F) {
	for _, seed := range []string{
		"", "2 checks from 2025-01-01T00:00:00Z to 2025-01-01T00:01:00Z",
		"1 check from 2025-01-01T01:00:00+01:00 to 2025-01-01T01:00:00.5+01:00",
		"0 checks from x to y", "2 checks from 2025-01-01T00:01:00Z to 2025-01-01T00:00:00Z", "\xff",
		"1 check from 0000-01-01T00:00:00+01:00 to 0000-01-01T00:00:00+01:00",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		var s backoff.Streak
		err := s.UnmarshalText(text)
		if err != nil {
			var textErr *backoff.StreakTextError
			if !errors.As(err, &textErr) {
				t.Fatalf("%q: error %T %v, want *StreakTextError", text, err, err)
			}
			if !errors.Is(err, backoff.ErrStreakForm) && !errors.Is(err, backoff.ErrStreakChecks) && !errors.Is(err, backoff.ErrStreakTime) {
				t.Fatalf("%q: error %v wraps no known cause", text, err)
			}
			return
		}
		if s.IsZero() {
			if strings.TrimSpace(string(text)) != "" {
				t.Fatalf("%q reads as no streak", text)
			}
			return
		}
		if s.Last.Before(s.Since) {
			t.Fatalf("%q: last %s before since %s", text, s.Last, s.Since)
		}
		again, err := s.MarshalText()
		if err != nil {
			t.Fatalf("%q: MarshalText: %v", text, err)
		}
		var back backoff.Streak
		if err := back.UnmarshalText(again); err != nil {
			t.Fatalf("%q: its text form %q does not read back: %v", text, again, err)
		}
		if back.Checks != s.Checks || !back.Since.Equal(s.Since) || !back.Last.Equal(s.Last) {
			t.Fatalf("%q: read back as %v, want %v", text, back, s)
		}
	})
}
