//go:build !unix

package cpuclock

import "time"

const supported = false

func used() time.Duration { return 0 }
