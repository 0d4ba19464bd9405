package words

import (
	"os/exec"
	"testing"
)

// startHelper starts a long-running helper (`sleep` stands in for a server)
// and stops it when the test ends.
func startHelper(t *testing.T) {
	cmd := exec.Command("sleep", "300")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
}

func TestCount(t *testing.T) {
	startHelper(t)
	if n := Count("one two  three"); n != 3 {
		t.Fatalf("Count = %d, want 3", n)
	}
}
