package bench

import "testing"

func TestNewCase(t *testing.T) {
	for _, tc := range []struct {
		s                         Scenario
		start, desired, changes   int
		objects, deletes, changed int
	}{
		{Initial, 0, 1000, 1000, 1000, 0, 1000},
		{Changed, 1000, 1000, 10, 10, 0, 10},
		{NoOp, 1000, 1000, 0, 1000, 0, 0},
		{Deleted, 1000, 900, 100, 100, 100, 0},
	} {
		t.Run(tc.s.String(), func(t *testing.T) {
			c, err := NewCase(tc.s, 1000)
			if err != nil {
				t.Fatal(err)
			}
			deletes, writes := 0, 0
			types := map[string]bool{}
			for _, ch := range c.Changes {
				if ch.Delete {
					deletes++
				} else {
					writes++
				}
				types[ch.Spec.Type] = true
			}
			if len(c.Start) != tc.start || len(c.Desired) != tc.desired || len(c.Changes) != tc.changes ||
				len(c.Objects) != tc.objects || deletes != tc.deletes || writes != tc.changed {
				t.Errorf("start %d, desired %d, changes %d (%d deletes, %d writes), objects %d",
					len(c.Start), len(c.Desired), len(c.Changes), deletes, writes, len(c.Objects))
			}
			if len(c.Changes) > 0 && len(types) != 5 {
				t.Errorf("changes touch types %v, want all five", types)
			}
		})
	}
	if _, err := NewCase(0, 10); err == nil {
		t.Error("NewCase(0) succeeded")
	}
}
