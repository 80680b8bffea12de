package cmd

import (
	"io"
	"os"
	"strconv"

	"github.com/charmbracelet/x/term"
	"github.com/mattn/go-isatty"
)

// Streams is the one place output goes: Out for data, ErrOut for
// diagnostics, In for input. Whether Out is styled is decided by ColorOut.
type Streams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
	// Color is the --color flag: "auto" (or ""), "always" or "never".
	Color string
	// inTerminal, when set (tests), replaces the check that In is a
	// terminal.
	inTerminal func() bool
}

// IsTerminal reports whether w is a character device (a TTY).
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

// ColorOut reports whether styled output may be written to Out. In order:
// --color always or never decides; NO_COLOR set and not empty turns colour
// off (no-color.org); FORCE_COLOR or CLICOLOR_FORCE set to anything but ""
// or "0" turns it on (force-color.org, bixense.com/clicolors); otherwise
// colour is on when Out is a terminal.
func (s *Streams) ColorOut() bool {
	switch s.Color {
	case "always":
		return true
	case "never":
		return false
	}
	if os.Getenv("NO_COLOR") != "" {
		return false
	}
	for _, k := range []string{"FORCE_COLOR", "CLICOLOR_FORCE"} {
		if v := os.Getenv(k); v != "" && v != "0" {
			return true
		}
	}
	return IsTerminal(s.Out)
}

// Width is the width of the terminal Out writes to, in columns: $COLUMNS
// when it is a positive number, else the terminal's size; 0 when Out is not
// a terminal (renderers then use their fixed defaults).
func (s *Streams) Width() int {
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 0 {
		return n
	}
	f, ok := s.Out.(*os.File)
	if !ok || !IsTerminal(f) {
		return 0
	}
	w, _, err := term.GetSize(f.Fd())
	if err != nil {
		return 0
	}
	return w
}

// InIsTerminal reports whether In is a terminal (for interactive prompts).
func (s *Streams) InIsTerminal() bool {
	if s.inTerminal != nil {
		return s.inTerminal()
	}
	f, ok := s.In.(*os.File)
	return ok && isatty.IsTerminal(f.Fd())
}
