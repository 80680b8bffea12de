package cmd

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"

	"github.com/mcpctl/mcpctl/canon"
	"github.com/mcpctl/mcpctl/serve"
	"github.com/mcpctl/mcpctl/toolset"
)

// Exit codes, documented by `mcpctl help exit-codes`.
const (
	ExitOK          = 0 // nothing at or above --fail-on
	ExitFindings    = 1 // findings at or above --fail-on (or lint errors, a --check difference)
	ExitInput       = 2 // usage error, or unreadable/invalid input
	ExitInternal    = 3 // an internal error: a bug in mcpctl
	ExitEnvironment = 4 // the system refused: a port in use, a missing folder, no permission, a full disk
	ExitGateRefused = 5 // serve: the gate refused the config at start and there was nothing accepted to serve instead
)

// ErrFindings is returned by a command whose findings reach its --fail-on
// threshold. It is not a failure of the program; it maps to exit code 1.
var ErrFindings = errors.New("findings at or above the failure threshold")

// ErrUsage wraps command-line usage errors (exit code 2).
var ErrUsage = errors.New("usage")

// usageErrorf returns a usage error.
func usageErrorf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrUsage, fmt.Sprintf(format, args...))
}

// exitCode maps an error returned by a command to the process exit code.
func exitCode(err error) int {
	switch {
	case err == nil:
		return ExitOK
	case errors.Is(err, ErrFindings), errors.Is(err, ErrDecision):
		return ExitFindings
	case errors.Is(err, serve.ErrRefusedAtStart):
		return ExitGateRefused
	case errors.Is(err, ErrUsage), errors.Is(err, toolset.ErrInput), errors.Is(err, canon.ErrSyntax):
		return ExitInput
	case isEnvironment(err):
		return ExitEnvironment
	}
	return ExitInternal
}

// isEnvironment reports whether err is the operating system refusing an
// operation (a file, a folder, a socket, a system call), as opposed to a
// bug: those errors come typed from os and net.
func isEnvironment(err error) bool {
	var (
		pe *fs.PathError
		le *os.LinkError
		se *os.SyscallError
		oe *net.OpError
	)
	return errors.As(err, &pe) || errors.As(err, &le) || errors.As(err, &se) || errors.As(err, &oe)
}

const exitCodesHelp = `mcpctl exits with one of these codes:

  0  success: nothing at or above --fail-on (default: breaking); lint found
     no error; canon --check found the input canonical
  1  findings: diff found changes at or above --fail-on, replay found
     rejected or unknown calls, lint found errors, canon --check found a
     difference; approve or reject was refused by the server (not pending;
     stale: the config went on to a newer candidate, or stopped building,
     since it was pending; or the config on disk no longer builds that
     fingerprint)
  2  bad input or usage: an unknown flag or command, a source that cannot
     be read, is not JSON, has a duplicate key, an unknown shape or two tools
     with one name (the message names the file, the byte offset, the tool
     and the JSON Pointer)
  3  internal error: a bug in mcpctl; please report it with the command line
  4  environment: the system refused an operation (an address already in
     use, an -o path in a folder that does not exist, no permission, a full
     disk); the message names the path or address
  5  gate refused at start: serve's first config needs permission against
     gate.baseline or the last contract published in --state, and there is
     no accepted config to serve instead; the findings are printed and
     nothing listens (approve it, fix it, or --allow-breaking)

--fail-on never makes diff exit 0 whatever it finds.
`
