package lockfile

import (
	"bytes"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/mcpctl/mcpctl/toolset"
)

// FuzzDecode: Decode never panics; every error is a located
// *toolset.InputError; a lockfile it reads writes back (Write) to one it
// reads to the same tools and facades.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"tools":[{"name":"a"}],"facades":{"a":{"rename":{"x":"y"},"defaults":{"n":1},"aliases":["b",{"name":"c","inject":{"m":"l"}}]}}}`))
	f.Add([]byte(`{"tools":[],"facades":{}}`))
	f.Add([]byte(`{"tools":[{"name":"a"}],"facades":{"a":{"coerce":{"/x/~1y":"integer"},"values":{"m":{"lo":"LO"}}}}}`))
	f.Add([]byte(`[{"name":"a"}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		lock, err := Decode("fuzz", data)
		if err != nil {
			var ie *toolset.InputError
			if !errors.As(err, &ie) {
				t.Fatalf("error %v (%T) is not an *InputError", err, err)
			}
			return
		}
		var buf bytes.Buffer
		if err := Write(&buf, lock.Set, lock.Facades); err != nil {
			return // a value JSON cannot hold (YAML read a number as ±Inf)
		}
		again, err := Decode("again", buf.Bytes())
		if err != nil {
			t.Fatalf("written lockfile does not read back: %v\n%s", err, buf.Bytes())
		}
		if again.Set.Fingerprint() != lock.Set.Fingerprint() {
			t.Fatalf("tools changed in the round trip")
		}
		if d := cmp.Diff(lock.Facades, again.Facades, cmpopts.EquateEmpty()); d != "" {
			t.Fatalf("facades mismatch (-want +got):\n%s", d)
		}
	})
}
