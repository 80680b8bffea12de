package config_test

import (
	"fmt"

	"github.com/mcpctl/mcpctl/config"
	"github.com/mcpctl/mcpctl/diff"
)

func ExampleParse() {
	catalog := []diff.Rule{{ID: "input-property-removed", Kind: "diff", Level: "breaking"}}
	c, err := config.Parse(".mcpctl.yaml", []byte(`
ignore:
  - {rule: input-property-removed, tool: list_issues, path: /properties/sort, reason: never honoured, expires: 2027-01-31}
open-content: strict
`), catalog)
	if err != nil {
		fmt.Println(err)
		return
	}
	var opts diff.Options
	c.Apply(&opts)
	fmt.Println(opts.StrictOpenContent, opts.Ignores[0].Tool, opts.Ignores[0].Expires.Format("2006-01-02"))

	_, err = config.Parse(".mcpctl.yaml", []byte("rules:\n  input-property-remove: safe\n"), catalog)
	fmt.Println(err)
	// Output:
	// true list_issues 2027-01-31
	// .mcpctl.yaml:2:3: rules: unknown rule id "input-property-remove" (see mcpctl rules)
}
