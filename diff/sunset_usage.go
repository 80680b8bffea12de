package diff

import (
	"fmt"
	"time"
)

// Usage is how much a tool, or one rule of a tool's facade, was used
// within the quiet period: Calls in it, the Last call ever (zero:
// never or unknown), and Covered: whether the count covers the whole
// period (a server up that long, a state counting that long, recorded
// calls taken as the whole traffic). Without Covered, zero calls do not
// prove a quiet period.
type Usage struct {
	Calls   int64
	Last    time.Time
	Covered bool
}

// UsageFunc answers the usage of tool (rule "") or of one rule of that
// tool's facade block, named by facade.RuleKey ("/rename/perPage",
// "/aliases/search_v1", "/values/mode/low", …): each rule is judged by
// its own calls, never by those of its kind's other rules.
type UsageFunc func(tool, rule string) Usage

// quiet judges a sunset by usage (docs/diff.md#usage-aware-sunsets): a
// removal that Options.Usage shows unused within the quiet period is safe
// with a notice; otherwise it is breaking, and the message says how many
// calls used it in the period and when the last one was. Without
// Options.Usage, ch is left as it is.
func (c *comparison) quiet(ch *Change, tool, rule string) {
	if c.opts.Usage == nil {
		return
	}
	u, period := c.opts.Usage(tool, rule), c.opts.quietPeriod()
	if u.Covered && u.Calls == 0 {
		ch.Level, ch.Undecided = Safe, false
		addNotice(ch, fmt.Sprintf("no call used it in the quiet period (%s)%s", period, lastCall(u)))
		return
	}
	ch.Level = Breaking
	if u.Calls > 0 {
		ch.Message += fmt.Sprintf("; %d calls used it in the quiet period (%s)%s", u.Calls, period, lastCall(u))
		return
	}
	ch.Message += fmt.Sprintf("; usage is counted for less than the quiet period (%s), so no call in it proves nothing", period)
}

func lastCall(u Usage) string {
	if u.Last.IsZero() {
		return ""
	}
	return ", the last at " + u.Last.UTC().Format(time.RFC3339)
}

// DefaultQuietPeriod is Options.QuietPeriod's default: how long a facade
// rule or a deprecated tool must go unused before its removal is safe.
const DefaultQuietPeriod = 7 * 24 * time.Hour

func (o *Options) quietPeriod() time.Duration {
	if o.QuietPeriod <= 0 {
		return DefaultQuietPeriod
	}
	return o.QuietPeriod
}
