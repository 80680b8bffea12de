package facade

import (
	"errors"
	"testing"
)

// TestIssue11KeyErrorTyped: an invalid facade key is a *KeyError that
// wraps ErrFacade and carries its reason, so the loader puts the reason in
// its located message without trimming ErrFacade's text off the message.
func TestIssue11KeyErrorTyped(t *testing.T) {
	t.Parallel()
	for key, reason := range map[string]string{
		"":    "empty key",
		"/a~": `key "/a~": "~" must be followed by 0 or 1 in a JSON Pointer (RFC 6901)`,
	} {
		_, err := ParseKey(key)
		var ke *KeyError
		if !errors.As(err, &ke) || !errors.Is(err, ErrFacade) {
			t.Fatalf("ParseKey(%q) = %v (%T), want a *KeyError wrapping ErrFacade", key, err, err)
		}
		if ke.Key != key || ke.Reason != reason {
			t.Errorf("ParseKey(%q): Key %q Reason %q, want %q %q", key, ke.Key, ke.Reason, key, reason)
		}
	}
}
