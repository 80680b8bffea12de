package upstreamtest

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Exit codes of Main.
const (
	ExitOK      = 0 // stdin closed
	ExitCrash   = 3 // the control file asked for a crash
	ExitBadArgs = 2
)

// Main runs the mutable upstream over stdio (newline-delimited JSON-RPC on
// stdin/stdout, MCP 2025-11-25, Basic / Transports / stdio), following the
// control file given by -control. It is the whole of cmd/mutableupstream.
func Main(args []string, stdin io.ReadCloser, stdout io.WriteCloser, stderr io.Writer) int {
	fs := flag.NewFlagSet("mutableupstream", flag.ContinueOnError)
	fs.SetOutput(stderr)
	control := fs.String("control", "", "control file of JSON change lines (see upstreamtest.Change)")
	name := fs.String("name", "", "server name in initialize")
	version := fs.String("version", "", "server version in initialize")
	poll := fs.Duration("poll", 20*time.Millisecond, "how often the control file is read")
	startDelay := fs.Duration("start-delay", 0, "how long to wait before serving (a server slow to start)")
	if err := fs.Parse(args); err != nil {
		return ExitBadArgs
	}
	time.Sleep(*startDelay)
	log := slog.New(slog.NewTextHandler(stderr, nil))
	u := New(&Options{Name: *name, Version: *version}, DefaultTools()...)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	crashed := make(chan error, 1)
	if *control != "" {
		// The changes already in the file are applied before serving, so a
		// restarted program answers its first tools/list with them.
		offset, err := u.applyFrom(*control, 0, false, log)
		if err != nil {
			log.Error("control file", "err", err)
			return ExitCrash
		}
		go func() { crashed <- u.followFrom(ctx, *control, offset, *poll, log) }()
	}
	served := make(chan error, 1)
	go func() { served <- u.Server().Run(ctx, &mcp.IOTransport{Reader: stdin, Writer: stdout}) }()
	select {
	case err := <-crashed:
		if errors.Is(err, ErrCrash) {
			fmt.Fprintln(stderr, "mutableupstream: crash requested")
			return ExitCrash
		}
		log.Error("control file", "err", err)
		return ExitCrash
	case <-served:
		return ExitOK
	}
}
