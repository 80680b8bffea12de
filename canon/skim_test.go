package canon

import (
	"math/rand"
	"strings"
	"testing"
)

func nested(levels int, inner string) string {
	return strings.Repeat(`{"a":[`, levels/2) + strings.Repeat("[", levels%2) + inner + strings.Repeat("]", levels%2) + strings.Repeat("]}", levels/2)
}

func TestDeeperThan(t *testing.T) {
	for _, c := range []struct {
		data string
		max  int
		want int
	}{
		{`1`, 0, -1},
		{`[]`, 0, 0},
		{`[]`, 1, -1},
		{`[[]]`, 1, 1},
		{` {"a":[{}]}`, 2, 7},
		{`{"a":"[[[[{{{{"}`, 1, -1},
		{`{"a":"\"[[[","b":[]}`, 1, 17},
		{`["\\",[]]`, 1, 6},
		{`"unclosed [[[`, 0, -1},
		{`]]][[`, 1, 4},
	} {
		if got := DeeperThan([]byte(c.data), c.max); got != c.want {
			t.Errorf("DeeperThan(%s, %d) = %d, want %d", c.data, c.max, got, c.want)
		}
	}
}

// TestDeeperThanAgreesWithParse: on valid JSON, DeeperThan(MaxDepth)
// finds a container exactly when Parse refuses the text for its nesting,
// at the offset Parse names.
func TestDeeperThanAgreesWithParse(t *testing.T) {
	for _, levels := range []int{1, 2, 999, 1000, 1001, 1002, 5000} {
		for _, inner := range []string{`1`, `"]]]}}}"`, `{"k":"\"["}`} {
			data := []byte(nested(levels, inner))
			_, err := Parse(data)
			off := DeeperThan(data, MaxDepth)
			se, _ := err.(*SyntaxError)
			switch {
			case err != nil && se == nil:
				t.Fatalf("levels %d: %v", levels, err)
			case (off >= 0) != (err != nil):
				t.Errorf("levels %d inner %s: DeeperThan %d, Parse %v", levels, inner, off, err)
			case err != nil && se.Offset != off:
				t.Errorf("levels %d: DeeperThan at %d, Parse at %d", levels, off, se.Offset)
			}
		}
	}
}

func TestSkim(t *testing.T) {
	deep := nested(5000, `"x"`)
	msg := `{"result":{"structuredContent":` + deep + `,"t":"]}"},"jsonrpc":"2.0","id":"r-1"}`
	v, err := Skim([]byte(msg), 1)
	if err != nil {
		t.Fatal(err)
	}
	if id := v.Get("id"); id == nil || id.Str != "r-1" || msg[id.Start:id.End] != `"r-1"` {
		t.Fatalf("id = %+v", id)
	}
	res := v.Get("result")
	if res == nil || res.Kind != Object || res.Members != nil || res.Start != 10 || res.End != len(msg)-28 {
		t.Fatalf("result: kind %v, %d members, bytes [%d, %d), want an empty object at [10, %d)", res.Kind, len(res.Members), res.Start, res.End, len(msg)-28)
	}
	for _, bad := range []string{`{"id":1,"result":{"a":[}`, `{"id":1,"id":2}`, `{"id":1,"result":{}} x`, `{"result":"\"}`} {
		if _, err := Skim([]byte(bad), 1); err == nil {
			t.Errorf("Skim(%s): no error", bad)
		}
	}
	// Below the skimmed depth Skim is Parse.
	shallow := `{"id":1,"params":{"a":[1,"b"]}}`
	a, _ := Skim([]byte(shallow), 3)
	b, _ := Parse([]byte(shallow))
	if string(AppendJCS(nil, &a)) != string(AppendJCS(nil, &b)) {
		t.Errorf("Skim at depth 3 = %s, Parse = %s", AppendJCS(nil, &a), AppendJCS(nil, &b))
	}
}

// TestDeeperThanAgreesWithTheGoSDK: DeeperThan guards the go-sdk's
// decoder, which refuses a message by its own rule (it counts '{' and '['
// outside strings, a backslash escaping the byte after it, and fails past
// 1000 levels); a text one of them refuses and the other passes is either
// rewritten needlessly or ends a connection. On random texts of brackets,
// quotes and backslashes, balanced or not, both agree.
func TestDeeperThanAgreesWithTheGoSDK(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewSource(1))
	alphabet := []byte(`[]{}"\a`)
	for range 200000 {
		b := make([]byte, r.Intn(14))
		for j := range b {
			b[j] = alphabet[r.Intn(len(alphabet))]
		}
		levels := r.Intn(4)
		if got, want := DeeperThan(b, levels) >= 0, goSDKTooDeep(b, levels); got != want {
			t.Fatalf("%q, %d levels: DeeperThan %d, the go-sdk refuses it: %v", b, levels, DeeperThan(b, levels), want)
		}
	}
}

// goSDKTooDeep is the go-sdk's rule (internal/json, checkMaxDepth of
// github.com/modelcontextprotocol/go-sdk v1.8.0), restated byte by byte.
func goSDKTooDeep(data []byte, levels int) bool {
	depth, inString, escaped := 0, false, false
	for _, c := range data {
		switch {
		case inString && escaped:
			escaped = false
		case inString:
			escaped, inString = c == '\\', c != '"'
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			if depth++; depth > levels {
				return true
			}
		case c == '}' || c == ']':
			depth = max(depth-1, 0)
		}
	}
	return false
}
