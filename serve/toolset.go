package serve

import "github.com/mcpctl/mcpctl/toolset"

func init() { toolset.ServeConfigDecoder = decodeForToolset }

// decodeForToolset reads a serve config as a tool set (the served tool
// objects) for canon, lint and diff.
func decodeForToolset(source string, data []byte, readFile func(string) ([]byte, error)) (*toolset.Set, error) {
	cfg, err := ParseConfig(source, data, readFile)
	if err != nil {
		return nil, err
	}
	return cfg.Set()
}
