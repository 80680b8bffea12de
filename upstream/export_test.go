package upstream

import "time"

// SetCancelWait sets how long a notifications/cancelled may take and
// returns a func putting back the previous bound. Not for parallel tests.
func SetCancelWait(d time.Duration) (restore func()) {
	prev := cancelWait
	cancelWait = d
	return func() { cancelWait = prev }
}
