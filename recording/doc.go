// Package recording writes recorded tool calls: the one redactor of
// argument values and the mcpctl JSON Lines record of a call, which
// `serve --record` and `fixtures convert` share, and the record file
// writer of `serve --record`.
//
// A Redactor hides the values of members whose name looks like a secret
// (LooksSecret) and of the member names and RFC 6901 JSON Pointers it was
// given, replacing each with the string Redacted; replay treats that
// string as an unknown value (docs/replay.md#outcomes). AppendRecord
// writes one call, redacted, as
//
//	{"tool":"search","arguments":{"q":"x","token":"[redacted]"},"generation":"<fingerprint>","expect":"accepted"}
//
// with the arguments as sent (member order and number spelling kept). A
// Writer appends calls to a new file of a private folder off the caller's
// path: a bounded queue, one writer goroutine, one write(2) per batch,
// counters for what was written and dropped (docs/serve.md#recording-calls).
//
//	r, err := recording.NewRedactor([]string{"session", "/auth/pin"})
//	w, err := recording.New(recording.Options{Dir: "rec", Start: time.Now()})
//	defer w.Close()
//	w.Put(&recording.Call{Tool: "search", Args: args, Expect: "accepted", Redactor: r})
package recording
