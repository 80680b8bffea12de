package upstreamtest

import (
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpctl/mcpctl/canon"
	"github.com/mcpctl/mcpctl/schema"
)

// Op names a kind of Change.
type Op string

// The changes an upstream can make to its tool list.
const (
	OpAdd         Op = "add"         // Change.Def: add or replace a tool
	OpRename      Op = "rename"      // rename property Old to New in Tool's input schema
	OpNarrowEnum  Op = "enum"        // set "enum" to Values at Pointer in Tool's input schema
	OpDescription Op = "description" // set Tool's description to Text
	OpRemove      Op = "remove"      // remove Tool
	OpCrash       Op = "crash"       // close every session (the stdio program exits)
)

// Change is one change to the tool list, also the JSON line format of the
// stdio program's control file.
type Change struct {
	Op      Op        `json:"op"`
	Tool    string    `json:"tool,omitempty"`
	Old     string    `json:"old,omitempty"`
	New     string    `json:"new,omitempty"`
	Pointer string    `json:"pointer,omitempty"`
	Values  []any     `json:"values,omitempty"`
	Text    string    `json:"text,omitempty"`
	Def     *mcp.Tool `json:"def,omitempty"`
}

// Add adds t, replacing a tool of the same name.
func (u *Upstream) Add(t *mcp.Tool) error { return u.Apply(Change{Op: OpAdd, Def: t}) }

// RenameProperty renames the top-level property old of tool's input schema
// to new, in "properties" and "required".
func (u *Upstream) RenameProperty(tool, old, new string) error {
	return u.Apply(Change{Op: OpRename, Tool: tool, Old: old, New: new})
}

// NarrowEnum sets "enum" to values on the schema object at the RFC 6901
// pointer (into tool's input schema, e.g. "/properties/mode").
func (u *Upstream) NarrowEnum(tool, pointer string, values ...any) error {
	return u.Apply(Change{Op: OpNarrowEnum, Tool: tool, Pointer: pointer, Values: values})
}

// SetDescription replaces tool's description.
func (u *Upstream) SetDescription(tool, text string) error {
	return u.Apply(Change{Op: OpDescription, Tool: tool, Text: text})
}

// Remove removes tool.
func (u *Upstream) Remove(tool string) error { return u.Apply(Change{Op: OpRemove, Tool: tool}) }

// Apply makes one change and lets the server notify its sessions.
func (u *Upstream) Apply(c Change) error {
	switch c.Op {
	case OpAdd:
		return u.add(c.Def)
	case OpRemove:
		return u.remove(c.Tool)
	case OpCrash:
		u.Crash()
		return nil
	case OpRename, OpNarrowEnum, OpDescription:
		return u.modify(c)
	}
	return fmt.Errorf("%w: unknown op %q", ErrBadChange, c.Op)
}

func (u *Upstream) add(t *mcp.Tool) error {
	if t == nil || t.Name == "" {
		return fmt.Errorf("%w: add needs a tool with a name", ErrBadChange)
	}
	input, err := decodeObject(t.InputSchema)
	if err != nil {
		return fmt.Errorf("add %s: %w", t.Name, err)
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.publish(t, input)
}

func (u *Upstream) remove(name string) error {
	u.mu.Lock()
	defer u.mu.Unlock()
	if _, ok := u.tools[name]; !ok {
		return fmt.Errorf("remove %s: %w", name, ErrNoTool)
	}
	delete(u.tools, name)
	u.server.RemoveTools(name)
	return nil
}

// modify applies a change to a copy of an existing tool and publishes it.
func (u *Upstream) modify(c Change) error {
	u.mu.Lock()
	defer u.mu.Unlock()
	e, ok := u.tools[c.Tool]
	if !ok {
		return fmt.Errorf("%s %s: %w", c.Op, c.Tool, ErrNoTool)
	}
	t := copyTool(e.tool, e.input)
	input := t.InputSchema.(map[string]any)
	var err error
	switch c.Op {
	case OpRename:
		err = renameProperty(input, c.Old, c.New)
	case OpNarrowEnum:
		err = setEnum(input, c.Pointer, c.Values)
	case OpDescription:
		t.Description = c.Text
	}
	if err != nil {
		return fmt.Errorf("%s %s: %w", c.Op, c.Tool, err)
	}
	return u.publish(t, input)
}

// publish compiles input, stores the tool and (re)adds it to the server,
// which schedules notifications/tools/list_changed. u.mu is held.
func (u *Upstream) publish(t *mcp.Tool, input map[string]any) error {
	compiled, err := schema.CompileAny(input)
	if err != nil {
		return fmt.Errorf("%w: tool %s: %w", ErrBadChange, t.Name, err)
	}
	u.tools[t.Name] = &entry{tool: copyTool(t, input), input: input, validate: compiled}
	u.server.AddTool(copyTool(t, input), u.handle)
	return nil
}

func renameProperty(input map[string]any, old, new string) error {
	props, _ := input["properties"].(map[string]any)
	p, ok := props[old]
	if !ok {
		return fmt.Errorf("%q: %w", old, ErrNoProperty)
	}
	delete(props, old)
	props[new] = p
	req, _ := input["required"].([]any)
	for i, r := range req {
		if r == old {
			req[i] = new
		}
	}
	return nil
}

func setEnum(input map[string]any, pointer string, values []any) error {
	toks, err := canon.PointerTokens(pointer)
	if err != nil {
		return err
	}
	var cur any = input
	for _, tok := range toks {
		m, ok := cur.(map[string]any)
		if !ok {
			return fmt.Errorf("%w: %q does not reach a schema object", ErrBadChange, pointer)
		}
		cur = m[tok]
	}
	m, ok := cur.(map[string]any)
	if !ok {
		return fmt.Errorf("%w: %q does not reach a schema object", ErrBadChange, pointer)
	}
	enum, err := decodeJSON(values)
	if err != nil {
		return err
	}
	m["enum"] = enum
	return nil
}
