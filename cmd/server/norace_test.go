//go:build !race

package main

// slowdown scales the time bounds of behaviour tests (see race_test.go).
const slowdown = 1
