// Package listening reads where a server started by a test listens, from
// its "listening" log line. The tests start the server on 127.0.0.1:0 and
// let it pick the port: a port found free by the test and passed on can be
// bound by another test process first, whose server then answers the
// test's requests.
package listening

import "regexp"

// line matches the line in the text log format and in the JSON one; the
// character after the port (a space or a quote) shows it is written whole.
var line = regexp.MustCompile(`msg=listening url=(http://127\.0\.0\.1:[0-9]+) |"msg":"listening","url":"(http://127\.0\.0\.1:[0-9]+)"`)

// URL is the base URL of the first "listening" line of log (the server's
// log, as text or JSON), or "" when the line is not written yet.
func URL(log []byte) string {
	if m := line.FindSubmatch(log); m != nil {
		return string(m[1]) + string(m[2])
	}
	return ""
}
