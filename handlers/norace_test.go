//go:build !race

package handlers_test

// slowdown scales the time bounds of behaviour tests (see race_test.go).
const slowdown = 1
