// Package stock counts what is left.
package stock

// Left is what remains of have after taking take, never below zero.
func Left(have, take int) int {
	if take > have {
		return 0
	}
	return have - take
}
