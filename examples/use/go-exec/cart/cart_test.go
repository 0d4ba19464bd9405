package cart

import (
	"os/exec"
	"testing"
)

// startHelper starts a helper (`sleep` stands in for a server) and stops it
// when the test ends: this package leaves nothing behind.
func startHelper(t *testing.T) {
	cmd := exec.Command("sleep", "300")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
}

func TestTotal(t *testing.T) {
	startHelper(t)
	if n := Total(250, 199, 1); n != 450 {
		t.Fatalf("Total = %d, want 450", n)
	}
}
