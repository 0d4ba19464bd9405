// Package wordfreq counts words and serves the counts as JSON: a small module
// with no dependencies beyond the standard library, for bench/gocache.sh.
package wordfreq

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"sort"
	"strings"
	"unicode"
)

// Count is one word and how often it occurs.
type Count struct {
	Word string `json:"word"`
	N    int    `json:"n"`
}

// Counts reads r and returns each word's count, most frequent first.
func Counts(r io.Reader) ([]Count, error) {
	m := map[string]int{}
	sc := bufio.NewScanner(r)
	sc.Split(bufio.ScanWords)
	for sc.Scan() {
		w := strings.ToLower(strings.TrimFunc(sc.Text(), func(c rune) bool {
			return !unicode.IsLetter(c) && !unicode.IsDigit(c)
		}))
		if w != "" {
			m[w]++
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	out := make([]Count, 0, len(m))
	for w, n := range m {
		out = append(out, Count{w, n})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].N != out[j].N {
			return out[i].N > out[j].N
		}
		return out[i].Word < out[j].Word
	})
	return out, nil
}

// Handler answers a POSTed text with its counts as JSON.
func Handler(w http.ResponseWriter, r *http.Request) {
	c, err := Counts(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(c)
}
