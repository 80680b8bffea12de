package mcpclient

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"sync/atomic"
	"testing"
	"time"
)

// slowClose is one end of a net.Pipe whose Close waits for release, as
// closing a stdio server's stdin waits for the server to exit (up to
// twice the terminate delay, then a kill) when a hung server ignores the
// end of its input.
type slowClose struct {
	net.Conn
	closing chan struct{} // closed when Close is called
	release chan struct{}
}

func (c *slowClose) Close() error {
	select {
	case <-c.closing:
	default:
		close(c.closing)
	}
	<-c.release
	return c.Conn.Close()
}

// TestAdversarialStallBrokenLineNeitherWaitsNorGlues: a write given up
// after part of its message went out fails its call at the call's
// deadline, not after the connection's close (a hung stdio server takes
// the terminate delay twice, 4s, to be killed), and no later message
// reaches the server glued to the broken line, even before the close is
// done. Reproduction: the server reads 10 bytes of a request and stops;
// the call hit its deadline, then waited in the writer's Close (holding
// the write lock) until the server was gone.
func TestAdversarialStallBrokenLineNeitherWaitsNorGlues(t *testing.T) {
	t.Parallel()
	c, s := net.Pipe()
	w := &slowClose{Conn: c, closing: make(chan struct{}), release: make(chan struct{})}
	defer s.Close()
	defer close(w.release)
	r := NewRawCalls(0)
	r.writer(w)
	go func() { _, _ = io.ReadFull(s, make([]byte, 10)) }() // then reads no more

	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := r.Call(ctx, "tools/call", []byte(`{"name":"t","arguments":{}}`))
		done <- err
	}()
	<-w.closing
	select {
	case err := <-done:
		if !errors.Is(err, ErrWriteStalled) {
			t.Errorf("the call whose line broke: %v, want ErrWriteStalled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the call whose line broke waits for the connection's close")
	}

	// The server reads again: nothing more may come on the broken line.
	read := make(chan []byte, 1)
	go func() {
		var got bytes.Buffer
		_, _ = io.Copy(&got, s)
		read <- got.Bytes()
	}()
	if _, err := r.write([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")); err == nil {
		t.Error("a write after the broken line succeeded")
	}
	if _, err := r.Call(context.Background(), "tools/call", []byte(`{}`)); !errors.Is(err, ErrRawClosed) {
		t.Errorf("a call after the broken line: %v, want ErrRawClosed", err)
	}
	_ = c.Close() // what the delayed Close does in the end
	if got := <-read; len(got) > 0 {
		t.Errorf("after the broken line the server read %q", got)
	}
}

// countingWriter counts the bytes written to it.
type countingWriter struct{ n atomic.Int64 }

func (w *countingWriter) Write(p []byte) (int, error) { w.n.Add(int64(len(p))); return len(p), nil }
func (w *countingWriter) Close() error                { return nil }

// TestAdversarialStallCancelledCallNotSent: a call whose context ended
// before its request could be written is not sent (the go-sdk's writer
// refuses a write on a done context too): a tool with side effects must
// not run for a call the client cancelled. Reproduction: with the write
// lock free and the context done, writeBy's select took either case at
// random, and about half of 100 cancelled calls reached the server.
func TestAdversarialStallCancelledCallNotSent(t *testing.T) {
	t.Parallel()
	w := &countingWriter{}
	r := NewRawCalls(0)
	r.writer(w)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for range 100 {
		if _, err := r.Call(ctx, "tools/call", []byte(`{"name":"delete","arguments":{}}`)); !errors.Is(err, context.Canceled) {
			t.Fatalf("a cancelled call: %v, want context.Canceled", err)
		}
	}
	if n := w.n.Load(); n != 0 {
		t.Errorf("%d bytes of cancelled calls were written", n)
	}
}

// enteredConn signals each Write it begins.
type enteredConn struct {
	net.Conn
	entered chan struct{}
}

func (c enteredConn) Write(p []byte) (int, error) {
	c.entered <- struct{}{}
	return c.Conn.Write(p)
}

// TestAdversarialStallCancelInterruptsWrite: a call cancelled (the
// client's notifications/cancelled) while its request is stalled on a
// server that does not read returns at once and frees the connection's
// write lock, instead of holding both until its deadline (the upstream's
// timeout, 60s by default). Reproduction: the server reads nothing; the
// call, deadline 60s, is cancelled while writing.
func TestAdversarialStallCancelInterruptsWrite(t *testing.T) {
	t.Parallel()
	c, s := net.Pipe()
	defer s.Close()
	defer c.Close()
	w := enteredConn{Conn: c, entered: make(chan struct{}, 4)}
	r := NewRawCalls(0)
	r.writer(w)
	ctx, stop := context.WithTimeout(context.Background(), time.Minute)
	defer stop()
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		_, err := r.Call(ctx, "tools/call", []byte(`{"name":"t","arguments":{}}`))
		done <- err
	}()
	<-w.entered
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("the cancelled call: %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the cancelled call still waits on its write (its deadline is 1m)")
	}
}
