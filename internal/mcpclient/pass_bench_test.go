package mcpclient

import (
	"strings"
	"testing"
	"time"

	"github.com/mcpctl/mcpctl/canon"
)

// BenchmarkPassPlainResponse measures what reading a stdio server's
// response to a raw call costs (jsonLines.pass: the line's checks, then
// taking it off the connection for its call) against the floor of any
// strict reading, one canon.Parse of the same line, in the same run: a
// tools/call result of 1 MiB of text, as a server reading a file answers.
// Reported: pass/parse, the ratio of the two times (1.0: the line is read
// once). Before the plain response was taken ahead of the checks, every
// line was also scanned for its depth and skimmed for the go-sdk's
// decoder first.
func BenchmarkPassPlainResponse(b *testing.B) {
	benchPass(b, `"result":{"content":[{"type":"text","text":"%s"}]}`, func(r rawResponse) bool { return r.parsed != nil })
}

// BenchmarkPassErrorResponse is BenchmarkPassPlainResponse for an error
// response to a raw call, with 1 MiB of data: not plain, it is read by
// the line's checks and then by encoding/json (take); pass/parse is its
// cost against one canon.Parse of the line, measured in the same run.
func BenchmarkPassErrorResponse(b *testing.B) {
	benchPass(b, `"error":{"code":-32000,"message":"cannot read the file","data":"%s"}`, func(r rawResponse) bool { return r.err != nil })
}

// benchPass measures jsonLines.pass against canon.Parse for the response
// to a raw call whose member after the id is member, its %s 1 MiB of
// text; read tells whether the call got the response as it should.
func benchPass(b *testing.B, member string, read func(rawResponse) bool) {
	raw := NewRawCalls(0)
	text := strings.Repeat("a line of the file, with \\\"quotes\\\" and \\u00e9\\n", 1<<20/52)
	line := []byte(`{"jsonrpc":"2.0","id":"` + raw.prefix + `1",` + strings.Replace(member, "%s", text, 1) + `}`)
	j := &jsonLines{raw: raw}
	var pass, parse time.Duration
	b.SetBytes(int64(len(line)))
	for i := 0; i < b.N; i++ {
		start := time.Now()
		if _, err := canon.Parse(line); err != nil {
			b.Fatal(err)
		}
		parse += time.Since(start)
		ch := make(chan rawResponse, 1)
		raw.mu.Lock()
		raw.pending[raw.prefix+"1"] = ch
		raw.mu.Unlock()
		start = time.Now()
		if rest := j.pass(line); rest != nil {
			b.Fatalf("the go-sdk would read %d bytes of the response", len(rest))
		}
		pass += time.Since(start)
		if !read(<-ch) {
			b.Fatal("the call did not get the response as it came")
		}
	}
	b.ReportMetric(float64(pass)/float64(parse), "pass/parse")
}
