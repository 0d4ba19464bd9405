// Package words counts words; its test starts a helper process, as tests of
// clients often start the server they talk to.
package words

import "strings"

// Count returns the number of whitespace-separated words in s.
func Count(s string) int { return len(strings.Fields(s)) }
