package main

import (
	"io"
	"sync"
	"time"
)

// logWriter buffers the log: one line per request, written to standard
// error one write(2) each, cost about 8 % of the CPU of serving a cached
// page. Lines are written out when the buffer fills, every flushEvery, and
// on Close, which run defers, so a clean stop loses none; a crash loses at
// most the last flushEvery of them. After Close, lines go straight through
// (goroutines that outlive run still log).
type logWriter struct {
	mu        sync.Mutex
	w         io.Writer
	buf       []byte
	closed    bool
	closeOnce sync.Once
	stop      chan struct{}
	done      chan struct{}
}

const (
	logBufferBytes = 64 << 10
	flushEvery     = 100 * time.Millisecond
)

func newLogWriter(w io.Writer) *logWriter {
	l := &logWriter{w: w, buf: make([]byte, 0, logBufferBytes), stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(l.done)
		t := time.NewTicker(flushEvery)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				l.Flush()
			case <-l.stop:
				return
			}
		}
	}()
	return l
}

// Write keeps p (one whole log line: slog's handlers write each record
// with one call) for the next flush.
func (l *logWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return l.w.Write(p)
	}
	if len(l.buf)+len(p) > cap(l.buf) {
		if err := l.flushLocked(); err != nil {
			return 0, err
		}
		if len(p) > cap(l.buf) {
			return l.w.Write(p)
		}
	}
	l.buf = append(l.buf, p...)
	return len(p), nil
}

// Flush writes out the lines kept so far.
func (l *logWriter) Flush() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.flushLocked()
}

func (l *logWriter) flushLocked() error {
	if len(l.buf) == 0 {
		return nil
	}
	_, err := l.w.Write(l.buf)
	l.buf = l.buf[:0]
	return err
}

// Close stops the periodic flush and writes out what is kept; later
// lines are written at once.
func (l *logWriter) Close() error {
	var err error
	l.closeOnce.Do(func() {
		close(l.stop)
		<-l.done
		l.mu.Lock()
		defer l.mu.Unlock()
		err = l.flushLocked()
		l.closed = true
	})
	return err
}
