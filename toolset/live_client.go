package toolset

import (
	"context"
	"errors"
)

func loadLive(ctx context.Context, source string, opts LiveOptions) (*Set, error) {
	return nil, errors.New("live sources: not yet implemented")
}
