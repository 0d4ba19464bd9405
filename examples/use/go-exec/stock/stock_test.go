package stock

import (
	"os/exec"
	"testing"
)

// startHelper starts a helper (`sleep` stands in for a server) and forgets
// it: nothing kills or waits for it when the test ends.
func startHelper(t *testing.T) {
	cmd := exec.Command("sleep", "300")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
}

func TestLeft(t *testing.T) {
	startHelper(t)
	if n := Left(3, 5); n != 0 {
		t.Fatalf("Left = %d, want 0", n)
	}
}
