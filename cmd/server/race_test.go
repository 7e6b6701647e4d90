//go:build race

package main

// The server binary the crash test builds is built with -race too, so that
// it reuses the packages this test binary was compiled from.
func init() { raceBuild = true }
