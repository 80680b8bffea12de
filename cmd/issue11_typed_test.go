package cmd

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
)

// TestIssue11CobraErrorsTyped: cobra's own errors (an unknown command, an
// unknown or malformed flag, a wrong number of arguments) reach exitCode as
// ErrUsage by errors.Is, not by matching their text. The reproduction:
// `mcpctl bogus` came back from cobra as a plain error that only a prefix
// match on "unknown command" turned into exit code 2.
func TestIssue11CobraErrorsTyped(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"bogus"},
		{"canon", "--bogus"},
		{"canon", "-Z"},
		{"diff", "only-one.json"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			s := &Streams{In: strings.NewReader(""), Out: new(bytes.Buffer), ErrOut: new(bytes.Buffer)}
			err := execute(context.Background(), newRootCmd(s), args)
			if !errors.Is(err, ErrUsage) {
				t.Fatalf("error %v (%T) is not ErrUsage", err, err)
			}
		})
	}
}
