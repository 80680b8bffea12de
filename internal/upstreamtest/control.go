package upstreamtest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"
)

// ErrCrash is returned by FollowControl when the control file asks for a
// crash: the stdio program exits on it.
var ErrCrash = errors.New("upstreamtest: crash requested")

// AppendChange appends c as one JSON line to the control file at path
// (created when absent), for a running cmd/mutableupstream to apply.
func AppendChange(path string, c Change) error {
	line, err := json.Marshal(c)
	if err != nil {
		return fmt.Errorf("append change: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("append change: %w", err)
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		f.Close()
		return fmt.Errorf("append change: %w", err)
	}
	return f.Close()
}

// FollowControl applies the control file at path to u: first the changes
// already in it except crashes (so a restarted program comes back with the
// tool list its predecessor had), then, polling every interval, each line
// appended later. It returns ErrCrash when an appended line asks for a crash,
// ctx's error when ctx ends. A line that is not a valid change is logged and
// skipped. A missing file is an empty one.
func (u *Upstream) FollowControl(ctx context.Context, path string, interval time.Duration, log *slog.Logger) error {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	offset, err := u.applyFrom(path, 0, false, log)
	if err != nil {
		return err
	}
	return u.followFrom(ctx, path, offset, interval, log)
}

// followFrom applies the lines appended to path after offset, polling every
// interval, until a crash line (ErrCrash) or the end of ctx.
func (u *Upstream) followFrom(ctx context.Context, path string, offset int64, interval time.Duration, log *slog.Logger) error {
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
		var err error
		if offset, err = u.applyFrom(path, offset, true, log); err != nil {
			return err
		}
	}
}

// applyFrom applies the complete lines of path after offset and returns the
// offset after the last complete line. Crashes are skipped unless live.
func (u *Upstream) applyFrom(path string, offset int64, live bool, log *slog.Logger) (int64, error) {
	data, err := readFrom(path, offset)
	if err != nil {
		return offset, err
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Bytes()
		offset += int64(len(line)) + 1
		var c Change
		if err := json.Unmarshal(line, &c); err != nil {
			log.Warn("control line skipped", "file", path, "offset", offset-int64(len(line))-1, "err", err)
			continue
		}
		if c.Op == OpCrash {
			if live {
				return offset, ErrCrash
			}
			continue
		}
		if err := u.Apply(c); err != nil {
			log.Warn("change refused", "file", path, "err", err)
		}
	}
	return offset, nil
}

// readFrom returns the complete lines of path after offset.
func readFrom(path string, offset int64) ([]byte, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("control file: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.NewSectionReader(f, offset, 1<<40))
	if err != nil {
		return nil, fmt.Errorf("control file: %w", err)
	}
	return data[:bytes.LastIndexByte(data, '\n')+1], nil
}
