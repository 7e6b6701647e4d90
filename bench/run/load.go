package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"
	"time"
)

// result is one step of the load: a target at one concurrency.
type result struct {
	target   string
	clients  int
	requests int
	errors   int
	firstErr error
	elapsed  time.Duration
	lat      []time.Duration // sorted
}

func (r result) rate() float64 { return float64(r.requests) / r.elapsed.Seconds() }

func (r result) pct(p float64) time.Duration {
	if len(r.lat) == 0 {
		return 0
	}
	return r.lat[min(len(r.lat)-1, int(float64(len(r.lat))*p))]
}

// load runs op from clients goroutines for d: each goroutine calls op with
// successive indexes (offset so that goroutines do not move in step) and
// waits for it before the next call, so at most clients calls are in flight.
func load(ctx context.Context, target string, clients int, d time.Duration, op func(ctx context.Context, i int) error) result {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	var mu sync.Mutex
	res := result{target: target, clients: clients}
	var wg sync.WaitGroup
	start := time.Now()
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var lat []time.Duration
			var errs int
			var first error
			for i := c * 7919; ctx.Err() == nil; i++ {
				t := time.Now()
				err := op(ctx, i)
				if ctx.Err() != nil {
					break // cut off by the deadline: not a measurement
				}
				lat = append(lat, time.Since(t))
				if err != nil {
					errs++
					if first == nil {
						first = err
					}
				}
			}
			mu.Lock()
			res.lat = append(res.lat, lat...)
			res.errors += errs
			if res.firstErr == nil {
				res.firstErr = first
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	res.elapsed = time.Since(start)
	res.requests = len(res.lat)
	slices.Sort(res.lat)
	return res
}

// getter returns an op that GETs base+paths[i % len(paths)] and reads the
// whole body; anything but a 200 is an error.
func getter(client *http.Client, base string, paths []string) func(context.Context, int) error {
	return func(ctx context.Context, i int) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+paths[i%len(paths)], nil)
		if err != nil {
			return err
		}
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		_, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("GET %s: %s", req.URL.Path, resp.Status)
		}
		return err
	}
}

func newClient(clients int) *http.Client {
	return &http.Client{
		Timeout: 30 * time.Second,
		Transport: &http.Transport{
			MaxIdleConns:        clients,
			MaxIdleConnsPerHost: clients,
			DisableCompression:  true,
		},
	}
}
