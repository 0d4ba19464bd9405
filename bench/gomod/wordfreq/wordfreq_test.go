package wordfreq

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestCounts(t *testing.T) {
	c, err := Counts(strings.NewReader("The cat, the hat. THE end!"))
	if err != nil {
		t.Fatal(err)
	}
	if c[0] != (Count{"the", 3}) || len(c) != 4 {
		t.Fatalf("got %v", c)
	}
}

func TestHandler(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(Handler))
	defer srv.Close()
	resp, err := http.Post(srv.URL, "text/plain", strings.NewReader("a b a"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var c []Count
	if err := json.NewDecoder(resp.Body).Decode(&c); err != nil {
		t.Fatal(err)
	}
	if len(c) != 2 || c[0] != (Count{"a", 2}) {
		t.Fatalf("got %v", c)
	}
}
