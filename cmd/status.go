package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpctl/mcpctl/serve"
	"github.com/mcpctl/mcpctl/state"
	"github.com/mcpctl/mcpctl/toolset"
	"github.com/mcpctl/mcpctl/upstream"
)

func init() { extraCommands = append(extraCommands, newStatusCmd) }

type statusOptions struct {
	Admin string
	// Admins are the --admin values, comma-separated or repeated; more
	// than one asks a fleet (status_fleet.go).
	Admins  []string
	Format  string
	Timeout time.Duration
	// TokenFile holds the admin listener's bearer token
	// (serve --admin-token-file).
	TokenFile string
}

func newStatusCmd(s *Streams) *cobra.Command {
	opts := statusOptions{}
	c := &cobra.Command{
		Use:   "status --admin ADDR",
		Short: "Show what a running `mcpctl serve` is serving",
		Long: `Ask a running mcpctl serve, through its admin listener, what it is
serving: the live generation (version, fingerprint, tools), the last reload
and the refused candidates with their findings, sessions per generation,
call counts per tool and facade translation counters. Several admin
addresses (--admin A,B,C) ask a fleet of replicas: each one's generation
and fingerprint, whether they have converged on one fingerprint and, when
not, since when they have diverged (exit 1).`,
		Example: `  mcpctl status --admin 127.0.0.1:8932
  mcpctl status --admin 127.0.0.1:8932 --format json | jq .lastReload
  mcpctl status --admin 127.0.0.1:18941,127.0.0.1:18942,127.0.0.1:18943`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if len(opts.Admins) == 0 {
				return usageErrorf("--admin ADDR is required (the address given to mcpctl serve --admin)")
			}
			if opts.Format != "text" && opts.Format != "json" {
				return usageErrorf("--format must be text or json, got %q", opts.Format)
			}
			if len(opts.Admins) > 1 {
				return runStatusFleet(c.Context(), s, opts)
			}
			opts.Admin = opts.Admins[0]
			return runStatus(c.Context(), s, opts)
		},
	}
	c.Flags().StringSliceVar(&opts.Admins, "admin", nil, "the admin address of the running server (HOST:PORT or PORT); several (A,B,C or repeated) ask a fleet")
	c.Flags().StringVar(&opts.Format, "format", "text", "output format: text or json")
	c.Flags().DurationVar(&opts.Timeout, "timeout", 10*time.Second, "how long to wait for the server")
	completeValues(c, "format", "text", "json")
	c.Flags().StringVar(&opts.TokenFile, "admin-token-file", "", "file holding the admin bearer token (the server's --admin-token-file)")
	return c
}

func runStatus(ctx context.Context, s *Streams, opts statusOptions) error {
	body, st, err := fetchStatus(ctx, opts.Admin, opts)
	if err != nil {
		return err
	}
	if opts.Format == "json" {
		_, err := s.Out.Write(body)
		return err
	}
	_, err = io.WriteString(s.Out, renderStatus(st, time.Now()))
	return err
}

// fetchStatus asks the admin listener at admin for its /status within
// opts.Timeout and returns the document as sent and decoded. A server that
// cannot be asked, or answers something else, is a usage error (exit 2).
func fetchStatus(ctx context.Context, admin string, opts statusOptions) ([]byte, *serve.Status, error) {
	addr, err := serve.ListenAddr(admin)
	if err != nil {
		return nil, nil, usageErrorf("--admin: %v", err)
	}
	ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/status", nil)
	if err != nil {
		return nil, nil, usageErrorf("--admin: %v", err)
	}
	if opts.TokenFile != "" {
		token, err := readTokenFile("--admin-token-file", opts.TokenFile)
		if err != nil {
			return nil, nil, err
		}
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, nil, usageErrorf("cannot reach the admin listener at %s: %v", addr, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return nil, nil, fmt.Errorf("reading /status: %w", err)
	}
	if resp.Header.Get(serve.ListenerHeader) == "mcp" {
		return nil, nil, &toolset.InputError{Source: addr, Offset: -1, Msg: "this is mcpctl serve's MCP endpoint (serve --http), not the admin listener; " +
			"give status the address passed to serve --admin (its log line \"listening transport=admin\" names it)"}
	}
	if resp.StatusCode != http.StatusOK {
		return nil, nil, usageErrorf("%s/status answered %s", addr, resp.Status)
	}
	var st serve.Status
	if err := json.Unmarshal(body, &st); err != nil {
		return nil, nil, usageErrorf("%s/status did not answer a status document: %v", addr, err)
	}
	return body, &st, nil
}

// writeUpstreams prints the gateway's upstreams (docs/serve.md#gateway).
func writeUpstreams(b *strings.Builder, ups []upstream.Status) {
	if len(ups) == 0 {
		return
	}
	b.WriteString("\nupstreams:\n")
	for _, u := range ups {
		fmt.Fprintf(b, "  %s  %s  %d tools  %d restarts", u.Name, u.State, u.Tools, u.Restarts)
		if u.LastError != "" {
			fmt.Fprintf(b, "  last error: %s", u.LastError)
		}
		b.WriteString("\n")
	}
}

// renderStatus prints a status readably.
func renderStatus(st *serve.Status, now time.Time) string {
	var b strings.Builder
	fmt.Fprintf(&b, "serving %s\n", st.Config)
	fmt.Fprintf(&b, "  generation %d  fingerprint %s\n", st.Version, st.Fingerprint)
	fmt.Fprintf(&b, "  published  %s (%s ago)\n", st.PublishedAt.Format(time.RFC3339), now.Sub(st.PublishedAt).Round(time.Second))
	fmt.Fprintf(&b, "  tools (%d): %s\n", len(st.Tools), strings.Join(st.Tools, ", "))
	if st.AllowBreaking {
		b.WriteString("  --allow-breaking is on: the gate lets breaking candidates through\n")
	}
	if !st.Ready {
		b.WriteString("  not ready\n")
	}
	if r := st.LastReload; r != nil {
		fmt.Fprintf(&b, "\nlast reload: %s (%s) at %s\n", r.Result, r.Trigger, r.At.Format(time.RFC3339))
		writeReload(&b, r)
	}
	if n := len(st.Refused); n > 0 {
		fmt.Fprintf(&b, "\nrefused candidates (%d, newest first):\n", n)
		for i := n - 1; i >= 0; i-- {
			r := &st.Refused[i]
			fmt.Fprintf(&b, "  %s (%s)\n", r.At.Format(time.RFC3339), r.Trigger)
			writeReload(&b, r)
		}
	}
	writePending(&b, st.Pending)
	writeUpstreams(&b, st.Upstreams)
	writeRollout(&b, st.Rollout, now)
	fmt.Fprintf(&b, "\nsessions: %d (%d initialized)", st.Sessions.Total, st.Sessions.Initialized)
	if len(st.Sessions.ByGeneration) > 0 {
		keys := make([]string, 0, len(st.Sessions.ByGeneration))
		for k := range st.Sessions.ByGeneration {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		var parts []string
		for _, k := range keys {
			label := "generation " + k
			if k == "0" {
				label = "not listed yet"
			}
			parts = append(parts, fmt.Sprintf("%s: %d", label, st.Sessions.ByGeneration[k]))
		}
		fmt.Fprintf(&b, "; %s", strings.Join(parts, ", "))
	}
	b.WriteString("\n")
	if len(st.Sessions.Pinned) > 0 {
		total := 0
		var parts []string
		for _, k := range sortedKeys(st.Sessions.Pinned) {
			total += st.Sessions.Pinned[k]
			parts = append(parts, fmt.Sprintf("generation %s: %d", k, st.Sessions.Pinned[k]))
		}
		fmt.Fprintf(&b, "  pinned: %d (%s)\n", total, strings.Join(parts, ", "))
	}
	if ss := st.Sessions; ss.Max > 0 {
		fmt.Fprintf(&b, "  http: %d of at most %d open, closed after %s idle; %d refused at the cap\n", ss.HTTPOpen, ss.Max, ss.IdleTimeout, ss.Refused)
	}
	if len(st.Calls) > 0 {
		b.WriteString("\ncalls:\n")
		names := sortedKeys(st.Calls)
		w := 0
		for _, n := range names {
			w = max(w, len(n))
		}
		for _, n := range names {
			c := st.Calls[n]
			fmt.Fprintf(&b, "  %-*s  ok %d  error %d  invalid %d\n", w, n, c.OK, c.Error, c.Invalid)
		}
	}
	if st.InFlight > 0 {
		fmt.Fprintf(&b, "  in flight: %d\n", st.InFlight)
	}
	if len(st.Facades) > 0 {
		b.WriteString("\nfacade translations:\n")
		for _, tool := range sortedKeys(st.Facades) {
			rules := st.Facades[tool]
			var parts []string
			for _, r := range sortedKeys(rules) {
				parts = append(parts, fmt.Sprintf("%s %d", r, rules[r]))
			}
			fmt.Fprintf(&b, "  %s: %s\n", tool, strings.Join(parts, ", "))
		}
	}
	return b.String()
}

// writePending lists the candidates waiting for mcpctl approve or reject,
// with their full fingerprints (what those commands take).
func writePending(b *strings.Builder, ps []state.Pending) {
	if len(ps) == 0 {
		return
	}
	fmt.Fprintf(b, "\npending candidates (%d; mcpctl approve|reject --admin ADDR FINGERPRINT --reason TEXT):\n", len(ps))
	for _, p := range ps {
		fmt.Fprintf(b, "  %s  refused %s\n", p.Fingerprint, p.Time.Format(time.RFC3339))
		for _, c := range p.Findings {
			fmt.Fprintf(b, "    - %s %s tool %q", c.Level, c.Rule, c.Tool)
			if c.Path != "" {
				fmt.Fprintf(b, " %s %s", c.Direction, c.Path)
			}
			b.WriteString("\n")
			if c.Message != "" {
				fmt.Fprintf(b, "      %s\n", c.Message)
			}
		}
	}
}

func writeReload(b *strings.Builder, r *serve.ReloadResult) {
	switch r.Result {
	case serve.ResultPublished:
		fmt.Fprintf(b, "    published generation %d (%s)", r.Version, shortHash(r.Fingerprint))
		if !r.Changed {
			b.WriteString(", tool contract unchanged: no notification")
		}
		b.WriteString("\n")
		if r.AllowedBreaking {
			b.WriteString("    let through by --allow-breaking\n")
		}
	case serve.ResultQuarantined:
		fmt.Fprintf(b, "    upstream(s) %s quarantined; serving generation %d (%s)\n", strings.Join(r.Quarantined, ", "), r.Version, shortHash(r.Fingerprint))
		fmt.Fprintf(b, "    pending: %s (mcpctl approve or reject)\n", r.Candidate)
	case serve.ResultRefused:
		if r.Reason != "" {
			fmt.Fprintf(b, "    %s\n", r.Reason)
		}
		for _, e := range r.Errors {
			fmt.Fprintf(b, "    %s\n", e)
		}
	}
	for _, f := range r.Findings {
		mark := " "
		switch {
		case f.AllowedBy != "":
			mark = "allowed by gate.allow at " + f.AllowedBy
		case f.NeedsPermission:
			mark = "needs permission"
		}
		fmt.Fprintf(b, "    - %s %s tool %q", f.Level, f.Rule, f.Tool)
		if f.Path != "" {
			fmt.Fprintf(b, " %s %s", f.Direction, f.Path)
		}
		if strings.TrimSpace(mark) != "" {
			fmt.Fprintf(b, " [%s]", mark)
		}
		b.WriteString("\n")
		if f.Message != "" {
			fmt.Fprintf(b, "      %s\n", f.Message)
		}
		if f.Expired != "" {
			fmt.Fprintf(b, "      %s\n", f.Expired)
		}
	}
}

func shortHash(fp string) string {
	if len(fp) > 12 {
		return fp[:12]
	}
	return fp
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
