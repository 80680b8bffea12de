package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpctl/mcpctl/admin"
	"github.com/mcpctl/mcpctl/report"
	"github.com/mcpctl/mcpctl/serve"
	"github.com/mcpctl/mcpctl/toolset"
)

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

// NewCmdStatus builds `mcpctl status`; runF, when set, receives the parsed
// options instead of runStatus or runStatusFleet (tests).
func NewCmdStatus(s *Streams, runF func(*statusOptions) error) *cobra.Command {
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
			if len(opts.Admins) == 1 {
				opts.Admin = opts.Admins[0]
			}
			if runF != nil {
				return runF(&opts)
			}
			if len(opts.Admins) > 1 {
				return runStatusFleet(c.Context(), s, opts)
			}
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
	return report.StatusText(s.Out, st, time.Now())
}

// fetchStatus asks the admin listener at adminAddr for its /status within
// opts.Timeout and returns the document as sent and decoded. A server that
// cannot be asked, or answers something else, is a usage error (exit 2).
func fetchStatus(ctx context.Context, adminAddr string, opts statusOptions) ([]byte, *admin.Status, error) {
	addr, err := serve.ListenAddr(adminAddr)
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
	var st admin.Status
	if err := json.Unmarshal(body, &st); err != nil {
		return nil, nil, usageErrorf("%s/status did not answer a status document: %v", addr, err)
	}
	return body, &st, nil
}
