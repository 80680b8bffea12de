package serve

import (
	"fmt"

	"github.com/mcpctl/mcpctl/handler"
	"github.com/mcpctl/mcpctl/serveconfig"
	"github.com/mcpctl/mcpctl/upstream"
)

// buildHandler makes the handler of one tool: a forwardHandler for an
// upstream's tool, else package handler's exec, http or static handler.
// dir is the config's folder (relative commands and working folders are
// resolved against it); getenv reads the server's environment; pool (nil:
// no limits) is the server's account of exec calls.
func buildHandler(h *serveconfig.HandlerConfig, dir string, getenv func(string) (string, bool), pool *handler.Pool, ups map[string]*upstream.Upstream) (handler.Handler, error) {
	if h.Upstream != nil {
		up := ups[h.Upstream.Upstream]
		if up == nil {
			return nil, fmt.Errorf("upstream %q is not connected", h.Upstream.Upstream)
		}
		tr, _ := h.Upstream.Translator.(*translator)
		return &forwardHandler{up: up, tool: h.Upstream.Tool, tr: tr}, nil
	}
	return handler.Build(h, dir, getenv, pool)
}
