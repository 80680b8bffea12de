package serve

import (
	"io"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// hooks are the test seams of a Server: functions called at points of the
// pipeline a test observes or slows down, and the upstream connections a
// test fakes. A server built by New has none; only tests set them, through
// newTestServer (export_test.go). TestHooksOnlyFromTests keeps it so.
type hooks struct {
	// beforePublish runs after a candidate is built and before the
	// publisher lock is taken, with the candidate's build number.
	beforePublish func(seq uint64)
	// beforeCall runs as a tools/call is received, with the tool name.
	beforeCall func(tool string)
	// onReload receives every reload result after it is recorded.
	onReload func(ReloadResult)
	// onRelease is called when a generation's last reference is dropped
	// and its handlers are closed.
	onRelease func(*Generation)
	// watchReady is called once Watch has set up its watches.
	watchReady func()
	// upstreamTransport makes the transports of the upstream named name
	// (nil: as its config says).
	upstreamTransport func(name string) func() mcp.Transport
	// upstreamPipe makes the line-delimited streams of the upstream named
	// name, spoken as stdio (nil: as its config says).
	upstreamPipe func(name string) func() (io.ReadWriteCloser, error)
	// upstreamStarted runs when a build has started the connection of
	// the upstream named name, before it keeps it.
	upstreamStarted func(name string)
	// upstreamProtocol is upstream.Options.ProtocolVersion.
	upstreamProtocol string
	// sessionEnded runs when the server (its notifier, the HTTP fast
	// path) notices that a session it recorded has ended, before it
	// forgets the session.
	sessionEnded func()
	// noFastCalls sends every tools/call through the go-sdk.
	noFastCalls bool
	// lineWriteTimeout replaces a ConnectStream session's write timeout
	// (streamDrainTimeout) when not zero.
	lineWriteTimeout time.Duration
	// inputEnded runs when a line-delimited session's input ends, with
	// the number of requests read whose answer is not yet written
	// (drainConn.answered), before it waits for them.
	inputEnded func(unanswered int)
}
