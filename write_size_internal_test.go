package reconcile

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/joeig/go-powerdns/v3"
	"github.com/stretchr/testify/require"
)

// TestPatchEntrySize holds the computed size of a PATCH entry equal to what
// encoding/json (and so go-powerdns) writes, for awkward contents too.
func TestPatchEntrySize(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", "Z", "0", ".", `"`, `\`, "<", ">", "&", "\n", "\t", "\x01", "\x7f", "é", "ü", "\u2028", "\xff", " ", "\b", "\f"}
	randomString := func() string {
		var b strings.Builder
		for range rnd.IntN(40) {
			b.WriteString(alphabet[rnd.IntN(len(alphabet))])
		}
		return b.String()
	}
	for i := range 2000 {
		rr := powerdns.RRset{
			Name:       powerdns.String(randomString()),
			Type:       powerdns.RRTypePtr(powerdns.RRType(randomString())),
			ChangeType: powerdns.ChangeTypePtr(powerdns.ChangeTypeReplace),
		}
		if i%3 != 0 {
			rr.TTL = powerdns.Uint32(rnd.Uint32())
			for range rnd.IntN(4) {
				rr.Records = append(rr.Records, powerdns.Record{Content: powerdns.String(randomString()), Disabled: powerdns.Bool(rnd.IntN(2) == 0)})
			}
			for range rnd.IntN(3) {
				rr.Comments = append(rr.Comments, powerdns.Comment{Content: powerdns.String(randomString()), Account: powerdns.String(randomString())})
			}
		}
		if i%7 == 0 {
			rr.Records = []powerdns.Record{}
		}
		b, err := json.Marshal(rr)
		require.NoError(t, err)
		require.Equal(t, len(b), patchEntrySize(rr), "%s", b)
	}
}
