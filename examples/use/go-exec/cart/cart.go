// Package cart adds up prices.
package cart

// Total is the sum of the prices, in cents.
func Total(prices ...int) int {
	t := 0
	for _, p := range prices {
		t += p
	}
	return t
}
