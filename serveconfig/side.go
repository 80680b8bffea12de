package serveconfig

// Side is one side of a blue/green rollout (docs/serve.md#bluegreen).
type Side int

// The sides a call can be routed to.
const (
	// SideNeither: the call is valid on no side; its verdict carries the
	// self-healing message (or the unknown-tool message).
	SideNeither Side = iota
	SideGreen
	SideBlue
)

func (d Side) String() string {
	switch d {
	case SideGreen:
		return "green"
	case SideBlue:
		return "blue"
	}
	return "neither"
}
