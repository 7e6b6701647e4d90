package attachment_test

import (
	"strings"
	"testing"

	"hindsight/attachment"
)

// Name keeps the base of a file's name in safe characters, with an
// extension that fits its content.
func TestName(t *testing.T) {
	png := attachment.File{ContentType: "image/png", Ext: ".png"}
	jpeg := attachment.File{ContentType: "image/jpeg", Ext: ".jpg"}
	text := attachment.File{ContentType: "text/plain; charset=utf-8", Ext: ".txt"}
	for _, tt := range []struct {
		name string
		f    attachment.File
		want string
	}{
		{"error rate.PNG", png, "error-rate.png"},
		{"../../etc/passwd.png", png, "passwd.png"},
		{`C:\Users\ann\graph.png`, png, "graph.png"},
		{"photo.jpeg", jpeg, "photo.jpeg"},
		{"router", text, "router.txt"},
		{"router.log", text, "router.log"},
		{"<script>.png", png, "script.png"},
		{"...", png, "file.png"},
		{"grafico-latência.png", png, "grafico-lat-ncia.png"},
	} {
		if got := attachment.Name(tt.name, tt.f); got != tt.want {
			t.Errorf("Name(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// JSON is checked token by token: one value, whole, nothing after it.
func TestCheckJSON(t *testing.T) {
	for _, tt := range []struct {
		text string
		ok   bool
	}{
		{`{"alert": "RouterQueueFull", "values": [1, 2, {"x": null}]}`, true},
		{`[1, 2, 3]`, true},
		{`"just a string"`, true},
		{`{"alert": `, false},
		{`{"a": 1} {"b": 2}`, false},
		{`{"a": 1}}`, false},
		{`{"a" 1}`, false},
	} {
		_, err := attachment.Check(strings.NewReader(tt.text), int64(len(tt.text)), "alert.json", "application/json")
		if got := err == nil; got != tt.ok {
			t.Errorf("Check(%s): accepted %v (%v), want %v", tt.text, got, err, tt.ok)
		}
	}
}
