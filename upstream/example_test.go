package upstream_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpctl/mcpctl/upstream"
)

// Start a connection to an in-process server, read its tools as sent and
// forward a call under the server's own tool name.
func ExampleStart() {
	srv := mcp.NewServer(&mcp.Implementation{Name: "files", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "read_file", InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "contents"}}}, nil
		})
	u, err := upstream.Start(context.Background(), upstream.Options{Name: "files", Transport: func() mcp.Transport {
		ct, st := mcp.NewInMemoryTransports()
		_, _ = srv.Connect(context.Background(), st, nil)
		return ct
	}})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer u.Close()
	fmt.Println(u.Tools().Names(), string(u.Tools().Tools[0].Value.Get("inputSchema").Get("properties").Get("path").Get("type").Str))
	res, err := u.Call(context.Background(), &mcp.CallToolParams{Name: "read_file", Arguments: map[string]any{"path": "a"}}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text, u.Status().State)
	// Output:
	// [read_file] string
	// contents connected
}
