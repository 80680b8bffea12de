package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os/user"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpctl/mcpctl/diff"
	"github.com/mcpctl/mcpctl/serve"
)

type decisionOptions struct {
	Approve   bool
	Admin     string
	Reason    string
	Until     string
	TokenFile string
	Timeout   time.Duration
	Decision  serve.Decision
}

// ErrDecision is a decision the server refused (exit 1): not pending,
// stale (ErrStale), or the config on disk no longer builds the
// fingerprint.
var ErrDecision = errors.New("the server refused the decision")

// ErrStale is a decision about a stale candidate (the server's 410 Gone:
// the config went on to a newer candidate, or stopped building, since it
// was pending); it comes wrapped with ErrDecision (exit 1).
var ErrStale = errors.New("the candidate is stale")

// NewCmdApprove builds `mcpctl approve`; runF, when set, receives the
// parsed options instead of runDecision (tests).
func NewCmdApprove(s *Streams, runF func(*decisionOptions) error) *cobra.Command {
	return newDecisionCmd(s, true, runF)
}

// NewCmdReject builds `mcpctl reject`, as NewCmdApprove.
func NewCmdReject(s *Streams, runF func(*decisionOptions) error) *cobra.Command {
	return newDecisionCmd(s, false, runF)
}

func newDecisionCmd(s *Streams, approve bool, runF func(*decisionOptions) error) *cobra.Command {
	opts := decisionOptions{Approve: approve}
	verb, short := "reject", "Drop a candidate the gate of a running `mcpctl serve --state` refused"
	long := `Reject a pending candidate (named by its fingerprint, as mcpctl status lists
it) on a running mcpctl serve --state: it is no longer pending; the
rejection is journalled with its reason and time.`
	if approve {
		verb, short = "approve", "Publish a candidate the gate of a running `mcpctl serve --state` refused"
		long = `Approve a pending candidate (named by its fingerprint, as mcpctl status lists
it) on a running mcpctl serve --state: it is published if the config on disk
still builds that fingerprint (else the server refuses: the config changed
since), and the approval is journalled with its reason, time and --until.`
	}
	c := &cobra.Command{
		Use:     verb + " --admin ADDR FINGERPRINT --reason TEXT",
		Short:   short,
		Long:    long,
		Example: fmt.Sprintf("  mcpctl %s --admin 127.0.0.1:8932 3f2a…c9 --reason \"announced in 2.0\"", verb),
		Args:    cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if missing := missingDecisionFlags(opts.Admin, opts.Reason); missing != "" {
				return usageErrorf("%s needs %s", verb, missing)
			}
			opts.Decision = serve.Decision{Fingerprint: args[0], Reason: opts.Reason, Actor: actor()}
			if opts.Until != "" {
				u, err := diff.ParseExpiry(opts.Until, false)
				if err != nil {
					return usageErrorf("--until: %v", err)
				}
				opts.Decision.Until = &u
			}
			if runF != nil {
				return runF(&opts)
			}
			return runDecision(c.Context(), s, opts)
		},
	}
	f := c.Flags()
	f.StringVar(&opts.Admin, "admin", "", "the admin address of the running server (HOST:PORT or PORT)")
	f.StringVar(&opts.Reason, "reason", "", "why (journalled with the decision)")
	if approve {
		f.StringVar(&opts.Until, "until", "", "when the permission ends: a date (from 00:00 UTC) or an RFC 3339 time (journalled)")
	}
	f.StringVar(&opts.TokenFile, "admin-token-file", "", "file holding the admin bearer token (the server's --admin-token-file)")
	f.DurationVar(&opts.Timeout, "timeout", 30*time.Second, "how long to wait for the server")
	return c
}

// actor names the operator for the journal: the local user, if known.
func actor() string {
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	return ""
}

func runDecision(ctx context.Context, s *Streams, opts decisionOptions) error {
	path := "/reject"
	if opts.Approve {
		path = "/approve"
	}
	body, _ := json.Marshal(opts.Decision)
	resp, err := adminRequest(ctx, opts.Admin, opts.TokenFile, opts.Timeout, http.MethodPost, path, body)
	if err != nil {
		return err
	}
	var out struct {
		Error       string `json:"error"`
		Version     uint64 `json:"version"`
		Fingerprint string `json:"fingerprint"`
	}
	if err := json.Unmarshal(resp.body, &out); err != nil {
		return usageErrorf("%s answered %s, not JSON", path, resp.status)
	}
	if resp.code == http.StatusGone {
		return fmt.Errorf("%w: %w: %s", ErrDecision, ErrStale, out.Error)
	}
	if out.Error != "" {
		return fmt.Errorf("%w: %s", ErrDecision, out.Error)
	}
	if opts.Approve {
		_, err = fmt.Fprintf(s.Out, "approved: published generation %d (%s)\n", out.Version, out.Fingerprint)
	} else {
		_, err = fmt.Fprintf(s.Out, "rejected %s\n", opts.Decision.Fingerprint)
	}
	return err
}

type adminResponse struct {
	status string
	code   int
	body   []byte
}

// adminRequest sends one request to a running serve's admin listener,
// with its bearer token when tokenFile is set.
func adminRequest(ctx context.Context, admin, tokenFile string, timeout time.Duration, method, path string, body []byte) (*adminResponse, error) {
	addr, err := serve.ListenAddr(admin)
	if err != nil {
		return nil, usageErrorf("--admin: %v", err)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, "http://"+addr+path, bytes.NewReader(body))
	if err != nil {
		return nil, usageErrorf("--admin: %v", err)
	}
	req.Header.Set("Content-Type", "application/json")
	if tokenFile != "" {
		token, err := readTokenFile("--admin-token-file", tokenFile)
		if err != nil {
			return nil, err
		}
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, usageErrorf("cannot reach the admin listener at %s: %v", addr, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	if resp.StatusCode == http.StatusUnauthorized {
		return nil, usageErrorf("%s%s answered %s: give the server's admin token with --admin-token-file", addr, path, resp.Status)
	}
	return &adminResponse{status: resp.Status, code: resp.StatusCode, body: data}, nil
}

// missingDecisionFlags names the flags approve and reject need that are
// empty ("" when none is).
func missingDecisionFlags(admin, reason string) string {
	var missing []string
	if admin == "" {
		missing = append(missing, "--admin ADDR")
	}
	if reason == "" {
		missing = append(missing, "--reason TEXT")
	}
	return strings.Join(missing, " and ")
}
