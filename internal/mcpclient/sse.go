package mcpclient

import "bytes"

// SSEEvent reads the lines of an event stream (WHATWG HTML, "Server-sent
// events", "Interpreting an event stream") as the go-sdk's client reads
// them, one event at a time: a line's ending is every CR and LF it ends
// in, a field's value is trimmed of white space on both sides, the data
// lines are joined by LF, and the last "event" line names the event. A
// line with no colon, which the go-sdk's client refuses (ending the
// session), is read as the specification reads it: a field with an empty
// value (SSELine writes it so for the go-sdk).
type SSEEvent struct {
	Data  []byte // the event's data
	data  bool   // a data line was read (the next one starts with LF)
	other bool   // the event's type is not "message" (the default)
}

// Line reads raw, a line of the stream with its line ending (the last
// line of a stream may have none). blank reports a blank line, which ends
// the event: read its Data (Message) before the next Line.
func (e *SSEEvent) Line(raw []byte) (blank bool) {
	line := bytes.TrimRight(raw, "\r\n")
	if len(line) == 0 {
		return true
	}
	name, value, _ := bytes.Cut(line, []byte{':'})
	switch string(name) {
	case "data":
		if e.data {
			e.Data = append(e.Data, '\n')
		}
		e.Data, e.data = append(e.Data, bytes.TrimSpace(value)...), true
	case "event":
		name := bytes.TrimSpace(value)
		e.other = len(name) > 0 && string(name) != "message"
	}
	return false
}

// Message reports whether the event read so far carries a message for the
// client: it has data and its type is "message" (the go-sdk's client
// skips an event of another type, and one with no data).
func (e *SSEEvent) Message() bool {
	return len(e.Data) > 0 && !e.other
}

// Reset starts the next event, keeping Data's memory.
func (e *SSEEvent) Reset() {
	e.Data, e.data, e.other = e.Data[:0], false, false
}

// SSELine is raw, a line of an event stream, as the go-sdk's client must
// read it to read what SSEEvent reads: a line with no colon gets one
// before its line ending (a field with an empty value), the rest is raw.
func SSELine(raw []byte) []byte {
	line := bytes.TrimRight(raw, "\r\n")
	if len(line) == 0 || bytes.IndexByte(line, ':') >= 0 {
		return raw
	}
	return append(append(line[:len(line):len(line)], ':'), raw[len(line):]...)
}

// EventMessage is what the go-sdk's client must read of data, an event's
// data, for the event not to end the session: data itself, TooDeep's
// replacement of a message nested too deep, or nothing (nil) for one
// TooDeep drops and for data the go-sdk's decoder refuses (not JSON, not
// JSON-RPC, a response without an id: its client ends the session at
// such an event, where the fast path answered the call with an error),
// which is skipped as an event without data is, but for a message the
// go-sdk cannot take whose request can be answered (unreadable's
// replacement). why says what was done ("": nothing).
func EventMessage(data []byte) (msg []byte, why string) {
	if repl, why, deep := TooDeep(data); deep {
		return repl, why
	}
	if _, _, ok := readAsGoSDK(data); !ok || emptyIn(data) {
		if repl, why := unreadable(data); repl != nil {
			return repl, why
		}
		return nil, "not a JSON-RPC message: skipped"
	}
	return data, ""
}
