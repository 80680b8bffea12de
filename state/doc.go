// Package state owns the durable state folder of `mcpctl serve --state DIR`
// (docs/serve.md#state): what makes the gate hold across restarts.
//
// In DIR (mode 0700; a folder its group or others may write is refused
// with durable.ErrDirUnsafe), every file mode 0600:
//
//	published.json         as of the last checkpoint: the last N published contracts' records
//	                       (Published), the sequence counter and every contract fingerprint ever published
//	contracts/SEQ.lock.json  each of those contracts, as a contract lockfile
//	bundles/SEQ/…          the config bundle the last was built from (config + $file includes)
//	memory.lock.json       the last published definition (and facade) of every tool a later contract removed
//	journal.jsonl          every decision, one JSON object a line, append-only; a publish after
//	                       the last checkpoint with its contract and bundle
//	pending/FP.json        refused candidates waiting for a decision, by fingerprint
//	usage.json             calls per tool and per facade rule, per UTC day, and the last call
//
// A publish is one journal line and one fsync (the line carries the
// contract and the bundle); the other files are written at checkpoints
// (every 32 publishes and at Close), each replaced atomically
// (internal/durable: temporary file, fsync, rename, fsync of the folder),
// published.json last. Open reads the files, then the journal's publishes
// after them, so a crash anywhere leaves the last synced publish current.
// Time comes from Options.Now, so tests control it.
//
//	st, err := state.Open(dir, state.Options{History: 3})
//	choice := st.Newest(baseline)          // what the first candidate is gated against
//	err = st.Publish(state.Record{Contract: lock, Allowed: state.Allowance{Kind: state.AutoSafe}})
//	st.Count("search", "/rename/q")        // per call: facade.RuleKey of each rule it used
//	w := st.Usage("search", "/rename/q", 7*24*time.Hour)
//	err = st.Close()                       // flushes the counters
package state
