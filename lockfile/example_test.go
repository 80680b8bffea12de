package lockfile_test

import (
	"bytes"
	"fmt"

	"github.com/mcpctl/mcpctl/facade"
	"github.com/mcpctl/mcpctl/lockfile"
	"github.com/mcpctl/mcpctl/toolset"
)

// A set and its facades written as a contract lockfile, read back.
func Example() {
	set, _ := toolset.Decode("tools.json", []byte(`{"tools":[{"name":"tally","inputSchema":{"type":"object"}}]}`))
	var buf bytes.Buffer
	_ = lockfile.Write(&buf, set, facade.File{"tally": {Rename: map[string]string{"span": "horizon"}}})
	fmt.Print(buf.String())
	lock, _ := lockfile.Decode("tools.lock.json", buf.Bytes())
	fmt.Println(lock.Set.Names(), lock.Facades["tally"].Rename)
	// Output:
	// {
	//   "tools": [
	//     {
	//       "name": "tally",
	//       "inputSchema": {
	//         "type": "object"
	//       }
	//     }
	//   ],
	//   "facades": {
	//     "tally": {
	//       "rename": {
	//         "span": "horizon"
	//       }
	//     }
	//   }
	// }
	// [tally] map[span:horizon]
}
