package state

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"

	"github.com/mcpctl/mcpctl/canon"
	"github.com/mcpctl/mcpctl/internal/durable"
)

// readJSON decodes the state file rel into v; ok is false when it does not
// exist. Bytes that do not decode are a *CorruptError with the offset,
// line and column.
func (s *State) readJSON(rel string, v any) (ok bool, err error) {
	data, err := os.ReadFile(s.path(rel))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return false, corrupt(s.path(rel), data, jsonOffset(err), err)
	}
	return true, nil
}

// writeJSON replaces the state file rel with v's JSON (compact, so raw
// members such as witnesses keep their bytes), atomically and durably.
func (s *State) writeJSON(rel string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return durable.WriteFile(s.path(rel), append(data, '\n'), 0o600)
}

// jsonOffset returns the byte offset encoding/json reports (a syntax
// error: the offending byte; a type error: just after the offending
// value), -1 when none.
func jsonOffset(err error) int64 {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return se.Offset - 1 // the offending byte; Offset counts it
	case errors.As(err, &te):
		return te.Offset
	}
	return -1
}

func corrupt(file string, data []byte, off int64, err error) *CorruptError {
	e := &CorruptError{File: file, Offset: off, Msg: err.Error(), Err: err}
	if off >= 0 {
		e.Line, e.Col = canon.LineCol(data, int(off))
	}
	return e
}
