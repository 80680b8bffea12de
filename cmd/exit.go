package cmd

import (
	"errors"
	"fmt"

	"github.com/mcpctl/mcpctl/canon"
	"github.com/mcpctl/mcpctl/toolset"
)

// Exit codes, documented by `mcpctl help exit-codes`.
const (
	ExitOK       = 0 // nothing at or above --fail-on
	ExitFindings = 1 // findings at or above --fail-on (or lint errors, a --check difference)
	ExitInput    = 2 // usage error, or unreadable/invalid input
	ExitInternal = 3 // an internal error: a bug in mcpctl
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
	case errors.Is(err, ErrFindings):
		return ExitFindings
	case errors.Is(err, ErrUsage), errors.Is(err, toolset.ErrInput), errors.Is(err, canon.ErrSyntax):
		return ExitInput
	}
	return ExitInternal
}

const exitCodesHelp = `mcpctl exits with one of these codes:

  0  success: nothing at or above --fail-on (default: breaking); lint found
     no error; canon --check found the input canonical
  1  findings: diff found changes at or above --fail-on, replay found
     rejected or unknown calls, lint found errors, canon --check found a
     difference
  2  bad input or usage: an unknown flag or command, a source that cannot
     be read, is not JSON, has a duplicate key, an unknown shape or two tools
     with one name (the message names the file, the byte offset, the tool
     and the JSON Pointer)
  3  internal error: a bug in mcpctl; please report it with the command line

--fail-on never makes diff exit 0 whatever it finds.
`
