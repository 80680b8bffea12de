package serve

import "context"

// The test seams of package serve: the only place hooks reach a Server.

// testOptions are a test server's Options and hooks; the fields of both
// are promoted, so a tweak sets o.AllowBreaking and o.onReload alike.
type testOptions struct {
	Options
	hooks
}

// newTestServer is New with the hooks of o.
func newTestServer(ctx context.Context, o testOptions) (*Server, error) {
	return newServer(ctx, o.Options, o.hooks)
}
