package cmd

import (
	"io"
	"os"

	"github.com/mattn/go-isatty"
)

// Streams is the one place output goes: Out for data, ErrOut for
// diagnostics, In for input. Styling is allowed only when Out is a terminal
// and NO_COLOR is unset or empty (no-color.org).
type Streams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
}

// IsTerminal reports whether w is a character device (a TTY).
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

// ColorOut reports whether styled output may be written to Out.
func (s *Streams) ColorOut() bool {
	if os.Getenv("NO_COLOR") != "" { // no-color.org: set and not empty
		return false
	}
	return IsTerminal(s.Out)
}

// InIsTerminal reports whether In is a terminal (for interactive prompts).
func (s *Streams) InIsTerminal() bool {
	f, ok := s.In.(*os.File)
	return ok && isatty.IsTerminal(f.Fd())
}
