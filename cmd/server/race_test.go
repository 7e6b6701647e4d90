//go:build race

package main

// slowdown scales the time bounds of behaviour tests under the race
// detector, which makes Go code 5 to 20 times slower.
const slowdown = 10
