package canon_test

import (
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/mcpctl/mcpctl/canon"
)

// TestAdversarialFast2ParseKeptValueSurvivesOtherParses: Parse keeps its
// member and item stacks in a pool between parses. A Value it returned
// (a small text, parsed without interning, and one over 1 KiB, parsed
// with it) must not share those stacks: parsing many other texts
// afterwards, concurrently, valid ones and ones that fail midway with
// entries left on the stacks, leaves it exactly as it was (a deep clone
// and its canonical bytes).
func TestAdversarialFast2ParseKeptValueSurvivesOtherParses(t *testing.T) {
	t.Parallel()
	big, _ := manyKeys(200, `"deep":[[1,{"a":[true,null,"s"]}],{"b":{"c":[2,3]}}]`)
	for _, text := range []string{`{"k":[true,{"m":null,"n":[1,"x",{"o":{}}]}],"z":"\u00e9"}`, big} {
		a, err := canon.Parse([]byte(text))
		if err != nil {
			t.Fatal(err)
		}
		want, wantBytes := a.Clone(), string(canon.AppendOrdered(nil, &a))
		parseOthers(t)
		if diff := cmp.Diff(want, a, cmpopts.IgnoreUnexported(canon.Value{})); diff != "" {
			t.Errorf("kept Value changed by later parses (-want +got):\n%s", diff)
		}
		if got := string(canon.AppendOrdered(nil, &a)); got != wantBytes {
			t.Errorf("kept Value's canonical form changed:\n got %s\nwant %s", got, wantBytes)
		}
	}
}

// parseOthers parses valid and failing texts on 8 goroutines and checks
// each valid result's canonical form.
func parseOthers(t *testing.T) {
	t.Helper()
	bigBad, _ := manyKeys(300, `"x":[[1,2],{"y":[3,{"z":`)
	bad := []string{`{"a":{"b":[1,2,{"c":`, `[[1,2],[3,{"x":1,"x":2}]]`, `{"a":[1,2,3],"b":}`, `[1,[2,[3,[4,"\ud800"]]]]`, bigBad}
	good := []string{`{"p":[9,8,{"q":"r"}],"s":{"t":[]}}`, `[[["u"]],{"v":[false]}]`}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 500 {
				_, _ = canon.Parse([]byte(bad[(g+i)%len(bad)]))
				text := good[(g+i)%len(good)]
				v, err := canon.Parse([]byte(text))
				if err != nil {
					t.Error(err)
					return
				}
				if got := string(canon.AppendOrdered(nil, &v)); got != text {
					t.Errorf("Parse(%s) then AppendOrdered = %s", text, got)
					return
				}
			}
		}()
	}
	wg.Wait()
}
